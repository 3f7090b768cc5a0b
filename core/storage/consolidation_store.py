"""What the consolidation layer keeps in SQL: derivations, cycles, probes and the COLD listing.

Storage only: rows in, rows out. Which memories merge, which go COLD and whether a cycle is kept
is :mod:`deltacore.consolidation`'s business. Tables:

- ``dc_derivations``: a merged memory and every memory it was derived from (``derives_from``);
- ``dc_consolidation_cycles``: one row per cycle with its status, report and undo journal (the
  rows it added, hid and archived), written in the cycle's apply transaction;
- ``dc_consolidation_probes``: the probe queries a user registered for the shadow evaluation;
- ``dc_cold_partitions`` / ``dc_cold_items``: the Parquet partitions of the COLD tier (path,
  row count, SHA-256) and which archived event lives in which partition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deltacore.storage.database import Database
from deltacore.storage.event_writes import EventWrites
from deltacore.storage.id_lists import chunks
from deltacore.storage.tables import (
    delta_links,
    deltas,
    event_entities,
    events,
    mentions,
    metadata,
    retrievals,
    system_events,
    utility_updates,
)
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
    delete,
    func,
    insert,
    select,
    update,
)

_ID = String(128)

derivations = Table(
    "dc_derivations",
    metadata,
    Column("derived_id", _ID, primary_key=True, comment="the merged memory (an event)"),
    Column("source_id", _ID, primary_key=True, comment="an event it was derived from"),
    Column("tenant", String(128), nullable=False),
    Column("cycle_id", _ID, nullable=False),
    Column("depth", Integer, nullable=False, comment="compression depth of the derived memory (raw = 0)"),
    Column("created_at", Float, nullable=False),
    comment="derives_from of merged memories: what a rollback or a forget must find",
)
Index("ix_dc_derivations_source", derivations.c.source_id)

cycles = Table(
    "dc_consolidation_cycles",
    metadata,
    Column("id", _ID, primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("phase", String(16), nullable=False),
    Column("status", String(16), nullable=False, comment="running | applied | accepted | rolled_back | failed"),
    Column("owner", String(256), nullable=False, comment="host:pid of the process running it"),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("high_water", Integer, nullable=False, comment="highest event seq when the cycle started"),
    Column("report", JSON, nullable=False),
    Column("undo", JSON, nullable=False, comment="what the apply did, so a rollback can undo exactly that"),
    comment="consolidation cycles (Layer 5): a cycle is applied in one transaction, then kept or rolled back",
)
Index("ix_dc_cycles_tenant", cycles.c.tenant, cycles.c.started_at)

probes = Table(
    "dc_consolidation_probes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(128), nullable=False),
    Column("text", Text, nullable=False),
    Column("expected", JSON, nullable=False, comment="event ids a good answer contains (empty: the answer before the cycle)"),
    Column("created_at", Float, nullable=False),
    comment="probe queries registered for the shadow evaluation of a cycle",
)

cold_partitions = Table(
    "dc_cold_partitions",
    metadata,
    Column("id", _ID, primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("path", Text, nullable=False, comment="relative to the COLD folder"),
    Column("rows", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("cycle_id", _ID, nullable=False),
    Column("created_at", Float, nullable=False),
    comment="Parquet partitions of the COLD tier, checksummed",
)
Index("ix_dc_cold_partitions_tenant", cold_partitions.c.tenant)

cold_items = Table(
    "dc_cold_items",
    metadata,
    Column("event_id", _ID, primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("partition_id", _ID, nullable=False),
    Column("ts", Float, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("archived_at", Float, nullable=False),
    comment="which archived event lives in which COLD partition",
)
Index("ix_dc_cold_items_partition", cold_items.c.partition_id)
Index("ix_dc_cold_items_tenant", cold_items.c.tenant, cold_items.c.ts)

_TABLES = (derivations, cycles, probes, cold_partitions, cold_items)
_EVENT_SKIP = ("seq", "about")
"""Columns a restored event does not carry over: its row number and the derived full-text tokens."""


def create_consolidation_tables(conn: Connection) -> None:
    """Create the tables (idempotent; independent of every other migration)."""
    for table in _TABLES:
        table.create(conn, checkfirst=True)


def _dicts(result: Any) -> list[dict[str, Any]]:
    return [dict(row._mapping) for row in result]


class ConsolidationRepository:
    """Reads and writes of the consolidation tables and the event rows a cycle moves."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._writes = EventWrites(database)

    # ---- candidates ------------------------------------------------------------------------------

    def live_rows(self, conn: Connection, tenant: str, after_seq: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        """Every live (not replaced) event of a tenant with its embedding, oldest first."""
        statement = (
            select(events)
            .where(events.c.tenant == tenant, events.c.replaced_by.is_(None), events.c.seq > after_seq)
            .order_by(events.c.seq)
        )
        if limit is not None:
            statement = statement.limit(limit)
        return _dicts(conn.execute(statement))

    def delta_rows(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for chunk in chunks(list(event_ids)):
            for row in _dicts(conn.execute(select(deltas).where(deltas.c.event_id.in_(chunk)))):
                found.setdefault(row["event_id"], []).append(row)
        return found

    def last_retrieved(self, conn: Connection, tenant: str) -> dict[str, float]:
        """Event id -> when it was last handed to an agent (``record_retrieval``)."""
        statement = (
            select(retrievals.c.event_id, func.max(retrievals.c.ts))
            .where(retrievals.c.tenant == tenant)
            .group_by(retrievals.c.event_id)
        )
        return {event_id: float(ts) for event_id, ts in conn.execute(statement)}

    def recent_retrieval_queries(self, conn: Connection, tenant: str, limit: int) -> list[tuple[str, list[str]]]:
        """The latest distinct logged queries with the ids handed out for them, in rank order."""
        statement = (
            select(retrievals.c.query, retrievals.c.event_id, retrievals.c.rank, retrievals.c.ts)
            .where(retrievals.c.tenant == tenant, retrievals.c.query.is_not(None))
            .order_by(retrievals.c.ts.desc(), retrievals.c.id.desc())
            .limit(limit * 20)
        )
        found: dict[str, list[tuple[int, str]]] = {}
        for row in conn.execute(statement):
            if row.query not in found and len(found) >= limit:
                continue
            found.setdefault(row.query, []).append((row.rank, row.event_id))
        return [(query, [i for _, i in sorted(ranked)]) for query, ranked in found.items()]

    def high_water(self, conn: Connection, tenant: str) -> int:
        value = conn.execute(select(func.max(events.c.seq)).where(events.c.tenant == tenant)).scalar()
        return int(value or 0)

    def events_since(self, conn: Connection, tenant: str, seq: int) -> int:
        statement = select(func.count()).select_from(events).where(events.c.tenant == tenant, events.c.seq > seq)
        return int(conn.execute(statement).scalar_one())

    def utility_steps_since(self, conn: Connection, tenant: str, ts: float, limit: int = 5000) -> list[float]:
        """Signed steps of the tenant's latest utility updates after ``ts`` (newest first)."""
        statement = (
            select(utility_updates.c.step)
            .where(utility_updates.c.tenant == tenant, utility_updates.c.ts > ts)
            .order_by(utility_updates.c.id.desc())
            .limit(limit)
        )
        return [float(step) for step in conn.execute(statement).scalars()]

    def system_events_since(self, conn: Connection, tenant: str, kind: str, ts: float) -> int:
        statement = select(func.count()).select_from(system_events).where(
            system_events.c.tenant == tenant, system_events.c.kind == kind, system_events.c.ts > ts
        )
        return int(conn.execute(statement).scalar_one())

    # ---- merges ----------------------------------------------------------------------------------

    def insert_merged(self, conn: Connection, event_row: dict[str, Any], delta_rows: list[dict[str, Any]],
                      entity_rows: list[dict[str, Any]], mention_rows: list[dict[str, Any]]) -> bool:
        inserted = self._writes.insert_batch(conn, [event_row], delta_rows, [], entity_rows, mention_rows)
        return event_row["id"] in inserted

    def insert_merged_many(self, conn: Connection, event_rows: list[dict[str, Any]], delta_rows: list[dict[str, Any]],
                           entity_rows: list[dict[str, Any]], mention_rows: list[dict[str, Any]]) -> set[str]:
        """Several merged memories in one batch insert; returns the ids inserted."""
        return self._writes.insert_batch(conn, event_rows, delta_rows, [], entity_rows, mention_rows)

    def unreplaced(self, conn: Connection, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are still live (present and not replaced)."""
        found: set[str] = set()
        for chunk in chunks(list(ids)):
            statement = select(events.c.id).where(events.c.id.in_(chunk), events.c.replaced_by.is_(None))
            found.update(conn.execute(statement).scalars())
        return found

    def hide(self, conn: Connection, tenant: str, ids: Sequence[str], by: str, now: float) -> int:
        """Take ``ids`` out of live retrieval in favour of ``by`` (they stay stored and readable)."""
        changed = conn.execute(
            update(events)
            .where(events.c.id.in_(list(ids)), events.c.tenant == tenant, events.c.replaced_by.is_(None))
            .values(replaced_by=by, replaced_at=now)
        ).rowcount
        self.database.bump_tenants(conn, {tenant: 0})
        return int(changed)

    def unhide(self, conn: Connection, tenant: str, ids: Sequence[str], by: str) -> int:
        changed = conn.execute(
            update(events)
            .where(events.c.id.in_(list(ids)), events.c.replaced_by == by)
            .values(replaced_by=None, replaced_at=None)
        ).rowcount
        self.database.bump_tenants(conn, {tenant: 0})
        return int(changed)

    def add_derivations(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        if rows:
            conn.execute(insert(derivations), rows)

    def derivations_of(self, conn: Connection, derived_ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for chunk in chunks(list(derived_ids)):
            statement = select(derivations.c.derived_id, derivations.c.source_id).where(derivations.c.derived_id.in_(chunk))
            for derived, source in conn.execute(statement):
                found.setdefault(derived, []).append(source)
        return found

    def derived_from_sources(self, conn: Connection, source_ids: Sequence[str]) -> list[str]:
        """Merged memories derived from any of ``source_ids``."""
        found: dict[str, None] = {}
        for chunk in chunks(list(source_ids)):
            statement = select(derivations.c.derived_id).where(derivations.c.source_id.in_(chunk))
            found.update(dict.fromkeys(conn.execute(statement).scalars()))
        return list(found)

    def depths(self, conn: Connection, ids: Sequence[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        for chunk in chunks(list(ids)):
            statement = select(derivations.c.derived_id, func.max(derivations.c.depth)).where(
                derivations.c.derived_id.in_(chunk)).group_by(derivations.c.derived_id)
            found.update({i: int(d) for i, d in conn.execute(statement)})
        return found

    def embeddings(self, conn: Connection, ids: Sequence[str]) -> dict[str, bytes]:
        """Stored vectors of these events (hidden ones too)."""
        found: dict[str, bytes] = {}
        for chunk in chunks(list(ids)):
            statement = select(events.c.id, events.c.embedding).where(events.c.id.in_(chunk), events.c.embedding.is_not(None))
            found.update({i: bytes(e) for i, e in conn.execute(statement)})
        return found

    def tenant_of(self, conn: Connection, ids: Sequence[str]) -> str | None:
        row = conn.execute(select(events.c.tenant).where(events.c.id.in_(list(ids)))).first()
        return row.tenant if row else None

    def merged_live(self, conn: Connection, tenant: str) -> int:
        """Merged memories of a tenant in live retrieval."""
        statement = select(func.count(func.distinct(derivations.c.derived_id))).select_from(
            derivations.join(events, events.c.id == derivations.c.derived_id)
        ).where(derivations.c.tenant == tenant, events.c.replaced_by.is_(None))
        return int(conn.execute(statement).scalar_one())

    def drop_derivations(self, conn: Connection, derived_ids: Sequence[str]) -> None:
        for chunk in chunks(list(derived_ids)):
            conn.execute(delete(derivations).where(derivations.c.derived_id.in_(chunk)))

    def delete_events(self, conn: Connection, ids: Sequence[str]) -> list[str]:
        """Remove event rows with everything that hangs off them (the vector delete is queued)."""
        return self._writes.delete_events(conn, ids)[0]

    # ---- archive (the rows a COLD partition holds) -------------------------------------------------

    def bundles(self, conn: Connection, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Each event with its deltas, links, entities, mentions, retrievals and utility history:
        everything :meth:`restore` needs to put it back as it was."""
        out: list[dict[str, Any]] = []
        for chunk in chunks(list(ids)):
            rows = _dicts(conn.execute(select(events).where(events.c.id.in_(chunk))))
            by_event = {r["id"]: {"event": {k: v for k, v in r.items() if k not in _EVENT_SKIP}} for r in rows}
            delta_list = _dicts(conn.execute(select(deltas).where(deltas.c.event_id.in_(chunk))))
            delta_ids = [d["id"] for d in delta_list]
            for bundle in by_event.values():
                bundle.update(deltas=[], links=[], entities=[], mentions=[], retrievals=[], utility_updates=[])
            owner = {d["id"]: d["event_id"] for d in delta_list}
            for d in delta_list:
                by_event[d["event_id"]]["deltas"].append(d)
            if delta_ids:
                for link in _dicts(conn.execute(select(delta_links).where(
                        delta_links.c.child_id.in_(delta_ids) | delta_links.c.parent_id.in_(delta_ids)))):
                    event_id = owner.get(link["child_id"]) or owner[link["parent_id"]]
                    by_event[event_id]["links"].append(link)
                for u in _dicts(conn.execute(select(utility_updates).where(utility_updates.c.delta_id.in_(delta_ids)))):
                    by_event[owner[u["delta_id"]]]["utility_updates"].append({k: v for k, v in u.items() if k != "id"})
            for table, key in ((event_entities, "entities"), (mentions, "mentions")):
                for r in _dicts(conn.execute(select(table).where(table.c.event_id.in_(chunk)))):
                    by_event[r["event_id"]][key].append(r)
            for r in _dicts(conn.execute(select(retrievals).where(retrievals.c.event_id.in_(chunk)))):
                by_event[r["event_id"]]["retrievals"].append({k: v for k, v in r.items() if k != "id"})
            out.extend(by_event[i] for i in chunk if i in by_event)
        return out

    def restore(self, conn: Connection, bundles: Sequence[dict[str, Any]]) -> list[str]:
        """Put archived events back (the inverse of :meth:`bundles` followed by a delete)."""
        event_rows = [b["event"] for b in bundles]
        if not event_rows:
            return []
        inserted = self._writes.insert_batch(
            conn, event_rows, [d for b in bundles for d in b["deltas"]], [],
            [e for b in bundles for e in b["entities"]], [m for b in bundles for m in b["mentions"]],
        )
        kept = [b for b in bundles if b["event"]["id"] in inserted]
        present = set(conn.execute(select(deltas.c.id)).scalars()) if kept else set()
        links = {(lk["child_id"], lk["parent_id"]): lk for b in kept for lk in b["links"]
                 if lk["child_id"] in present and lk["parent_id"] in present}
        existing = set()
        for child, parent in links:
            row = conn.execute(select(delta_links.c.child_id).where(
                delta_links.c.child_id == child, delta_links.c.parent_id == parent)).first()
            if row is not None:
                existing.add((child, parent))
        fresh = [lk for key, lk in links.items() if key not in existing]
        if fresh:
            conn.execute(insert(delta_links), fresh)
        for key, table in (("retrievals", retrievals), ("utility_updates", utility_updates)):
            rows = [r for b in kept for r in b[key]]
            if rows:
                conn.execute(insert(table), rows)
        return [b["event"]["id"] for b in kept]

    # ---- COLD listing --------------------------------------------------------------------------------

    def add_partition(self, conn: Connection, row: dict[str, Any], items: list[dict[str, Any]]) -> None:
        conn.execute(insert(cold_partitions), [row])
        if items:
            conn.execute(insert(cold_items), items)

    def drop_partition(self, conn: Connection, partition_id: str) -> None:
        conn.execute(delete(cold_items).where(cold_items.c.partition_id == partition_id))
        conn.execute(delete(cold_partitions).where(cold_partitions.c.id == partition_id))

    def partitions(self, conn: Connection, tenant: str | None = None, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        statement = select(cold_partitions).order_by(cold_partitions.c.created_at)
        if tenant is not None:
            statement = statement.where(cold_partitions.c.tenant == tenant)
        if ids is not None:
            statement = statement.where(cold_partitions.c.id.in_(list(ids)))
        return _dicts(conn.execute(statement))

    def cold_locations(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, str]:
        """Archived event id -> the partition holding it."""
        found: dict[str, str] = {}
        for chunk in chunks(list(event_ids)):
            statement = select(cold_items.c.event_id, cold_items.c.partition_id).where(cold_items.c.event_id.in_(chunk))
            found.update(dict(conn.execute(statement).all()))
        return found

    def cold_count(self, conn: Connection, tenant: str) -> int:
        statement = select(func.count()).select_from(cold_items).where(cold_items.c.tenant == tenant)
        return int(conn.execute(statement).scalar_one())

    # ---- cycles and probes -----------------------------------------------------------------------------

    def start_cycle(self, conn: Connection, row: dict[str, Any]) -> None:
        conn.execute(insert(cycles), [row])

    def set_cycle(self, conn: Connection, cycle_id: str, **values: Any) -> None:
        conn.execute(update(cycles).where(cycles.c.id == cycle_id).values(**values))

    def cycles(self, conn: Connection, tenant: str | None = None, statuses: Sequence[str] | None = None,
               limit: int | None = None) -> list[dict[str, Any]]:
        statement = select(cycles).order_by(cycles.c.started_at.desc())
        if tenant is not None:
            statement = statement.where(cycles.c.tenant == tenant)
        if statuses is not None:
            statement = statement.where(cycles.c.status.in_(list(statuses)))
        if limit is not None:
            statement = statement.limit(limit)
        return _dicts(conn.execute(statement))

    def add_probes(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        if rows:
            conn.execute(insert(probes), rows)

    def probes(self, conn: Connection, tenant: str) -> list[dict[str, Any]]:
        return _dicts(conn.execute(select(probes).where(probes.c.tenant == tenant).order_by(probes.c.id)))

    def clear_probes(self, conn: Connection, tenant: str) -> int:
        return int(conn.execute(delete(probes).where(probes.c.tenant == tenant)).rowcount)
