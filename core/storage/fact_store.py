"""SQL of the belief layer: facts, the events that stated them, and conflicts.

Statement builders without I/O at the top, :class:`FactStore` (the repository the belief layer
reads and writes through, ``deltacore.belief.layer.FactRepository``) below. Every write runs in
the caller's transaction.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, Select, insert, or_, select, text

from deltacore.storage.dialect import Dialect
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import conflicts, events, fact_events, facts, learned_forms, system_events

CHUNK = 500
_FACT_COLUMNS = [c.name for c in facts.columns]
_CONFLICT_COLUMNS = [c.name for c in conflicts.columns]
_STORED_EVENT_COLUMNS = (
    events.c.id, events.c.tenant, events.c.agent_id, events.c.user_id, events.c.session_id, events.c.ts,
    events.c.kind, events.c.role, events.c.actor, events.c.source, events.c.channel, events.c.namespace,
    events.c.text, events.c.confidence, events.c.trust, events.c.meta, events.c.tool_name, events.c.entities,
)




def stored_events_statement(ids: Sequence[str]) -> Select:
    return select(*_STORED_EVENT_COLUMNS).where(events.c.id.in_(list(ids)))


def slot_facts_statement(
    tenant: str, subjects: Sequence[str], attributes: Sequence[str] | None = None, open_after: float | None = None
) -> Select:
    statement = select(facts).where(facts.c.tenant == tenant, facts.c.subject.in_(sorted(set(subjects))))
    if attributes is not None:
        statement = statement.where(facts.c.attribute.in_(sorted(set(attributes))))
    if open_after is not None:
        statement = statement.where(or_(facts.c.valid_until.is_(None), facts.c.valid_until > open_after))
    return statement


def facts_statement(tenant: str, subject: str | None, attribute: str | None) -> Select:
    statement = select(facts).where(facts.c.tenant == tenant)
    if subject is not None:
        statement = statement.where(facts.c.subject == subject)
    if attribute is not None:
        statement = statement.where(facts.c.attribute == attribute)
    return statement.order_by(facts.c.subject, facts.c.attribute, facts.c.valid_from, facts.c.id)


def links_statement(fact_ids: Sequence[str]) -> Select:
    return select(fact_events.c.fact_id, fact_events.c.event_id, fact_events.c.source).where(
        fact_events.c.fact_id.in_(list(fact_ids))
    ).order_by(fact_events.c.ts, fact_events.c.event_id)


def facts_of_events_statement(event_ids: Sequence[str]) -> Select:
    return select(fact_events.c.event_id, fact_events.c.fact_id).where(fact_events.c.event_id.in_(list(event_ids)))


def slot_conflicts_statement(tenant: str, subjects: Sequence[str]) -> Select:
    return select(conflicts).where(
        conflicts.c.tenant == tenant, conflicts.c.subject.in_(sorted(set(subjects)))
    ).order_by(conflicts.c.created_at, conflicts.c.id)


def conflict_id_for(old_fact_id: str, new_fact_id: str) -> str:
    return hashlib.sha1(f"{old_fact_id}|{new_fact_id}".encode()).hexdigest()[:32]


class FactStore:
    """Reads and writes facts and conflicts; satisfies ``deltacore.belief.layer.FactRepository``."""

    def __init__(self, sql: SQLStore) -> None:
        self._sql = sql

    @property
    def dialect(self) -> Dialect:
        return self._sql.dialect

    @contextlib.contextmanager
    def reader(self) -> Iterator[Connection]:
        with self._sql.reader() as conn:
            yield conn

    @contextlib.contextmanager
    def writer(self) -> Iterator[Connection]:
        with self._sql.writer() as conn:
            yield conn

    def lock_tenant(self, conn: Connection, tenant: str) -> None:
        """Serialise belief updates of one tenant across processes (SQLite's write lock already does)."""
        if self.dialect.advisory_locks:
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended('dc_facts:' || :tenant, 0))"), {"tenant": tenant})

    def stored_events(self, conn: Connection, ids: Sequence[str]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        ids = list(ids)
        for start in range(0, len(ids), CHUNK):
            rows.extend(dict(r._mapping) for r in conn.execute(stored_events_statement(ids[start : start + CHUNK])))
        return rows

    def learned_forms(self, conn: Connection, tenant: str) -> list[dict[str, Any]]:
        return [dict(r._mapping) for r in conn.execute(select(learned_forms).where(learned_forms.c.tenant == tenant))]

    def save_learned_forms(self, conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
        now = time.time()
        for row in rows:
            values = {**row, "updated_at": now}
            conn.execute(self.dialect.upsert(learned_forms, ["id"], {k: v for k, v in values.items() if k != "id"}, values))

    def drop_learned_forms(self, conn: Connection, tenant: str) -> int:
        return conn.execute(learned_forms.delete().where(learned_forms.c.tenant == tenant)).rowcount or 0

    def slot_facts(
        self,
        conn: Connection,
        tenant: str,
        subjects: Sequence[str],
        attributes: Sequence[str] | None = None,
        with_events: bool = True,
        open_after: float | None = None,
    ) -> list[dict[str, Any]]:
        """Facts about these subjects (and attributes), with ``event_ids`` (oldest statement
        first) unless ``with_events=False`` (then an empty list); with ``open_after``, only
        those still true after that time."""
        if not subjects:
            return []
        rows = [dict(r._mapping) for r in conn.execute(slot_facts_statement(tenant, subjects, attributes, open_after))]
        if not with_events:
            for row in rows:
                row["event_ids"] = []
            return rows
        return self._with_events(conn, rows)

    def slot_conflicts(self, conn: Connection, tenant: str, subjects: Sequence[str], pending_only: bool = False) -> list[dict[str, Any]]:
        if not subjects:
            return []
        statement = slot_conflicts_statement(tenant, subjects)
        if pending_only:
            statement = statement.where(conflicts.c.resolution == "pending")
        return [dict(r._mapping) for r in conn.execute(statement)]

    def facts(self, conn: Connection, tenant: str, subject: str | None = None, attribute: str | None = None) -> list[dict[str, Any]]:
        return self._with_events(conn, [dict(r._mapping) for r in conn.execute(facts_statement(tenant, subject, attribute))])

    def slots_of(self, conn: Connection, tenant: str, subjects: Sequence[str]) -> list[tuple[str, str]]:
        """(subject, attribute) of every slot of these subjects (the slot index answers it)."""
        if not subjects:
            return []
        statement = (
            select(facts.c.subject, facts.c.attribute)
            .where(facts.c.tenant == tenant, facts.c.subject.in_(list(dict.fromkeys(subjects))))
            .distinct()
        )
        return [(row.subject, row.attribute) for row in conn.execute(statement)]

    def subjects(self, conn: Connection, tenant: str) -> list[str]:
        """The tenant's distinct fact subjects (what a new subject is compared with for look-alikes)."""
        return [s for (s,) in conn.execute(select(facts.c.subject).where(facts.c.tenant == tenant).distinct())]

    def facts_by_id(self, conn: Connection, fact_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Fact rows by id, without their statement links (see :meth:`slot_facts` for those)."""
        found: dict[str, dict[str, Any]] = {}
        ids = list(dict.fromkeys(fact_ids))
        for start in range(0, len(ids), CHUNK):
            for row in conn.execute(select(facts).where(facts.c.id.in_(ids[start : start + CHUNK]))):
                found[row.id] = dict(row._mapping)
        return found

    def facts_of_events(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, list[str]]:
        """event id -> ids of the facts it stated (read path: one indexed lookup per query)."""
        found: dict[str, list[str]] = {}
        ids = list(event_ids)
        for start in range(0, len(ids), CHUNK):
            for event_id, fact_id in conn.execute(facts_of_events_statement(ids[start : start + CHUNK])):
                found.setdefault(event_id, []).append(fact_id)
        return found

    def event_times(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, float]:
        return dict(conn.execute(select(events.c.id, events.c.ts).where(events.c.id.in_(list(event_ids)))).all())

    def conflicts(self, conn: Connection, tenant: str, include_resolved: bool = False) -> list[dict[str, Any]]:
        statement = select(conflicts).where(conflicts.c.tenant == tenant)
        if not include_resolved:
            statement = statement.where(conflicts.c.resolution == "pending")
        return [dict(r._mapping) for r in conn.execute(statement.order_by(conflicts.c.created_at, conflicts.c.id))]

    def conflict(self, conn: Connection, conflict_id: str) -> dict[str, Any] | None:
        row = conn.execute(select(conflicts).where(conflicts.c.id == conflict_id)).first()
        return dict(row._mapping) if row is not None else None

    def save(
        self, conn: Connection, fact_rows: Sequence[dict[str, Any]], links: Sequence[dict[str, Any]], conflict_rows: Sequence[dict[str, Any]]
    ) -> None:
        """Upsert facts and conflicts by id, add statement links (a link already there is kept)."""
        now = time.time()
        if fact_rows:
            rows = [{k: row[k] for k in _FACT_COLUMNS if k != "updated_at"} | {"updated_at": now} for row in fact_rows]
            statement = self.dialect.insert(facts)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["id"], set_={k: statement.excluded[k] for k in _FACT_COLUMNS if k != "id"}
                ),
                rows,
            )
        if links:
            conn.execute(self.dialect.insert(fact_events).on_conflict_do_nothing(), list(links))
        if conflict_rows:
            rows = [{k: row[k] for k in _CONFLICT_COLUMNS} for row in conflict_rows]
            statement = self.dialect.insert(conflicts)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["id"], set_={k: statement.excluded[k] for k in _CONFLICT_COLUMNS if k != "id"}
                ),
                rows,
            )

    def log(self, conn: Connection, entries: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
        """System events (tenant, kind, payload), in one statement."""
        if entries:
            now = time.time()
            conn.execute(
                insert(system_events), [{"ts": now, "tenant": t, "kind": k, "payload": p} for t, k, p in entries]
            )

    def last_shift(self, conn: Connection, tenant: str) -> float | None:
        """``since`` of the tenant's latest DISTRIBUTION_SHIFT system event (None: never)."""
        row = conn.execute(
            select(system_events.c.payload)
            .where(system_events.c.tenant == tenant, system_events.c.kind == "DISTRIBUTION_SHIFT")
            .order_by(system_events.c.id.desc())
            .limit(1)
        ).first()
        since = (row[0] or {}).get("since") if row is not None else None
        return float(since) if isinstance(since, (int, float)) else None

    def _with_events(self, conn: Connection, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        by_id = {row["id"]: row for row in rows}
        for row in rows:
            row["event_ids"] = []
        ids = list(by_id)
        for start in range(0, len(ids), CHUNK):
            for fact_id, event_id, _source in conn.execute(links_statement(ids[start : start + CHUNK])):
                by_id[fact_id]["event_ids"].append(event_id)
        return rows


__all__ = ["FactStore", "conflict_id_for"]
