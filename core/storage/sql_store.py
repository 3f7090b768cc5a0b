"""The SQL source of truth: statements over the tables, run on a SQLAlchemy engine.

Every write of a batch (events, deltas, provenance links, entity index, full-text index via the
database itself, and the vector outbox) happens in one transaction: a batch is stored whole or
not at all, and a crash after the commit loses nothing because the outbox is replayed.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, ColumnElement, Engine, bindparam, delete, func, insert, literal, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite

from deltacore.config import DeltaCoreConfig
from deltacore.errors import EmbedderMismatchError
from deltacore.storage.engine_factory import create_sql_engine
from deltacore.storage.errors import translate_backend_errors
from deltacore.storage.filters import entity_filter
from deltacore.storage.fulltext import TermStatistics, about_text
from deltacore.storage.id_lists import in_list
from deltacore.storage.migrations import run_migrations
from deltacore.storage.tables import (
    delta_links,
    deltas,
    event_entities,
    events,
    mentions,
    outbox,
    retrievals,
    review_queue,
    store_meta,
    system_events,
    tenants,
    tool_schemas,
)


# Statements the read path runs on every query, built once: constructing a SQLAlchemy statement
# (and a recursive CTE above all) costs more Python time than SQLite takes to run it on a
# handful of ids. ``ids`` is one parameter holding the whole list (``in_list``), so one compiled
# form serves every list. Their results are read with ``.all()``: iterating a result fetches row by
# row through the driver (~0.3 µs more per row, on the ~900 rows a query reads at 100k).
_EVENT_COLUMNS = [c for c in events.c if c.name != "embedding"]
_DELTAS_OF_EVENTS = select(deltas).where(in_list(deltas.c.event_id))


def _ancestry_statement() -> Any:
    start = select(delta_links.c.child_id, delta_links.c.parent_id, literal(1).label("level")).where(
        in_list(delta_links.c.child_id)
    )
    walk = start.cte("walk", recursive=True)
    step = select(delta_links.c.child_id, delta_links.c.parent_id, (walk.c.level + 1).label("level")).where(
        delta_links.c.child_id == walk.c.parent_id, walk.c.level < bindparam("depth")
    )
    walk = walk.union(step)
    return select(walk.c.child_id, walk.c.parent_id).distinct()


_ANCESTRY = _ancestry_statement()
_VECTORS_BY_SEQ = select(events.c.seq, events.c.id, events.c.embedding).where(in_list(events.c.seq, "seqs", integers=True))
_TRUST_SIGNALS = (
    select(events.c.id, events.c.namespace, deltas.c.conflict_flags)
    .join(deltas, deltas.c.event_id == events.c.id, isouter=True)
    .where(in_list(events.c.id))
)
_UTILITIES = select(deltas.c.event_id, deltas.c.utility, deltas.c.utility_ts).where(in_list(deltas.c.event_id))


def _linked_statements() -> tuple[Any, Any]:
    """(seed event, event of a causal parent) and (seed event, event of a causal child)."""
    child, parent = deltas.alias("child"), deltas.alias("parent")
    statements = []
    for source, target, join_on in (
        (child, parent, (delta_links.c.child_id == child.c.id, delta_links.c.parent_id == parent.c.id)),
        (parent, child, (delta_links.c.parent_id == parent.c.id, delta_links.c.child_id == child.c.id)),
    ):
        statements.append(
            select(source.c.event_id.label("seed"), target.c.event_id.label("other"), events.c.seq)
            .select_from(delta_links.join(source, join_on[0]).join(target, join_on[1]))
            .join(events, events.c.id == target.c.event_id)
            .where(in_list(source.c.event_id))
        )
    return statements[0], statements[1]


_LINKED = _linked_statements()

class SQLStore:
    """Reads and writes the SQL tables. Knows nothing about embeddings or retrieval."""

    def __init__(self, config: DeltaCoreConfig) -> None:
        self.config = config
        with translate_backend_errors("opening the database"):
            self.engine = create_sql_engine(config)
        self.term_statistics = TermStatistics()
        self._side_engine: Engine | None = None
        self._side_lock = threading.Lock()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def setup(self) -> int:
        """Create or migrate the schema (idempotent, safe under concurrency)."""
        with translate_backend_errors("setting up the database"):
            version = run_migrations(self.engine)
        self.refresh_statistics()
        return version

    # SQLite plans a query without statistics as if "tenant = ?" matched ~10 rows, so a fetch by
    # id within a tenant scans the whole tenant. Statistics are refreshed as the store grows.
    _ANALYZE_EVERY = 2000

    def refresh_statistics(self) -> None:
        self._inserted_since_analyze = 0
        if self.dialect != "sqlite":
            return  # PostgreSQL's autovacuum keeps its own statistics
        with translate_backend_errors("refreshing statistics"), self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA analysis_limit=1000")
            conn.exec_driver_sql("ANALYZE")
            conn.commit()

    def note_inserted(self, rows: int) -> None:
        self._inserted_since_analyze = getattr(self, "_inserted_since_analyze", 0) + rows
        if self._inserted_since_analyze >= self._ANALYZE_EVERY:
            self.refresh_statistics()

    def close(self) -> None:
        self.engine.dispose()
        if self._side_engine is not None:
            self._side_engine.dispose()
            self._side_engine = None

    @contextlib.contextmanager
    def reader(self) -> Iterator[Connection]:
        with translate_backend_errors("reading"), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def side_reader(self) -> Iterator[Connection]:
        """A read connection from a pool of its own, for work a query hands to another thread.

        The query's thread holds a connection of the main pool while it waits for that work; if
        the helpers drew from the same pool, many simultaneous queries could hold every
        connection and wait for helpers that wait for a connection.
        """
        with self._side_lock:
            if self._side_engine is None:
                with translate_backend_errors("opening the database"):
                    self._side_engine = create_sql_engine(self.config)
            engine = self._side_engine
        with translate_backend_errors("reading"), engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def writer(self) -> Iterator[Connection]:
        """A write transaction; on SQLite it takes the write lock up front (BEGIN IMMEDIATE)."""
        with translate_backend_errors("writing"), self.engine.connect() as conn:
            conn = conn.execution_options(dc_write=True)
            with conn.begin():
                yield conn

    # ---- store identity -------------------------------------------------------------------

    def check_embedder(self, name: str, dimension: int) -> None:
        """Refuse to mix vectors of two different embedders in one store."""
        with self.writer() as conn:
            if self.dialect == "postgresql":
                # Two processes' first writes must not both find no embedder and both insert it.
                conn.execute(select(func.pg_advisory_xact_lock(7305188033)))
            rows = dict(conn.execute(select(store_meta.c.key, store_meta.c.value)).all())
            stored_name, stored_dim = rows.get("embedder"), rows.get("embedding_dimension")
            if stored_name is None:
                conn.execute(
                    insert(store_meta),
                    [{"key": "embedder", "value": name}, {"key": "embedding_dimension", "value": str(dimension)}],
                )
                return
        if stored_name != name or int(stored_dim or 0) != dimension:
            raise EmbedderMismatchError(stored_name, int(stored_dim or 0), name, dimension)

    def stored_embedder(self) -> str | None:
        """Name of the embedder this store's vectors come from (None before the first write)."""
        with self.reader() as conn:
            return conn.execute(select(store_meta.c.value).where(store_meta.c.key == "embedder")).scalar_one_or_none()

    def set_embedder(self, name: str, dimension: int) -> None:
        with self.writer() as conn:
            conn.execute(delete(store_meta).where(store_meta.c.key.in_(["embedder", "embedding_dimension"])))
            conn.execute(
                insert(store_meta),
                [{"key": "embedder", "value": name}, {"key": "embedding_dimension", "value": str(dimension)}],
            )

    # ---- write path ---------------------------------------------------------------------------

    def existing_event_ids(self, conn: Connection, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _chunks(list(ids), 500):
            found.update(conn.execute(select(events.c.id).where(events.c.id.in_(chunk))).scalars())
        return found

    def existing_hashes(self, conn: Connection, tenant: str, hashes: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in _chunks(list(hashes), 500):
            statement = select(events.c.content_hash, events.c.id).where(
                events.c.tenant == tenant, events.c.content_hash.in_(chunk)
            )
            for content_hash, event_id in conn.execute(statement):
                found.setdefault(content_hash, event_id)
        return found

    def delta_ids_for_events(self, conn: Connection, event_ids: Iterable[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in _chunks(list(event_ids), 500):
            statement = select(deltas.c.event_id, deltas.c.id).where(deltas.c.event_id.in_(chunk))
            found.update({event_id: delta_id for event_id, delta_id in conn.execute(statement)})
        return found

    def episode_tails(self, conn: Connection, tenant: str, episode_ids: Iterable[str]) -> dict[str, tuple[str, float]]:
        """The latest delta (id, ts) already stored in each episode."""
        tails: dict[str, tuple[str, float]] = {}
        for episode_id in set(episode_ids):
            row = conn.execute(
                select(deltas.c.id, deltas.c.ts)
                .where(deltas.c.tenant == tenant, deltas.c.episode_id == episode_id)
                .order_by(deltas.c.ts.desc(), deltas.c.id.desc())
                .limit(1)
            ).first()
            if row is not None:
                tails[episode_id] = (row.id, row.ts)
        return tails

    def insert_batch(
        self,
        conn: Connection,
        event_rows: list[dict[str, Any]],
        delta_rows: list[dict[str, Any]],
        link_rows: list[dict[str, Any]],
        entity_rows: list[dict[str, Any]],
        mention_rows: list[dict[str, Any]] = (),  # type: ignore[assignment]
    ) -> set[str]:
        """Insert a batch; events whose id already exists (a concurrent writer) are skipped.

        Returns the ids actually inserted; only their deltas, links and outbox rows are written.
        """
        if not event_rows:
            return set()
        dialect_insert = sqlite.insert if self.dialect == "sqlite" else postgresql.insert
        statement = dialect_insert(events).on_conflict_do_nothing(index_elements=["id"]).returning(events.c.id)
        if self.dialect == "sqlite":
            # Only SQLite's full-text index reads ``about``; PostgreSQL filters in SQL instead.
            names: dict[str, list[str]] = {}
            for row in entity_rows:
                names.setdefault(row["event_id"], []).append(row["entity"])
            for row in mention_rows:
                names.setdefault(row["event_id"], []).append(row["name"])
            event_rows = [
                {**row, "about": about_text(row["tenant"], names.get(row["id"], ()), bool(row.get("has_time")))}
                for row in event_rows
            ]
        inserted = set(conn.execute(statement, event_rows).scalars())
        delta_rows = [row for row in delta_rows if row["event_id"] in inserted]
        kept_deltas = {row["id"] for row in delta_rows}
        link_rows = [row for row in link_rows if row["child_id"] in kept_deltas]
        entity_rows = [row for row in entity_rows if row["event_id"] in inserted]
        mention_rows = [row for row in mention_rows if row["event_id"] in inserted]
        if delta_rows:
            conn.execute(insert(deltas), delta_rows)
        if link_rows:
            conn.execute(insert(delta_links), link_rows)
        if entity_rows:
            conn.execute(insert(event_entities), entity_rows)
        if mention_rows:
            conn.execute(insert(mentions), mention_rows)
        now = time.time()
        outbox_rows = [
            {"tenant": row["tenant"], "event_id": row["id"], "op": "upsert", "created_at": now}
            for row in event_rows
            if row["id"] in inserted
        ]
        if outbox_rows:
            conn.execute(insert(outbox), outbox_rows)
            changes: dict[str, int] = {}
            for row in outbox_rows:
                changes[row["tenant"]] = changes.get(row["tenant"], 0) + 1
            self._bump_tenants(conn, changes)
        return inserted

    def record_tool_schemas(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        """Remember each (tool, schema hash) seen, with the schema itself; refresh last_seen."""
        if not rows:
            return
        dialect_insert = sqlite.insert if self.dialect == "sqlite" else postgresql.insert
        statement = dialect_insert(tool_schemas)
        statement = statement.on_conflict_do_update(
            index_elements=["tenant", "tool_name", "schema_hash"],
            set_={"last_seen": statement.excluded.last_seen},
        )
        conn.execute(statement, rows)

    def tool_schemas(self, tenant: str, tool_name: str | None = None) -> list[dict[str, Any]]:
        statement = select(tool_schemas).where(tool_schemas.c.tenant == tenant).order_by(
            tool_schemas.c.tool_name, tool_schemas.c.first_seen
        )
        if tool_name is not None:
            statement = statement.where(tool_schemas.c.tool_name == tool_name)
        with self.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def record_retrievals(self, conn: Connection, rows: list[dict[str, Any]]) -> int:
        """Log which stored events were handed to an agent (unknown ids are skipped)."""
        present = self.existing_event_ids(conn, [row["event_id"] for row in rows])
        rows = [row for row in rows if row["event_id"] in present]
        if rows:
            conn.execute(insert(retrievals), rows)
        return len(rows)

    def retrievals(self, tenant: str, episode_id: str | None = None) -> list[dict[str, Any]]:
        statement = select(retrievals).where(retrievals.c.tenant == tenant).order_by(retrievals.c.id)
        if episode_id is not None:
            statement = statement.where(retrievals.c.episode_id == episode_id)
        with self.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def log_system_event(self, conn: Connection, tenant: str, kind: str, payload: dict[str, Any]) -> None:
        conn.execute(insert(system_events).values(ts=time.time(), tenant=tenant, kind=kind, payload=payload))

    def system_events(self, kind: str | None = None, tenant: str | None = None) -> list[dict[str, Any]]:
        statement = select(system_events).order_by(system_events.c.id)
        if kind is not None:
            statement = statement.where(system_events.c.kind == kind)
        if tenant is not None:
            statement = statement.where(system_events.c.tenant == tenant)
        with self.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    # ---- read path ----------------------------------------------------------------------------

    def fetch_events(
        self, conn: Connection, ids: Sequence[str], filters: Sequence[ColumnElement[bool]] = ()
    ) -> dict[str, Any]:
        """Rows of ``ids`` that pass ``filters``, by id (embedding column left out)."""
        if not ids:
            return {}
        statement = select(*_EVENT_COLUMNS).where(in_list(events.c.id), *filters)
        return {row.id: row for row in conn.execute(statement, {"ids": list(ids)}).all()}

    def deltas_for_events(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        for row in conn.execute(_DELTAS_OF_EVENTS, {"ids": list(event_ids)}).all():
            found.setdefault(row.event_id, []).append(row)
        return found

    def fetch_deltas(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for chunk in _chunks(list(delta_ids), 500):
            found.update({row.id: row for row in conn.execute(select(deltas).where(deltas.c.id.in_(chunk)))})
        return found

    def parents_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._links(conn, delta_ids, delta_links.c.child_id, delta_links.c.parent_id)

    def ancestry(self, conn: Connection, delta_ids: Sequence[str], depth: int) -> dict[str, list[str]]:
        """child -> parents for ``delta_ids`` and their ancestors up to ``depth`` links away.

        One recursive query instead of one round trip per level; a delta met twice is walked once
        (``UNION`` drops repeated rows), so a cycle cannot loop.
        """
        found: dict[str, list[str]] = {delta_id: [] for delta_id in delta_ids}
        if not delta_ids or depth <= 0:
            return found
        for child, parent in conn.execute(_ANCESTRY, {"ids": list(delta_ids), "depth": depth}).all():
            parents = found.setdefault(child, [])
            if parent not in parents:
                parents.append(parent)
        return found

    def children_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._links(conn, delta_ids, delta_links.c.parent_id, delta_links.c.child_id)

    def _links(self, conn: Connection, delta_ids: Sequence[str], near: Any, far: Any) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for chunk in _chunks(list(delta_ids), 500):
            for node, other in conn.execute(select(near, far).where(near.in_(chunk))):
                found.setdefault(node, []).append(other)
        return found

    def recent_event_ids(
        self, conn: Connection, filters: Sequence[ColumnElement[bool]], limit: int
    ) -> list[tuple[str, float]]:
        statement = select(events.c.id, events.c.ts).where(*filters).order_by(events.c.ts.desc(), events.c.seq.desc())
        return [(row.id, float(row.ts)) for row in conn.execute(statement.limit(limit))]

    def scan_embeddings(
        self, conn: Connection, filters: Sequence[ColumnElement[bool]], batch: int = 5000
    ) -> Iterator[tuple[list[str], np.ndarray]]:
        """Stream (ids, vectors) in scope: the brute-force path and ``reindex()`` use it."""
        statement = (
            select(events.c.id, events.c.embedding)
            .where(events.c.embedding.is_not(None), *filters)
            .order_by(events.c.seq)
            .execution_options(yield_per=batch)
        )
        result = conn.execute(statement)
        for partition in result.partitions(batch):
            ids = [row.id for row in partition]
            vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in partition])
            yield ids, vectors

    def list_events(
        self, conn: Connection, filters: Sequence[ColumnElement[bool]], after: str | None, limit: int
    ) -> list[Any]:
        """Rows matching ``filters`` oldest first, starting after the event ``after`` (keyset paging)."""
        columns = [c for c in events.c if c.name != "embedding"]
        statement = select(*columns).where(*filters)
        if after is not None:
            anchor = conn.execute(select(events.c.ts, events.c.seq).where(events.c.id == after)).first()
            if anchor is not None:
                statement = statement.where(tuple_(events.c.ts, events.c.seq) > tuple_(literal(anchor.ts), literal(anchor.seq)))
        return list(conn.execute(statement.order_by(events.c.ts, events.c.seq).limit(limit)))

    def tenant_signature(self, conn: Connection, tenant: str) -> tuple[int, int]:
        """(rows, change counter) of a tenant: changes with every insert and delete, from any process."""
        row = conn.execute(select(tenants.c.events, tenants.c.version).where(tenants.c.tenant == tenant)).first()
        return (int(row.events), int(row.version)) if row else (0, 0)

    def bump_version(self, conn: Connection, tenant: str) -> None:
        """Mark a tenant changed without adding rows: every cache keyed on its signature is stale."""
        self._bump_tenants(conn, {tenant: 0})

    def _bump_tenants(self, conn: Connection, changes: dict[str, int]) -> None:
        dialect_insert = sqlite.insert if self.dialect == "sqlite" else postgresql.insert
        for tenant, delta in changes.items():
            statement = dialect_insert(tenants).values(tenant=tenant, events=max(delta, 0), version=1)
            statement = statement.on_conflict_do_update(
                index_elements=["tenant"],
                set_={"events": tenants.c.events + delta, "version": tenants.c.version + 1},
            )
            conn.execute(statement)

    def tenant_vectors(self, conn: Connection, tenant: str, columns: Sequence[str]) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        """Every vector of a tenant with the metadata the hot tier filters on."""
        rows = conn.execute(
            select(events.c.id, events.c.embedding, *(events.c[name] for name in columns))
            .where(events.c.tenant == tenant, events.c.embedding.is_not(None))
            # In row order on every backend: equally similar memories then rank the same way.
            .order_by(events.c.seq)
        ).all()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32), []
        vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in rows])
        return [row.id for row in rows], vectors, [{name: getattr(row, name) for name in columns} for row in rows]

    def embeddings_where(
        self, conn: Connection, filters: Sequence[ColumnElement[bool]], cap: int
    ) -> tuple[list[str], np.ndarray]:
        """Ids and vectors of the (at most ``cap`` most recent) events matching ``filters``.

        Two steps: choose the rows by time carrying only their row numbers, then read those rows'
        vectors. Sorting the vectors themselves (1.5 kB each) along with thousands of candidate
        rows made this the slowest statement of an entity query.
        """
        chosen = conn.execute(
            select(events.c.seq)
            .where(events.c.embedding.is_not(None), *filters)
            .order_by(events.c.ts.desc(), events.c.seq.desc())
            .limit(cap)
        ).scalars().all()
        return self.embeddings_of(conn, chosen, ())

    def embeddings_of(
        self, conn: Connection, seqs: Sequence[int], filters: Sequence[ColumnElement[bool]]
    ) -> tuple[list[str], np.ndarray]:
        """Ids and vectors of the rows ``seqs`` that pass ``filters``, in the order of ``seqs``.

        One statement reads and tests each row: testing first and reading the vectors after
        touched every row twice (~5.7 ms against ~2.9 for 1,500 rows of a 100k store).
        """
        if not seqs:
            return [], np.zeros((0, 0), dtype=np.float32)
        statement = _VECTORS_BY_SEQ.where(events.c.embedding.is_not(None), *filters)
        rows = {seq: (event_id, blob) for seq, event_id, blob in conn.execute(statement, {"seqs": list(seqs)}).all()}
        return _ordered_vectors(rows, seqs)

    def linked_events(
        self, conn: Connection, event_ids: Sequence[str], filters: Sequence[ColumnElement[bool]]
    ) -> dict[str, list[str]]:
        """For each event, the events of its delta's causal parents and children (that pass ``filters``)."""
        found: dict[str, list[str]] = {}
        links = [(seed, other, seq) for statement in _LINKED for seed, other, seq in conn.execute(statement, {"ids": list(event_ids)}).all()]
        if not links:
            return found
        # The filters are checked on the linked rows by row number: joined into the statement
        # above they would make it a new statement (and a new compiled form) for every query.
        passing = self.seqs_passing(conn, [seq for _, _, seq in links], filters)
        for seed, other, seq in links:
            if seq in passing:
                found.setdefault(seed, []).append(other)
        return found

    def trust_signals(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, tuple[str, set[str]]]:
        """(namespace, conflict flags of its deltas) per event."""
        found: dict[str, tuple[str, set[str]]] = {}
        for event_id, namespace, flags in conn.execute(_TRUST_SIGNALS, {"ids": list(event_ids)}).all():
            found.setdefault(event_id, (namespace, set()))[1].update(flags or ())
        return found

    def utilities(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
        """(utility, set at) of each event's best delta."""
        found: dict[str, tuple[float, float]] = {}
        for event_id, utility, set_at in conn.execute(_UTILITIES, {"ids": list(event_ids)}).all():
            if event_id not in found or utility > found[event_id][0]:
                found[event_id] = (utility, set_at)
        return found

    def ids_passing(self, conn: Connection, ids: Sequence[str], filters: Sequence[ColumnElement[bool]]) -> set[str]:
        """Those of ``ids`` whose rows pass ``filters``."""
        if not ids:
            return set()
        # Look the rows up by id first: given hundreds of ids next to "tenant = ?", SQLite's
        # planner prefers to scan the tenant's index, ~100x slower than the id lookups.
        by_id = select(events.c.seq).where(in_list(events.c.id)).scalar_subquery()
        return set(conn.execute(select(events.c.id).where(events.c.seq.in_(by_id), *filters), {"ids": list(ids)}).scalars())

    def seqs_passing(self, conn: Connection, seqs: Sequence[int], filters: Sequence[ColumnElement[bool]]) -> set[int]:
        """Those of the row numbers ``seqs`` whose rows pass ``filters``."""
        if not seqs:
            return set()
        statement = select(events.c.seq).where(in_list(events.c.seq, "seqs", integers=True), *filters)
        return set(conn.execute(statement, {"seqs": list(dict.fromkeys(seqs))}).scalars())

    def event_ids_where(self, conn: Connection, filters: Sequence[ColumnElement[bool]]) -> list[str]:
        return list(conn.execute(select(events.c.id).where(*filters)).scalars())

    # ---- delete -------------------------------------------------------------------------------

    def select_event_ids(
        self,
        conn: Connection,
        tenant: str,
        event_ids: Sequence[str] | None,
        *,
        entity: str | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> list[str]:
        """Ids in ``tenant`` matching every given selector (ids, entity, scope)."""
        filters: list[ColumnElement[bool]] = [events.c.tenant == tenant]
        if entity is not None:
            filters.append(entity_filter(tenant, entity))
        for name, value in (("agent_id", agent_id), ("user_id", user_id), ("session_id", session_id)):
            if value is not None:
                filters.append(events.c[name] == value)
        if event_ids is None:
            return self.event_ids_where(conn, filters)
        found: list[str] = []
        for chunk in _chunks(list(event_ids), 500):
            found.extend(self.event_ids_where(conn, [*filters, events.c.id.in_(chunk)]))
        return found

    def delete_events(self, conn: Connection, ids: Sequence[str]) -> tuple[list[str], int, int]:
        """Delete events with their deltas, links, entities and full-text entries; queue the
        vector deletes in the same transaction. Returns (deleted ids, deltas, links)."""
        present = self.fetch_events(conn, ids)
        if not present:
            return [], 0, 0
        id_list = list(present)
        delta_ids: list[str] = []
        for chunk in _chunks(id_list, 500):
            delta_ids.extend(conn.execute(select(deltas.c.id).where(deltas.c.event_id.in_(chunk))).scalars())
        links = 0
        for chunk in _chunks(delta_ids, 500):
            links += conn.execute(
                delete(delta_links).where(
                    delta_links.c.child_id.in_(chunk) | delta_links.c.parent_id.in_(chunk)
                )
            ).rowcount
            conn.execute(delete(review_queue).where(review_queue.c.delta_id.in_(chunk)))
            conn.execute(delete(deltas).where(deltas.c.id.in_(chunk)))
        now = time.time()
        for chunk in _chunks(id_list, 500):
            conn.execute(delete(event_entities).where(event_entities.c.event_id.in_(chunk)))
            conn.execute(delete(retrievals).where(retrievals.c.event_id.in_(chunk)))
            conn.execute(delete(mentions).where(mentions.c.event_id.in_(chunk)))
            conn.execute(delete(events).where(events.c.id.in_(chunk)))
        conn.execute(
            insert(outbox),
            [{"tenant": present[i].tenant, "event_id": i, "op": "delete", "created_at": now} for i in id_list],
        )
        changes: dict[str, int] = {}
        for event_id in id_list:
            changes[present[event_id].tenant] = changes.get(present[event_id].tenant, 0) - 1
        self._bump_tenants(conn, changes)
        return id_list, len(delta_ids), links

    # ---- maintenance --------------------------------------------------------------------------

    def update_embeddings(self, conn: Connection, tenant: str, pairs: list[tuple[str, bytes]]) -> None:
        for event_id, blob in pairs:
            conn.execute(update(events).where(events.c.id == event_id).values(embedding=blob))
        self._bump_tenants(conn, {tenant: 0})  # cached vectors of this tenant are now stale

    def counts(self, tenant: str | None = None) -> dict[str, Any]:
        with self.reader() as conn:
            def count(table: Any) -> int:
                statement = select(func.count()).select_from(table)
                if tenant is not None and "tenant" in table.c:
                    statement = statement.where(table.c.tenant == tenant)
                return int(conn.execute(statement).scalar_one())

            tenants = list(conn.execute(select(events.c.tenant).distinct().order_by(events.c.tenant)).scalars())
            links_statement = select(func.count()).select_from(delta_links)
            if tenant is not None:
                links_statement = links_statement.join(deltas, deltas.c.id == delta_links.c.child_id).where(
                    deltas.c.tenant == tenant
                )
            return {
                "events": count(events),
                "deltas": count(deltas),
                "links": int(conn.execute(links_statement).scalar_one()),
                "outbox_pending": count(outbox),
                "tenants": tenants,
            }


def _ordered_vectors(rows: dict[int, tuple[str, bytes]], seqs: Sequence[int]) -> tuple[list[str], np.ndarray]:
    """``rows`` (seq -> id, vector bytes) as ids and one matrix, in the order of ``seqs``."""
    ordered = [rows[seq] for seq in dict.fromkeys(seqs) if seq in rows]
    if not ordered:
        return [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.frombuffer(b"".join(blob for _, blob in ordered), dtype=np.float32).reshape(len(ordered), -1)
    return [event_id for event_id, _ in ordered], matrix


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
