"""Translation between LlamaIndex objects and DeltaCore records, shared by the adapter's modules."""

from __future__ import annotations

import json
import uuid
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.instrumentation.dispatcher import active_instrument_tags

from deltacore.engine import AsyncDeltaCore, DeltaCore
from deltacore.model import MemoryPacket

FRAMEWORK = "llamaindex"
RUN_ID_TAG = "llamaindex.run_id"
"""The instrument tag a workflow run sets around its steps: the run's id (``handler.run_id``)."""

_MAX_ID = 128  # Event.id max length


def current_run_id() -> str | None:
    """The id of the workflow run this code runs inside (a FunctionAgent run), if any."""
    run_id = active_instrument_tags.get().get(RUN_ID_TAG)
    return str(run_id) if run_id else None


def sync_store(store: DeltaCore | AsyncDeltaCore) -> DeltaCore:
    return store.sync if isinstance(store, AsyncDeltaCore) else store


def async_store(store: DeltaCore | AsyncDeltaCore) -> AsyncDeltaCore:
    return store if isinstance(store, AsyncDeltaCore) else AsyncDeltaCore(store)


def check_store(store: Any) -> Any:
    if not isinstance(store, (DeltaCore, AsyncDeltaCore)):
        raise TypeError(f"store must be an open DeltaCore or AsyncDeltaCore, got {type(store).__name__}")
    return store


def event_id(*parts: str) -> str:
    """A deterministic event id from framework ids (hashed when too long for ``Event.id``)."""
    joined = ":".join(parts)
    return joined if len(joined) <= _MAX_ID else uuid.uuid5(uuid.NAMESPACE_URL, joined).hex


def scope_event(
    *,
    tenant: str,
    agent_id: str | None,
    user_id: str | None,
    session_id: str | None,
    component: str,
    **fields: Any,
) -> dict[str, Any]:
    """An event dict with the scope, ``source`` and ``meta.framework`` every event carries."""
    meta = {"framework": FRAMEWORK, **fields.pop("meta", {})}
    source = fields.pop("source", None) or f"{FRAMEWORK}:{component}"
    return {
        "tenant": tenant,
        "agent_id": agent_id,
        "user_id": user_id,
        "session_id": session_id,
        "source": source,
        **fields,
        "meta": meta,
    }


def query_fields(
    *, tenant: str, agent_id: str | None, user_id: str | None, top_k: int, max_tokens: int | None
) -> dict[str, Any]:
    """Retrieval scope: the tenant, and the agent and user when configured (not the session:
    long-term memory spans sessions)."""
    fields: dict[str, Any] = {"tenant": tenant, "top_k": top_k, "max_tokens": max_tokens}
    if agent_id is not None:
        fields["agent_filter"] = (agent_id,)
    if user_id is not None:
        fields["user_id"] = user_id
    return fields


def format_packet(packet: MemoryPacket) -> str:
    """One memory as a prompt line: date, kind, who, text and warning flags."""
    who = packet.actor or packet.tool_name or packet.role or packet.kind.value
    flags = f" [{', '.join(sorted(f.value for f in packet.flags))}]" if packet.flags else ""
    return f"- [{packet.ts.date().isoformat()} {packet.kind.value}] {who}: {packet.text}{flags}"


def packet_metadata(packet: MemoryPacket) -> dict[str, Any]:
    return {
        "id": packet.id,
        "score": packet.score,
        "flags": sorted(f.value for f in packet.flags),
        "token_cost": packet.token_cost,
        "provenance": list(packet.provenance),
        "kind": packet.kind.value,
        "ts": packet.ts.isoformat(),
        "actor": packet.actor,
        "tool_name": packet.tool_name,
        "episode_id": packet.episode_id,
    }


def message_text(message: ChatMessage | str | None) -> str:
    if message is None:
        return ""
    if isinstance(message, str):
        return message
    return "\n".join(block.text for block in message.blocks if isinstance(block, TextBlock))


def args_text(tool_name: str, arguments: dict[str, Any]) -> str:
    return f"{tool_name}({json.dumps(arguments, sort_keys=True, default=str)})"
