"""DeltaCore as an MCP server: memory tools for any agent that speaks the Model Context Protocol.

``deltacore mcp --path STORE`` runs it over stdio (what desktop clients spawn); ``--http PORT``
serves streamable HTTP on loopback instead. Built on the official ``mcp`` SDK (FastMCP); the
store is opened once per process and every tool call runs in a worker thread
(:class:`~deltacore.AsyncDeltaCore`), so slow calls never block the protocol loop.

One server serves one tenant (``--tenant``): an agent cannot read or write another tenant by
naming it in an argument. Several servers may share one store: on a PostgreSQL + Chroma server
store every process writes everything; on an embedded store the first process owns the Chroma
index and the others write SQL only, their vectors waiting in the outbox for the owner (and
searched in SQL meanwhile) — nothing is lost either way (``tests/test_mcp_server.py``).

A malformed call (a wrong type, an unknown argument, an invalid event) comes back as a tool
error (``isError``) naming the argument and what to do; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from deltacore.async_engine import AsyncDeltaCore
from deltacore.errors import DeltaCoreError, InvalidEventError, InvalidQueryError, MissingExtraError
from deltacore.model import Channel, MemoryPacket

try:
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("the MCP server", "mcp", "mcp") from exc

from pydantic import ValidationError

INSTRUCTIONS = (
    "DeltaCore is this agent's long-term memory. Store what happened with add_memory (or "
    "ingest_events for a batch), look things up with search_memory, ask what worked before with "
    "recall_decisions, report how an episode ended with record_outcome (reward -1 failure .. +1 "
    "success) so that what worked ranks higher next time, and ask what was true at a time with "
    "facts_as_of."
)


class DeltaCoreMCP(FastMCP):
    """FastMCP with stricter argument checking: an unknown argument is an error, not ignored,
    and a type error names the argument in one line instead of a pydantic dump."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            known = set(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - known)
            if unknown:
                raise ToolError(
                    f"{name}: unknown argument(s) {', '.join(map(repr, unknown))}; "
                    f"this tool takes {', '.join(sorted(known)) or 'no arguments'}"
                )
            try:
                tool.fn_metadata.arg_model.model_validate(arguments)
            except ValidationError as exc:
                raise ToolError(f"{name}: {_first_error(exc)}") from None
        return await super().call_tool(name, arguments)


def _first_error(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}"
            for part in error["loc"]
        ).lstrip(".")
        given = (
            f" (got {error['input']!r})"
            if "input" in error and not isinstance(error["input"], dict)
            else ""
        )
        problems.append(f"{where or 'arguments'}: {error['msg']}{given}")
    return "; ".join(problems)


def _packet(packet: MemoryPacket) -> dict[str, Any]:
    """What an agent needs of a memory packet: the text, when, how relevant, how sure."""
    out: dict[str, Any] = {
        "id": packet.id,
        "text": packet.text,
        "kind": packet.kind.value,
        "ts": packet.ts.isoformat(),
        "score": round(packet.score, 4),
        "utility": round(packet.utility, 4),
        "trust": round(packet.trust, 4),
    }
    for name in (
        "role",
        "actor",
        "episode_id",
        "tool_name",
        "current_value",
        "superseded_by",
    ):
        value = getattr(packet, name)
        if value is not None:
            out[name] = value
    if packet.flags:
        out["flags"] = sorted(flag.value for flag in packet.flags)
    return out


def build_server(
    memory: AsyncDeltaCore,
    *,
    tenant: str = "default",
    channel: Channel | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> DeltaCoreMCP:
    """An MCP server whose tools read and write ``memory`` in ``tenant``.

    ``channel`` is where this server's writes really come from (the trust gateway's prior);
    by default it is inferred from each event's kind and role, as for any ingest.
    """
    server = DeltaCoreMCP(
        "deltacore",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        log_level="WARNING",
    )

    def scoped(event: dict[str, Any]) -> dict[str, Any]:
        # The server's tenant, whatever the caller wrote: tenants are the isolation boundary.
        return {**event, "tenant": tenant}

    @server.tool()
    async def add_memory(
        text: str,
        kind: str = "message",
        role: str | None = None,
        source: str | None = None,
        episode_id: str | None = None,
        entities: list[str] | None = None,
        tool_name: str | None = None,
        tool_args: dict[str, Any] | None = None,
        parent_ids: list[str] | None = None,
        meta: dict[str, Any] | None = None,
        ts: datetime | None = None,
    ) -> dict[str, Any]:
        """Store one memory (a message, a fact, a tool call or its result, an observation).

        kind: message, fact, tool_call, tool_result, observation, ... ; episode_id groups the
        steps of one task (needed for record_outcome). Returns the stored id; a duplicate
        returns the id of the copy already stored."""
        fields: dict[str, Any] = {"text": text, "kind": kind}
        optional = {
            "role": role, "source": source, "episode_id": episode_id, "entities": entities, "tool_name": tool_name,
            "tool_args": tool_args, "parent_ids": parent_ids, "meta": meta, "ts": ts,
        }  # fmt: skip
        fields.update(
            {key: value for key, value in optional.items() if value is not None}
        )
        result = await memory.ingest([scoped(fields)], channel=channel)
        if result.rejected:
            rejection = result.rejected[0]
            raise InvalidEventError(rejection.field, rejection.reason)
        event_id = result.event_ids[0]
        return {"id": event_id, "duplicate": event_id in result.duplicates}

    @server.tool()
    async def ingest_events(events: list[dict[str, Any]]) -> dict[str, Any]:
        """Store a batch of events (objects with the fields of add_memory: text, kind, role,
        episode_id, tool_name, tool_args, ...). Good events are stored even when others are
        rejected; "rejected" lists each bad one with its index, the field and why."""
        if not events:
            raise InvalidQueryError("events", "give at least one event object")
        not_objects = [
            i for i, event in enumerate(events) if not isinstance(event, dict)
        ]
        if not_objects:
            raise InvalidQueryError(
                f"events[{not_objects[0]}]", "each event must be a JSON object"
            )
        result = await memory.ingest(
            [scoped(event) for event in events], channel=channel
        )
        return {
            "event_ids": result.event_ids,
            "stored": len(result.stored),
            "duplicates": len(result.duplicates),
            "rejected": [
                {"index": r.index, "field": r.field, "reason": r.reason}
                for r in result.rejected
            ],
        }

    @server.tool()
    async def search_memory(
        query: str,
        top_k: int = 5,
        max_tokens: int | None = None,
        episode_id: str | None = None,
    ) -> dict[str, Any]:
        """The memories most relevant to a question, best first (semantic, lexical, entity,
        temporal and causal search fused). max_tokens: the best ones that fit that budget."""
        if not query.strip():
            raise InvalidQueryError(
                "query", "say what to look for (a non-empty string)"
            )
        criteria: dict[str, Any] = {"top_k": top_k, "tenant": tenant}
        if max_tokens is not None:
            criteria["max_tokens"] = max_tokens
        if episode_id is not None:
            criteria["episode_id"] = episode_id
        packets = await memory.query(query, **criteria)
        return {"memories": [_packet(p) for p in packets]}

    @server.tool()
    async def record_outcome(
        episode_id: str, reward: float, necessary: list[str] | None = None
    ) -> dict[str, Any]:
        """Report how an episode ended: reward in [-1, 1] (-1 failure, +1 success). Each step
        of the episode gets credit (more for the steps the outcome depended on) and its utility
        moves toward the outcome, so what worked ranks higher next time."""
        report = await memory.record_outcome(
            episode_id, reward, tenant=tenant, necessary=necessary
        )
        return {
            "episode_id": report.episode_id,
            "reward": report.reward,
            "steps": [
                {
                    "event_id": u.event_id,
                    "credit": round(u.credit, 4),
                    "on_path": u.on_path,
                    "utility": round(u.utility, 4),
                }
                for u in report.updates
            ],
            "review_items": report.review_items,
        }

    @server.tool()
    async def recall_decisions(
        context: str,
        tool: str | None = None,
        top_k: int = 5,
        include_failed: bool = True,
    ) -> dict[str, Any]:
        """What was done before in situations like this one, and how it went: tool calls
        (tool + arguments) that worked first, then those that failed (flagged)."""
        decisions = await memory.recall_decisions(
            context,
            tool=tool,
            tenant=tenant,
            top_k=top_k,
            include_failed=include_failed,
        )
        keep = (
            "tool",
            "action",
            "args",
            "outcome",
            "expected_reward",
            "confidence",
            "evidence",
            "schema_current",
        )
        return {
            "decisions": [
                decision.model_dump(mode="json", include=set(keep))
                for decision in decisions
            ]
        }

    @server.tool()
    async def facts_as_of(
        subject: str | None = None, attribute: str | None = None, at: str | None = None
    ) -> dict[str, Any]:
        """The facts the store believes (one value per subject and attribute; both sides of an
        open conflict), or those valid at `at` (an ISO 8601 date or time)."""
        facts = await memory.facts(subject, attribute, at, tenant=tenant)
        keep = (
            "subject_name",
            "attribute",
            "value",
            "valid_from",
            "valid_until",
            "status",
            "weight",
            "confidence",
        )
        return {
            "facts": [fact.model_dump(mode="json", include=set(keep)) for fact in facts]
        }

    @server.tool()
    async def forget(
        subject: str, identifiers: list[str] | None = None, confirm: bool = False, reason: str | None = None
    ) -> dict[str, Any]:
        """Erase a person everywhere in this memory (GDPR right to erasure): every memory naming
        `subject` or one of `identifiers` (e-mail, phone…), every copy and everything derived.
        Irreversible: without `confirm: true` nothing is erased and the error lists what would go."""
        fields = {"identifiers": identifiers or [], "reason": reason, "tenant": tenant, "requester": "mcp"}
        try:
            if not confirm:
                dry = await memory.forget(subject, dry_run=True, **fields)
                would = ", ".join(f"{k}={v}" for k, v in sorted(dry.counts.items())) or "nothing"
                raise ToolError(f"forget: set confirm to true to erase; this would erase: {would}")
            certificate = await memory.forget(subject, **fields)
        except DeltaCoreError as exc:
            raise ToolError(f"forget: {exc}") from None
        return {
            "request_id": certificate.request_id,
            "nothing_found": certificate.nothing_found,
            "counts": dict(certificate.counts),
            "audit_hash": certificate.audit_hash,
        }

    return server


def tool_names(server: FastMCP) -> Sequence[str]:
    """The tools ``server`` offers (for ``--help`` texts and tests)."""
    return [tool.name for tool in server._tool_manager.list_tools()]
