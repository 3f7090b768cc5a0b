"""Plan schemas, declared failure kinds and tool traits (``dc_schemas``, ``dc_failure_kinds``,
``dc_tool_traits``), and the episode reads plan recall is built from.

Storage only: rows in, rows out. What a pattern is, how evidence is weighed and what an error
kind means is :mod:`deltacore.learning`'s business; a schema's body is stored as the JSON it is
given. Every row carries the tenant.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from deltacore.model import Namespace, ScopeFilter
from deltacore.storage.consolidation_store import derivations
from deltacore.storage.database import Database
from deltacore.storage.filters import scope_clauses
from deltacore.storage.tables import deltas, events, metadata, utility_updates
from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    func,
    or_,
    select,
)

_ID = String(128)

schemas = Table(
    "dc_schemas",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("schema_id", _ID, primary_key=True),
    Column(
        "version",
        Integer,
        primary_key=True,
        comment="1, then one more per update, rollback or import",
    ),
    Column("provenance", String(16), nullable=False, comment="LEARNED | PRIOR"),
    Column(
        "body",
        JSON,
        nullable=False,
        comment="steps, slots, utility, confidence, templates, situations",
    ),
    Column("created", Float, nullable=False),
    Column("note", Text),
    comment="plan schemas (issue 17): append-only versions; the highest is current",
)

failure_kinds = Table(
    "dc_failure_kinds",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column(
        "event_id", _ID, primary_key=True, comment="the tool result (or call) declared"
    ),
    Column("kind", String(16), nullable=False, comment="transient | permanent"),
    Column("ts", Float, nullable=False),
    comment="failure kinds declared after the fact (declare_failure)",
)

tool_traits = Table(
    "dc_tool_traits",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("tool_name", String(256), primary_key=True),
    Column(
        "read_only",
        Integer,
        nullable=False,
        comment="1: the tool only reads (readOnlyHint)",
    ),
    Column("ts", Float, nullable=False),
    comment="what the offered tool specs say about each tool beyond its schema",
)
Index("ix_dc_schemas_current", schemas.c.tenant, schemas.c.schema_id, schemas.c.version)


def _episode_rows(tenant: str, episode_ids: Sequence[str]) -> tuple[Any, ...]:
    """The events of these episodes that make up their traces (what :meth:`PlanRepository.
    episode_events` reads and :meth:`PlanRepository.episode_shapes` counts: the two must agree).

    An episode is what happened, so consolidation does not change it: an original a merge hid
    (``replaced_by`` names a merged memory) still counts, and the merged memory does not
    (three identical calls stay three calls, not one). An original an update replaced does not."""
    merged = select(derivations.c.derived_id).where(derivations.c.tenant == tenant)
    return (
        events.c.tenant == tenant,
        events.c.episode_id.in_(list(episode_ids)),
        events.c.kind.in_(_EPISODE_KINDS),
        or_(events.c.replaced_by.is_(None), events.c.replaced_by.in_(merged)),
        events.c.id.not_in(merged),
        events.c.namespace != "quarantine",
    )


def create_plan_tables(conn: Any) -> None:
    schemas.create(conn, checkfirst=True)
    failure_kinds.create(conn, checkfirst=True)
    tool_traits.create(conn, checkfirst=True)


_EPISODE_KINDS = ("message", "tool_call", "tool_result", "outcome", "observation")


class PlanRepository:
    """The plan layer's reads and writes; every method runs in the caller's connection."""

    def __init__(self, database: Database) -> None:
        self.database = database

    # ---- episodes ------------------------------------------------------------------------------

    def recent_episodes(
        self, conn: Connection, tenant: str, agent_id: str | None, limit: int
    ) -> list[str]:
        """The latest ``limit`` episodes (newest first) that made a tool call."""
        statement = (
            select(deltas.c.episode_id, func.max(deltas.c.ts).label("last"))
            .where(
                deltas.c.tenant == tenant,
                deltas.c.episode_id.is_not(None),
                deltas.c.tool_name.is_not(None),
            )
            .group_by(deltas.c.episode_id)
            .order_by(func.max(deltas.c.ts).desc())
            .limit(limit)
        )
        if agent_id is not None:
            statement = statement.where(deltas.c.agent_id == agent_id)
        return [row.episode_id for row in conn.execute(statement)]

    def episode_events(
        self, conn: Connection, tenant: str, episode_ids: Sequence[str]
    ) -> dict[str, list[Any]]:
        """``episode -> its events in time order`` (id, kind, role, text, tool fields, meta, parents, ts)."""
        found: dict[str, list[Any]] = {episode: [] for episode in episode_ids}
        ids = list(episode_ids)
        for start in range(0, len(ids), 500):
            statement = (
                select(
                    events.c.id,
                    events.c.episode_id,
                    events.c.kind,
                    events.c.role,
                    events.c.text,
                    events.c.tool_name,
                    events.c.tool_args,
                    events.c.tool_schema_hash,
                    events.c.meta,
                    events.c.parent_ids,
                    events.c.ts,
                )
                .where(*_episode_rows(tenant, ids[start : start + 500]))
                .order_by(events.c.ts, events.c.seq)
            )
            for row in conn.execute(statement):
                found[row.episode_id].append(row)
        return found

    def episode_shapes(
        self, conn: Connection, tenant: str, episode_ids: Sequence[str]
    ) -> dict[str, tuple[int, int]]:
        """``episode -> (events, highest seq)`` of the events :meth:`episode_events` reads: a
        cheap test of whether an episode changed since it was last read."""
        found: dict[str, tuple[int, int]] = {}
        ids = list(episode_ids)
        for start in range(0, len(ids), 500):
            statement = (
                select(events.c.episode_id, func.count(), func.max(events.c.seq))
                .where(*_episode_rows(tenant, ids[start : start + 500]))
                .group_by(events.c.episode_id)
            )
            for episode, count, seq in conn.execute(statement):
                found[episode] = (int(count), int(seq))
        return found

    def episode_rewards(
        self, conn: Connection, tenant: str, episode_ids: Sequence[str]
    ) -> dict[str, float]:
        """The reward ``record_outcome`` gave each episode (its latest, when given twice)."""
        found: dict[str, float] = {}
        ids = list(episode_ids)
        for start in range(0, len(ids), 500):
            statement = (
                select(utility_updates.c.episode_id, utility_updates.c.reward)
                .where(
                    utility_updates.c.tenant == tenant,
                    utility_updates.c.episode_id.in_(ids[start : start + 500]),
                    utility_updates.c.source == "outcome",
                )
                .order_by(utility_updates.c.id)
            )
            for episode, reward in conn.execute(statement):
                found[episode] = float(reward)
        return found

    def events_within(
        self,
        conn: Connection,
        event_ids: Sequence[str],
        scope: ScopeFilter,
        *,
        min_trust: float | None = None,
        trusted_only: bool = False,
    ) -> dict[str, tuple[str, float]]:
        """``event id -> (namespace, trust)`` for those of ``event_ids`` inside ``scope``
        (its kinds aside), counted as an episode is (:func:`_episode_rows`): an original a merge
        hid is still inside, a quarantined event never is, whatever the scope says."""
        merged = select(derivations.c.derived_id).where(derivations.c.tenant == scope.tenant)
        inside = scope.model_copy(update={"kinds": (), "include_quarantined": False})
        clauses = [
            *scope_clauses(inside, current_only=False),
            or_(events.c.replaced_by.is_(None), events.c.replaced_by.in_(merged)),
            events.c.id.not_in(merged),
        ]
        if min_trust is not None:
            clauses.append(events.c.trust >= min_trust)
        if trusted_only:
            clauses.append(events.c.namespace == Namespace.TRUSTED.value)
        found: dict[str, tuple[str, float]] = {}
        ids = list(dict.fromkeys(event_ids))
        for start in range(0, len(ids), 500):
            statement = select(events.c.id, events.c.namespace, events.c.trust).where(
                events.c.id.in_(ids[start : start + 500]), *clauses
            )
            for row in conn.execute(statement):
                found[row.id] = (row.namespace, float(row.trust if row.trust is not None else 1.0))
        return found

    def event_kind(
        self, conn: Connection, event_id: str, tenant: str
    ) -> tuple[str, str | None] | None:
        """``(kind, episode_id)`` of one event of the tenant, None when there is none."""
        row = conn.execute(
            select(events.c.kind, events.c.episode_id).where(
                events.c.id == event_id, events.c.tenant == tenant
            )
        ).first()
        return None if row is None else (row.kind, row.episode_id)

    # ---- failure kinds -------------------------------------------------------------------------

    def declare_failure(
        self, conn: Connection, tenant: str, event_id: str, kind: str
    ) -> None:
        statement = self.database.dialect.insert(failure_kinds).values(
            tenant=tenant, event_id=event_id, kind=kind, ts=time.time()
        )
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["tenant", "event_id"],
                set_={"kind": kind, "ts": time.time()},
            )
        )

    def tenant_failures(self, conn: Connection, tenant: str) -> dict[str, str]:
        """Every declared failure kind of the tenant (``event id -> kind``)."""
        statement = select(failure_kinds.c.event_id, failure_kinds.c.kind).where(
            failure_kinds.c.tenant == tenant
        )
        return dict(conn.execute(statement).all())

    # ---- tool traits ---------------------------------------------------------------------------

    def set_read_only(
        self, conn: Connection, tenant: str, traits: dict[str, bool]
    ) -> None:
        now = time.time()
        for tool, read_only in traits.items():
            statement = self.database.dialect.insert(tool_traits).values(
                tenant=tenant, tool_name=tool, read_only=int(read_only), ts=now
            )
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["tenant", "tool_name"],
                    set_={"read_only": int(read_only), "ts": now},
                )
            )

    def read_only_tools(self, conn: Connection, tenant: str) -> dict[str, bool]:
        statement = select(tool_traits.c.tool_name, tool_traits.c.read_only).where(
            tool_traits.c.tenant == tenant
        )
        return {tool: bool(flag) for tool, flag in conn.execute(statement)}

    # ---- schemas -------------------------------------------------------------------------------

    def current_schemas(
        self, conn: Connection, tenant: str
    ) -> dict[str, dict[str, Any]]:
        """``schema_id -> its current (highest) version row`` for the tenant."""
        latest = (
            select(schemas.c.schema_id, func.max(schemas.c.version).label("version"))
            .where(schemas.c.tenant == tenant)
            .group_by(schemas.c.schema_id)
            .subquery()
        )
        statement = (
            select(schemas)
            .join(
                latest,
                (schemas.c.schema_id == latest.c.schema_id)
                & (schemas.c.version == latest.c.version),
            )
            .where(schemas.c.tenant == tenant)
        )
        return {row.schema_id: dict(row._mapping) for row in conn.execute(statement)}

    def schema_versions(
        self, conn: Connection, tenant: str, schema_id: str
    ) -> list[dict[str, Any]]:
        """Every version of one schema, oldest first."""
        statement = (
            select(schemas)
            .where(schemas.c.tenant == tenant, schemas.c.schema_id == schema_id)
            .order_by(schemas.c.version)
        )
        return [dict(row._mapping) for row in conn.execute(statement)]

    def add_schema_version(
        self,
        conn: Connection,
        tenant: str,
        schema_id: str,
        version: int,
        provenance: str,
        body: dict[str, Any],
        note: str | None = None,
    ) -> None:
        conn.execute(
            schemas.insert().values(
                tenant=tenant,
                schema_id=schema_id,
                version=version,
                provenance=provenance,
                body=body,
                created=time.time(),
                note=note,
            )
        )

    def all_schema_versions(self, conn: Connection, tenant: str) -> list[dict[str, Any]]:
        """Every version of every schema of the tenant."""
        statement = select(schemas).where(schemas.c.tenant == tenant).order_by(schemas.c.schema_id, schemas.c.version)
        return [dict(row._mapping) for row in conn.execute(statement)]

    def rewrite_schema_body(
        self, conn: Connection, tenant: str, schema_id: str, version: int, body: dict[str, Any]
    ) -> None:
        """Replace one stored version's body in place (an erasure's rewrite; versions are
        otherwise append-only)."""
        conn.execute(
            schemas.update()
            .where(schemas.c.tenant == tenant, schemas.c.schema_id == schema_id, schemas.c.version == version)
            .values(body=body)
        )

    def episodes_of_events(self, conn: Connection, event_ids: Sequence[str]) -> list[tuple[str, str]]:
        """``(tenant, episode)`` of the episodes these events belong to."""
        found: dict[tuple[str, str], None] = {}
        ids = list(event_ids)
        for start in range(0, len(ids), 500):
            statement = select(events.c.tenant, events.c.episode_id).where(
                events.c.id.in_(ids[start : start + 500]), events.c.episode_id.is_not(None)
            )
            found.update(dict.fromkeys((row.tenant, row.episode_id) for row in conn.execute(statement)))
        return list(found)

    def episodes_with_events(self, conn: Connection, tenant: str, episode_ids: Sequence[str]) -> set[str]:
        """Those of ``episode_ids`` that still have an event."""
        found: set[str] = set()
        ids = list(episode_ids)
        for start in range(0, len(ids), 500):
            statement = select(events.c.episode_id).where(
                events.c.tenant == tenant, events.c.episode_id.in_(ids[start : start + 500])
            ).distinct()
            found.update(conn.execute(statement).scalars())
        return found

    def known_schema_ids(self, conn: Connection, tenant: str) -> set[str]:
        return set(
            conn.execute(
                select(schemas.c.schema_id).where(schemas.c.tenant == tenant).distinct()
            ).scalars()
        )
