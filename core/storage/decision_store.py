"""The decision repository: the reads of ``recall_decisions``: earlier tool calls with their deltas, the situation each
was taken in, and the evidence of how each went (its result, its utility updates, its
episode's outcome)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, func, select

from deltacore.model import Namespace
from deltacore.storage.database import Database
from deltacore.storage.id_lists import chunks
from deltacore.storage.tables import delta_links, deltas, events, utility_updates


class DecisionRepository:
    """The reads of recall_decisions; every method runs in the caller's connection."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def tool_call_heads(self, conn: Connection, tenant: str, *, tool: str | None, agent_id: str | None, limit: int) -> list[Any]:
        """(event_id, episode_id) of the latest ``limit`` tool calls in scope, newest first."""
        statement = (
            select(events.c.id.label("event_id"), events.c.episode_id)
            .where(
                events.c.tenant == tenant,
                events.c.kind == "tool_call",
                events.c.namespace != Namespace.QUARANTINE.value,
            )
            .order_by(events.c.ts.desc(), events.c.seq.desc())
            .limit(limit)
        )
        if tool is not None:
            statement = statement.where(events.c.tool_name == tool)
        if agent_id is not None:
            statement = statement.where(events.c.agent_id == agent_id)
        return list(conn.execute(statement))

    def first_parents(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, str]:
        """Each event's first declared parent (the step that prompted it), where it has one."""
        found: dict[str, str] = {}
        for chunk in chunks(event_ids):
            for event_id, parents in conn.execute(select(events.c.id, events.c.parent_ids).where(events.c.id.in_(chunk))):
                if parents:
                    found[event_id] = parents[0]
        return found

    def tool_calls(self, conn: Connection, event_ids: Sequence[str]) -> list[Any]:
        """The given tool calls with their deltas, newest first."""
        rows: list[Any] = []
        for chunk in chunks(event_ids):
            statement = (
                select(
                    events.c.id.label("event_id"),
                    events.c.seq,
                    events.c.ts,
                    events.c.episode_id,
                    events.c.tool_name,
                    events.c.tool_args,
                    events.c.confidence,
                    deltas.c.id.label("delta_id"),
                    deltas.c.action,
                    deltas.c.utility,
                    deltas.c.utility_ts,
                    deltas.c.conflict_flags,
                    deltas.c.tool_schema_hash,
                )
                .join(deltas, deltas.c.event_id == events.c.id)
                .where(events.c.id.in_(chunk))
            )
            rows.extend(conn.execute(statement))
        return sorted(rows, key=lambda row: (row.ts, row.seq), reverse=True)

    def episode_openers(self, conn: Connection, tenant: str, episode_ids: Sequence[str]) -> dict[str, str]:
        """The event that opened each episode: its first message (the task), else its first event."""
        found: dict[str, str] = {}
        for chunk in chunks(sorted(set(episode_ids))):
            for only_messages in (True, False):
                wanted = [e for e in chunk if e not in found]
                if not wanted:
                    break
                first = (
                    select(events.c.episode_id, func.min(events.c.seq).label("seq"))
                    .where(events.c.tenant == tenant, events.c.episode_id.in_(wanted))
                    .group_by(events.c.episode_id)
                )
                if only_messages:
                    first = first.where(events.c.kind == "message")
                first = first.subquery()
                statement = select(events.c.episode_id, events.c.id).join(
                    first, (events.c.episode_id == first.c.episode_id) & (events.c.seq == first.c.seq)
                ).where(events.c.tenant == tenant)
                found.update({episode_id: event_id for episode_id, event_id in conn.execute(statement)})
        return found

    def texts_and_vectors(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray | None]]:
        found: dict[str, tuple[str, np.ndarray | None]] = {}
        for chunk in chunks(sorted(set(event_ids))):
            statement = select(events.c.id, events.c.text, events.c.tool_name, events.c.embedding).where(events.c.id.in_(chunk))
            for event_id, text, tool_name, blob in conn.execute(statement):
                vector = np.frombuffer(blob, dtype=np.float32) if blob is not None else None
                found[event_id] = (text or tool_name or "", vector)
        return found

    def call_results(self, conn: Connection, call_delta_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """``call delta -> [meta of its tool_result events]`` (results are the calls' children)."""
        child_of: dict[str, list[str]] = {}
        for chunk in chunks(call_delta_ids):
            statement = select(delta_links.c.parent_id, delta_links.c.child_id).where(delta_links.c.parent_id.in_(chunk))
            for parent, child in conn.execute(statement):
                child_of.setdefault(child, []).append(parent)
        # Two key lookups instead of one three-way join: SQLite plans the join as a scan of events.
        found: dict[str, list[dict[str, Any]]] = {}
        for chunk in chunks(list(child_of)):
            statement = (
                select(deltas.c.id, events.c.meta)
                .join(events, events.c.id == deltas.c.event_id)
                .where(deltas.c.id.in_(chunk), events.c.kind == "tool_result")
            )
            for child, meta in conn.execute(statement):
                for parent in child_of[child]:
                    found.setdefault(parent, []).append(meta or {})
        return found

    def learning_evidence(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[tuple[str, float, float]]]:
        """``delta -> [(source, reward, credit weight)]`` of its outcome and feedback updates, oldest first."""
        found: dict[str, list[tuple[str, float, float]]] = {}
        for chunk in chunks(delta_ids):
            statement = (
                select(utility_updates.c.delta_id, utility_updates.c.source, utility_updates.c.reward, utility_updates.c.credit)
                .where(utility_updates.c.delta_id.in_(chunk), utility_updates.c.source.in_(("outcome", "feedback")))
                .order_by(utility_updates.c.id)
            )
            for delta_id, source, reward, credit in conn.execute(statement):
                found.setdefault(delta_id, []).append((source, float(reward), float(credit)))
        return found

    def episode_outcomes(self, conn: Connection, tenant: str, episode_ids: Sequence[str]) -> dict[str, bool]:
        """Success of each episode as its ``outcome`` event says (``meta.success``), the latest one."""
        found: dict[str, bool] = {}
        for chunk in chunks(sorted(set(episode_ids))):
            statement = (
                select(events.c.episode_id, events.c.meta)
                .where(events.c.tenant == tenant, events.c.kind == "outcome", events.c.episode_id.in_(chunk))
                .order_by(events.c.ts, events.c.seq)
            )
            for episode_id, meta in conn.execute(statement):
                success = (meta or {}).get("success")
                if isinstance(success, bool):
                    found[episode_id] = success
        return found
