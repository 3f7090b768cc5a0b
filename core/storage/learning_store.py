"""The learning repository: an episode's steps, utility updates with their history, and the
review queue. Every update of ``dc_deltas`` and its history rows go in the caller's one
transaction (``writer()``)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from deltacore.model import ReviewItem
from deltacore.storage.database import Database
from deltacore.storage.records import review_item_from_row
from deltacore.storage.tables import delta_links, deltas, events, retrievals, review_queue, utility_updates

LEARNING_SOURCES = ("outcome", "feedback", "retrieval")
"""``dc_utility_updates.source`` values that are evidence (the others are demotions)."""


class LearningRepository:
    """Outcome learning's reads and writes; every method runs in the caller's transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    @staticmethod
    def failed_calls(results: Iterable[tuple[Iterable[str], dict[str, Any]]]) -> set[str]:
        """Of the calls some tool results answer, those whose every result reports a failure."""
        return failed_calls(results)

    def episode_steps(self, conn: Connection, tenant: str, episode_id: str) -> list[Any]:
        """The episode's events joined with their deltas, in time order (ts, then insertion)."""
        statement = (
            select(
                events.c.id.label("event_id"),
                events.c.kind,
                events.c.text,
                events.c.tool_name,
                events.c.tool_args,
                events.c.meta,
                events.c.episode_id,
                deltas.c.id.label("delta_id"),
                deltas.c.utility,
                deltas.c.utility_ts,
                deltas.c.credit,
                deltas.c.conflict_flags,
            )
            .join(deltas, deltas.c.event_id == events.c.id)
            .where(events.c.tenant == tenant, events.c.episode_id == episode_id)
            .order_by(events.c.ts, events.c.seq)
        )
        return list(conn.execute(statement))

    def event_deltas(self, conn: Connection, event_ids: Sequence[str], tenant: str | None = None) -> list[Any]:
        """Deltas of the given events (same columns as :func:`episode_steps`), in the given order."""
        if not event_ids:
            return []
        statement = (
            select(
                events.c.id.label("event_id"),
                events.c.tenant,
                events.c.episode_id,
                deltas.c.id.label("delta_id"),
                deltas.c.utility,
                deltas.c.utility_ts,
                deltas.c.credit,
                deltas.c.conflict_flags,
            )
            .join(deltas, deltas.c.event_id == events.c.id)
            .where(events.c.id.in_(list(event_ids)))
        )
        if tenant is not None:
            statement = statement.where(events.c.tenant == tenant)
        rows = {row.event_id: row for row in conn.execute(statement)}
        return [rows[event_id] for event_id in event_ids if event_id in rows]

    def links_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """``child -> [(parent, relation)]`` for the given children."""
        return self._related(conn, delta_ids, delta_links.c.child_id, delta_links.c.parent_id)

    def _related(self, conn: Connection, delta_ids: Sequence[str], key: Any, other: Any) -> dict[str, list[tuple[str, str]]]:
        """``key -> [(other, relation)]`` for links whose ``key`` column is one of ``delta_ids``."""
        found: dict[str, list[tuple[str, str]]] = {}
        ids = list(delta_ids)
        for start in range(0, len(ids), 500):
            statement = select(key, other, delta_links.c.relation).where(key.in_(ids[start : start + 500]))
            for mine, theirs, relation in conn.execute(statement):
                found.setdefault(mine, []).append((theirs, relation))
        return found

    def retrieved_in_episode(self, conn: Connection, tenant: str, episode_id: str) -> list[str]:
        """Event ids handed to the agent during the episode, first retrieval first, once each."""
        statement = (
            select(retrievals.c.event_id)
            .where(retrievals.c.tenant == tenant, retrievals.c.episode_id == episode_id)
            .order_by(retrievals.c.id)
        )
        return list(dict.fromkeys(conn.execute(statement).scalars()))

    def recent_steps(self, conn: Connection, delta_id: str, limit: int) -> list[float]:
        """The last ``limit`` update steps of a delta since its last resolved UNSTABLE review
        (a reviewer's decision starts a fresh window), oldest first. Only learning updates count:
        a demotion (drift, taint) is not an outcome contradicting the previous one."""
        since = conn.execute(
            select(func.max(review_queue.c.resolved_at)).where(
                review_queue.c.delta_id == delta_id, review_queue.c.kind == "UNSTABLE"
            )
        ).scalar_one_or_none()
        statement = select(utility_updates.c.step).where(
            utility_updates.c.delta_id == delta_id, utility_updates.c.source.in_(LEARNING_SOURCES)
        )
        if since is not None:
            statement = statement.where(utility_updates.c.ts > since)
        rows = conn.execute(statement.order_by(utility_updates.c.id.desc()).limit(limit)).scalars()
        return list(reversed(list(rows)))

    def apply_update(self, conn: Connection, row: dict[str, Any], credit_total: float, flags: Sequence[str]) -> None:
        """Set the delta's utility, credit and flags and append its history row."""
        conn.execute(
            update(deltas)
            .where(deltas.c.id == row["delta_id"])
            .values(utility=row["new_utility"], utility_ts=row["ts"], credit=credit_total, conflict_flags=list(flags))
        )
        conn.execute(insert(utility_updates).values(**row))

    def open_item(self, conn: Connection, kind: str, delta_id: str) -> int | None:
        return conn.execute(
            select(review_queue.c.id).where(
                review_queue.c.kind == kind, review_queue.c.delta_id == delta_id, review_queue.c.resolved_at.is_(None)
            )
        ).scalar_one_or_none()

    def enqueue(
        self, conn: Connection, tenant: str, kind: str, reason: str, payload: dict[str, Any], *, delta_id: str | None, event_id: str | None
    ) -> int:
        statement = (
            insert(review_queue)
            .values(
                tenant=tenant, kind=kind, delta_id=delta_id, event_id=event_id, reason=reason, payload=payload, created=time.time()
            )
            .returning(review_queue.c.id)
        )
        return int(conn.execute(statement).scalar_one())

    def review_items(self, conn: Connection, tenant: str | None, include_resolved: bool) -> list[dict[str, Any]]:
        statement = select(review_queue).order_by(review_queue.c.id)
        if tenant is not None:
            statement = statement.where(review_queue.c.tenant == tenant)
        if not include_resolved:
            statement = statement.where(review_queue.c.resolved_at.is_(None))
        return [dict(row._mapping) for row in conn.execute(statement)]

    def review_item(self, conn: Connection, item_id: int) -> dict[str, Any] | None:
        row = conn.execute(select(review_queue).where(review_queue.c.id == item_id)).first()
        return dict(row._mapping) if row is not None else None

    def review_records(self, conn: Connection, tenant: str | None, include_resolved: bool) -> list[ReviewItem]:
        """The review queue as records, oldest first."""
        return [review_item_from_row(row) for row in self.review_items(conn, tenant, include_resolved)]

    def review_record(self, conn: Connection, item_id: int) -> ReviewItem | None:
        row = self.review_item(conn, item_id)
        return None if row is None else review_item_from_row(row)

    def resolve_item(self, conn: Connection, item_id: int, resolution: str) -> None:
        conn.execute(
            update(review_queue).where(review_queue.c.id == item_id).values(resolved_at=time.time(), resolution=resolution)
        )

    def delta_flags(self, conn: Connection, delta_id: str) -> list[str] | None:
        row = conn.execute(select(deltas.c.conflict_flags).where(deltas.c.id == delta_id)).first()
        return None if row is None else list(row[0] or ())

    def set_delta_flags(self, conn: Connection, delta_id: str, flags: Sequence[str]) -> None:
        conn.execute(update(deltas).where(deltas.c.id == delta_id).values(conflict_flags=list(flags)))

    def children_with_relation(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """``parent -> [(child, relation)]`` for the given parents."""
        return self._related(conn, delta_ids, delta_links.c.parent_id, delta_links.c.child_id)

    def delta_states(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, Any]:
        """(id, tenant, event_id, episode_id, tool_name, utility, utility_ts, credit, conflict_flags) by id."""
        found: dict[str, Any] = {}
        ids = list(delta_ids)
        for start in range(0, len(ids), 500):
            statement = select(
                deltas.c.id,
                deltas.c.tenant,
                deltas.c.event_id,
                deltas.c.episode_id,
                deltas.c.tool_name,
                deltas.c.utility,
                deltas.c.utility_ts,
                deltas.c.credit,
                deltas.c.conflict_flags,
            ).where(deltas.c.id.in_(ids[start : start + 500]))
            found.update({row.id: row for row in conn.execute(statement)})
        return found

    def set_utility(
        self, conn: Connection, delta_id: str, tenant: str, *, predicted: float, new: float, source: str, now: float, flags: Sequence[str]
    ) -> None:
        """Set a delta's utility outside an outcome (demotion, taint) and keep the step in its history."""
        conn.execute(
            update(deltas).where(deltas.c.id == delta_id).values(utility=new, utility_ts=now, conflict_flags=list(flags))
        )
        conn.execute(
            insert(utility_updates).values(
                delta_id=delta_id,
                tenant=tenant,
                episode_id=None,
                source=source,
                ts=now,
                reward=0.0,
                credit=0.0,
                predicted=predicted,
                new_utility=new,
                step=round(new - predicted, 12),
            )
        )

    def episodes_with_tool(self, conn: Connection, tenant: str, tool_name: str, limit: int) -> list[str]:
        """The latest ``limit`` episodes (newest first) that called ``tool_name`` with any arguments."""
        statement = (
            select(deltas.c.episode_id)
            .where(deltas.c.tenant == tenant, deltas.c.tool_name == tool_name, deltas.c.episode_id.is_not(None))
            .order_by(deltas.c.ts.desc())
            .limit(limit * 8)
        )
        return list(dict.fromkeys(conn.execute(statement).scalars()))[:limit]

    def episode_traces(self, conn: Connection, tenant: str, episode_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``episode -> {"opening": [texts], "calls": [(tool, text, args, errored)], "succeeded": bool
        | None}``: what each episode was asked (the messages before its first tool call), the calls it
        made in order (``errored``: every result of the call failed), and how it ended — the reward
        ``record_outcome`` gave it, else its ``outcome`` event."""
        ids = sorted(set(episode_ids))
        traces: dict[str, dict[str, Any]] = {e: {"opening": [], "calls": [], "succeeded": None} for e in ids}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            statement = (
                select(events.c.id, events.c.episode_id, events.c.kind, events.c.tool_name, events.c.text,
                       events.c.tool_args, events.c.meta, events.c.parent_ids)  # fmt: skip
                .where(events.c.tenant == tenant, events.c.episode_id.in_(chunk),
                       events.c.kind.in_(("message", "tool_call", "tool_result", "outcome")))  # fmt: skip
                .order_by(events.c.ts, events.c.seq)
            )
            answers: list[tuple[Sequence[str], dict[str, Any]]] = []  # each result's (parent ids, meta)
            call_rows: dict[str, list[Any]] = {}
            for row in conn.execute(statement):
                trace = traces[row.episode_id]
                if row.kind == "message" and row.episode_id not in call_rows and row.text:
                    trace["opening"].append(row.text)
                elif row.kind == "tool_call":
                    call_rows.setdefault(row.episode_id, []).append(row)  # built below, once its results are known
                elif row.kind == "tool_result":
                    answers.append((row.parent_ids or (), row.meta or {}))
                elif row.kind == "outcome" and isinstance((row.meta or {}).get("success"), bool):
                    trace["succeeded"] = row.meta["success"]
            failed = failed_calls(answers)
            for episode, rows in call_rows.items():
                traces[episode]["calls"] = [(row.tool_name or "", row.text or "", row.tool_args, row.id in failed) for row in rows]
            statement = select(utility_updates.c.episode_id, utility_updates.c.reward).where(
                utility_updates.c.tenant == tenant, utility_updates.c.episode_id.in_(chunk), utility_updates.c.source == "outcome"
            ).order_by(utility_updates.c.id)
            for episode, reward in conn.execute(statement):
                traces[episode]["succeeded"] = reward > 0
        return traces


FAILED_STATUS = frozenset({"error", "failed", "failure"})


def result_failed(meta: dict[str, Any]) -> bool:
    """A tool result that reports a failure: ``meta.error`` or a failed ``status``, as the
    adapters record them."""
    error = meta.get("error")
    # ``{"kind", "type", "message"}`` is how the adapters report an exception (issue 17).
    return error is True or isinstance(error, dict) or str(meta.get("status", "")).lower() in FAILED_STATUS


def failed_calls(results: Iterable[tuple[Iterable[str], dict[str, Any]]]) -> set[str]:
    """Of the calls some tool results answer (each result as its parents' ids and its meta),
    those whose every result reports a failure. A call without a result is not among them."""
    verdicts: dict[str, list[bool]] = {}
    for parents, meta in results:
        failed = result_failed(meta)
        for parent in parents:
            verdicts.setdefault(parent, []).append(failed)
    return {call for call, found in verdicts.items() if all(found)}
