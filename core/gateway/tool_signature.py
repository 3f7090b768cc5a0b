"""Tool signature: a tool output must come from a tool the registry knows, with its schema.

The registry is ``dc_tool_schemas``, filled from the schemas adapters pass with tool calls.
A result claiming an unknown tool (when the tenant has a registry), or a call whose schema hash
the registry does not know for that tool, does not match: its trust score is multiplied by ``TrustPolicy.tool_signature_factor`` (halved by default).
The first schema a tool is seen with registers it (that is how the registry is built).
"""

from __future__ import annotations

from collections.abc import Mapping

from deltacore.model import Channel, Event, EventKind


def signature_matches(
    event: Event, channel: Channel, registry: Mapping[str, set[str]], tenant_has_registry: bool
) -> tuple[bool, str | None]:
    """(matches, reason when it does not). ``registry`` maps tool name → known schema hashes."""
    is_tool_output = event.kind in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT) or channel is Channel.TOOL
    if not is_tool_output or not tenant_has_registry:
        return True, None
    if not event.tool_name:
        return False, "tool output without a tool name"
    known = registry.get(event.tool_name)
    if not known:
        if event.tool_schema_hash:
            return True, None  # a new tool registering its schema
        return False, "tool not in the registry"
    if event.tool_schema_hash and event.tool_schema_hash not in known:
        return False, "tool schema does not match the registry"
    return True, None
