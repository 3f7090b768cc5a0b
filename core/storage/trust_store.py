"""The trust gateway's repositories: source reputation, the security log, quarantine moves and
honeypots, and :class:`TrustStore`, the four together.

Statements only; the decisions are made in ``deltacore.gateway``. Every function that changes
a namespace bumps the tenant's change counter in the same transaction, so the HOT tier (which
caches namespaces) can never serve a quarantined memory.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, Select, and_, bindparam, delete, exists, func, insert, or_, select, update

from deltacore.model import Event, Namespace, SecurityEvent
from deltacore.storage.database import Database
from deltacore.storage.event_statements import EVENT_COLUMNS
from deltacore.storage.id_lists import chunks
from deltacore.storage.records import event_from_row, security_event_from_row
from deltacore.storage.tables import (
    deltas,
    events,
    honeypots,
    security_events,
    source_reputation,
    tool_schemas,
)


def _trusted_objects_statement(exclude_source: bool) -> Select:
    """Objects of trusted deltas for one (tenant, folded subject, predicate), optionally of
    sources other than ``:source``; built once per variant (the gateway asks per stated fact)."""
    # The events are tested per delta (EXISTS), so the only way in is the folded subject
    # index. As a join, SQLite's planner may scan every event instead when sampled statistics
    # (taken while few deltas had a subject) make that index look unselective, a cost per
    # fact written that grows with the store.
    trusted = exists().where(
        events.c.id == deltas.c.event_id,
        events.c.namespace == Namespace.TRUSTED.value,
        events.c.replaced_by.is_(None),  # a version an update replaced is no longer evidence
    )
    if exclude_source:
        trusted = trusted.where(or_(events.c.source.is_(None), events.c.source != bindparam("source")))
    return (
        select(deltas.c.object)
        .where(
            deltas.c.tenant == bindparam("tenant"),
            func.lower(deltas.c.subject) == bindparam("subject"),
            deltas.c.predicate == bindparam("predicate"),
            deltas.c.object.is_not(None),
            trusted,
        )
        .limit(20)
    )


_TRUSTED_OBJECTS = _trusted_objects_statement(exclude_source=False)
_TRUSTED_OBJECTS_OF_OTHERS = _trusted_objects_statement(exclude_source=True)

class ReputationRepository:
    """Per source: reputation and status; what it wrote before; the tool registry and trusted
    facts the scorer compares a write with. Every statement runs on the connection it is given,
    so the standing check of the read path uses one without a database (``ReputationRepository()``)."""

    def __init__(self, database: Database | None = None) -> None:
        self.database = database

    def reputations(self, conn: Connection, tenant: str, sources: Iterable[str]) -> dict[str, tuple[float, str]]:
        """(reputation, status) of each known source."""
        found: dict[str, tuple[float, str]] = {}
        for chunk in chunks(set(sources)):
            statement = select(source_reputation.c.source, source_reputation.c.reputation, source_reputation.c.status).where(
                source_reputation.c.tenant == tenant, source_reputation.c.source.in_(chunk)
            )
            found.update({row.source: (float(row.reputation), row.status) for row in conn.execute(statement)})
        return found

    def source_row(self, conn: Connection, tenant: str, source: str) -> dict[str, Any] | None:
        row = conn.execute(
            select(source_reputation).where(source_reputation.c.tenant == tenant, source_reputation.c.source == source)
        ).first()
        return dict(row._mapping) if row else None

    def adjust_reputation(
        self,
        conn: Connection,
        tenant: str,
        source: str,
        change: float,
        initial: float,
        *,
        status: str | None = None,
        quarantined: int = 0,
        blocked: int = 0,
    ) -> tuple[float, str]:
        """Add ``change`` to a source's reputation (creating it at ``initial``); returns the new
        (reputation, status). Status only moves towards worse unless given explicitly."""
        row = self.source_row(conn, tenant, source)
        now = time.time()
        if row is None:
            reputation = min(1.0, initial + change)
            new_status = status or "ok"
            conn.execute(
                insert(source_reputation).values(
                    tenant=tenant, source=source, reputation=reputation, status=new_status,
                    quarantined=quarantined, blocked=blocked, updated_at=now,
                )
            )
            return reputation, new_status
        reputation = min(1.0, float(row["reputation"]) + change)
        new_status = status or row["status"]
        conn.execute(
            update(source_reputation)
            .where(source_reputation.c.tenant == tenant, source_reputation.c.source == source)
            .values(
                reputation=reputation,
                status=new_status,
                quarantined=source_reputation.c.quarantined + quarantined,
                blocked=source_reputation.c.blocked + blocked,
                updated_at=now,
            )
        )
        return reputation, new_status

    # ---- what a source wrote before ----------------------------------------------------------

    def source_history(
        self, conn: Connection, tenant: str, source: str, limit: int = 500, count_cap: int = 1000
    ) -> tuple[int, list[float]]:
        """(number of stored, non-quarantined events up to ``count_cap``, timestamps of its
        latest ``limit`` events)."""
        # Capped: only "fewer than N" matters (probation), and a source may have millions of rows.
        capped = (
            select(events.c.id)
            .where(events.c.tenant == tenant, events.c.source == source, events.c.namespace != Namespace.QUARANTINE.value)
            .limit(count_cap)
            .subquery()
        )
        count = conn.execute(select(func.count()).select_from(capped)).scalar_one()
        times = conn.execute(
            select(events.c.ts).where(events.c.tenant == tenant, events.c.source == source).order_by(events.c.ts.desc()).limit(limit)
        ).scalars()
        return int(count), sorted(float(t) for t in times)

    def tool_registry(self, conn: Connection, tenant: str) -> dict[str, set[str]]:
        registry: dict[str, set[str]] = {}
        for name, digest in conn.execute(select(tool_schemas.c.tool_name, tool_schemas.c.schema_hash).where(tool_schemas.c.tenant == tenant)):
            registry.setdefault(name, set()).add(digest)
        return registry

    def trusted_objects(
        self, conn: Connection, tenant: str, subject: str, predicate: str, exclude_source: str | None
    ) -> list[str]:
        """Objects trusted memories of other sources state for ``subject predicate``."""
        statement = _TRUSTED_OBJECTS if exclude_source is None else _TRUSTED_OBJECTS_OF_OTHERS
        values = {"tenant": tenant, "subject": subject.lower(), "predicate": predicate, "source": exclude_source}
        return [row for row in conn.execute(statement, values).scalars().all() if row]

    def recent_questions(self, conn: Connection, tenant: str, source: str, limit: int = 50, scan: int = 2000) -> list[str]:
        """The latest questions this source stored (what an induced record would echo)."""
        # Only the source's latest writes are looked at: "recent", and bounded for big sources.
        latest = (
            select(events.c.text, events.c.ts)
            .where(events.c.tenant == tenant, events.c.source == source)
            .order_by(events.c.ts.desc())
            .limit(scan)
            .subquery()
        )
        statement = select(latest.c.text).where(latest.c.text.like("%?")).order_by(latest.c.ts.desc()).limit(limit)
        return list(conn.execute(statement).scalars())

    # ---- standing (``deltacore.gateway.standing``) -------------------------------------------

    def reputations_of(self, conn: Connection, tenant: str, sources: Iterable[str]) -> dict[str, float]:
        """Reputation of each known source among ``sources``."""
        return {
            row.source: float(row.reputation)
            for row in conn.execute(
                select(source_reputation.c.source, source_reputation.c.reputation).where(
                    source_reputation.c.tenant == tenant, source_reputation.c.source.in_(sorted(sources))
                )
            )
        }

    def stored_count(self, conn: Connection, tenant: str, source: str, cap: int) -> int:
        """How many stored, not quarantined memories the source has, counted up to ``cap``."""
        # Counting stops at the threshold: a source with standing may have millions of memories.
        capped = select(events.c.id).where(*_stored_by(tenant, source)).limit(cap).subquery()
        return int(conn.execute(select(func.count()).select_from(capped)).scalar_one())

    def stored_span(self, conn: Connection, tenant: str, source: str) -> tuple[float | None, float | None]:
        """(first, latest) event time of the source's stored, not quarantined memories."""
        first, latest = conn.execute(select(func.min(events.c.ts), func.max(events.c.ts)).where(*_stored_by(tenant, source))).one()
        return (None if first is None else float(first)), (None if latest is None else float(latest))


def _stored_by(tenant: str, source: str) -> tuple[Any, ...]:
    return (events.c.tenant == tenant, events.c.source == source, events.c.namespace != Namespace.QUARANTINE.value)


class QuarantineRepository:
    """Moving events (and their deltas) between namespaces; what is held in quarantine."""

    def __init__(self, database: Database) -> None:
        self.database = database


    def latest_event_ids(self, conn: Connection, tenant: str, source: str, limit: int) -> list[str]:
        statement = (
            select(events.c.id)
            .where(events.c.tenant == tenant, events.c.source == source)
            .order_by(events.c.ts.desc(), events.c.seq.desc())
            .limit(limit)
        )
        return list(conn.execute(statement).scalars())

    def set_namespace(
        self, conn: Connection, tenant: str, event_ids: Sequence[str], namespace: Namespace, only_from: Namespace | None = None
    ) -> list[str]:
        """Move events (and their deltas) to ``namespace``; returns the ids that changed."""
        changed: list[str] = []
        for chunk in chunks(event_ids):
            condition = and_(events.c.tenant == tenant, events.c.id.in_(chunk), events.c.namespace != namespace.value)
            if only_from is not None:
                condition = and_(condition, events.c.namespace == only_from.value)
            ids = list(conn.execute(select(events.c.id).where(condition)).scalars())
            if not ids:
                continue
            conn.execute(update(events).where(events.c.id.in_(ids)).values(namespace=namespace.value))
            conn.execute(update(deltas).where(deltas.c.event_id.in_(ids)).values(namespace=namespace.value))
            changed.extend(ids)
        if changed:
            self.database.bump_tenants(conn, {tenant: 0})  # cached namespaces (HOT tier) are now stale
        return changed

    def namespaces(self, conn: Connection, tenant: str, event_ids: Sequence[str]) -> dict[str, tuple[str, str, str | None]]:
        """(namespace, channel, source) of each event."""
        found: dict[str, tuple[str, str, str | None]] = {}
        for chunk in chunks(event_ids):
            statement = select(events.c.id, events.c.namespace, events.c.channel, events.c.source).where(
                events.c.tenant == tenant, events.c.id.in_(chunk)
            )
            found.update({row.id: (row.namespace, row.channel, row.source) for row in conn.execute(statement)})
        return found

    def quarantined_events(self, conn: Connection, tenant: str, limit: int) -> list[Event]:
        """The tenant's quarantined events, oldest first."""
        statement = (
            select(*EVENT_COLUMNS)
            .where(events.c.tenant == tenant, events.c.namespace == Namespace.QUARANTINE.value)
            .order_by(events.c.ts, events.c.seq)
            .limit(limit)
        )
        return [event_from_row(row) for row in conn.execute(statement)]


class SecurityLog:
    """The operator's security log (``dc_security_events``)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def log(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        if rows:
            now = time.time()
            conn.execute(
                insert(security_events),
                [{"ts": now, "source": None, "event_id": None, "score": None, "action": None, "reasons": [], "payload": {}, **row} for row in rows],
            )

    def security_events(
        self, tenant: str | None, since: float | None, kind: str | None, limit: int
    ) -> list[SecurityEvent]:
        statement = select(security_events).order_by(security_events.c.id).limit(limit)
        if tenant is not None:
            statement = statement.where(security_events.c.tenant == tenant)
        if since is not None:
            statement = statement.where(security_events.c.ts >= since)
        if kind is not None:
            statement = statement.where(security_events.c.kind == kind)
        with self.database.reader() as conn:
            return [security_event_from_row(row) for row in conn.execute(statement)]


class HoneypotRepository:
    """Canary memories (``dc_honeypots``), never in ``dc_events``."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def honeypots(self, conn: Connection, tenant: str) -> tuple[list[str], list[str], np.ndarray]:
        rows = conn.execute(
            select(honeypots.c.id, honeypots.c.text, honeypots.c.embedding).where(honeypots.c.tenant == tenant).order_by(honeypots.c.id)
        ).all()
        if not rows:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in rows])
        return [r.id for r in rows], [r.text for r in rows], vectors

    def store_canaries(self, conn: Connection, limit: int) -> tuple[list[str], np.ndarray]:
        """(texts, vectors) of the canaries planted last in this store, any tenant: a new tenant
        reuses them instead of paying the embedder again."""
        latest = conn.execute(select(honeypots.c.tenant).order_by(honeypots.c.created_at.desc()).limit(1)).scalar()
        if latest is None:
            return [], np.zeros((0, 0), dtype=np.float32)
        _, texts, vectors = self.honeypots(conn, latest)
        return texts[:limit], vectors[:limit]

    def plant_honeypots(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        if rows:
            conn.execute(insert(honeypots), rows)

    def remove_honeypots(self, conn: Connection, tenant: str) -> None:
        conn.execute(delete(honeypots).where(honeypots.c.tenant == tenant))


class TrustStore(ReputationRepository, QuarantineRepository, SecurityLog, HoneypotRepository):
    """The four trust repositories as one object: what the scorer, the E01 playbook and the
    consistency checks receive. ``sql`` is the store the playbook's taint propagation runs on."""

    def __init__(self, sql: Any) -> None:
        super().__init__(sql)
        self.sql = sql
