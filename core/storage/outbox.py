"""Applying the vector outbox: how a committed SQL write reaches the vector index.

Every event insert or delete adds an outbox row in the same SQL transaction. Draining reads the
pending rows, applies the *final* state of each event to Chroma (a row that no longer exists in
SQL is deleted from the index, whatever op was queued), then removes the rows it applied. A crash
at any point leaves rows behind that the next drain (at the latest: the next open) replays;
upserts and deletes are idempotent, so replaying twice is harmless.

An event committed without its vector (background vector writes: the caller is acknowledged by
the SQL commit, not by the embedder) is embedded here, a batch per embedder call, through the
``embed`` callable the engine gives; its vector is written back to SQL with the outbox rows'
removal, so SQL stays the source the index is rebuilt from.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, bindparam, delete, func, select, update

from deltacore.errors import BackendError

from deltacore.storage.id_lists import in_list
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import events, outbox
from deltacore.storage.vector_index import ChromaIndex

# Key of the PostgreSQL advisory lock that serialises drains of several processes: without it,
# one process could re-add a vector that another has just deleted.
_DRAIN_LOCK_KEY = 7305188032
_ANY_PENDING = select(outbox.c.id).limit(1)
# The applied rows, whatever their number, in one statement compiled once (``id_lists``).
_DELETE_APPLIED = delete(outbox).where(in_list(outbox.c.id, "row_ids", integers=True))
# Exactly the fields the semantic router pre-filters Chroma on (``chroma_clauses``): each stored
# field costs every insert (~0.02 ms per event each), and Chroma's copy is never read back —
# SQL is the source of truth, and the tenant is the collection.
_META_COLUMNS = ("agent_id", "user_id", "session_id", "episode_id", "kind", "ts")


def vector_metadata(row: Any) -> dict[str, Any]:
    """Scope metadata kept beside each vector so Chroma can pre-filter (None is not allowed)."""
    return {name: getattr(row, name) for name in _META_COLUMNS if getattr(row, name) is not None}


# Vectors written back to SQL: one statement for the whole drain, run as one executemany (a
# statement built and compiled per event cost more than the rest of the drain's SQL together).
# ``_FILL_EMBEDDING`` keeps a vector another process wrote meanwhile (fill_missing_vectors).
_SET_EMBEDDING = update(events).where(events.c.id == bindparam("event_id")).values(embedding=bindparam("blob"))
_FILL_EMBEDDING = _SET_EMBEDDING.where(events.c.embedding.is_(None))

# What ``embed`` receives for each event that still needs its vector.
_TEXT_COLUMNS = (events.c.id, events.c.text, events.c.tool_name, events.c.tool_args)

Embed = Callable[[Sequence[Any]], np.ndarray]
"""Rows with ``text``, ``tool_name``, ``tool_args`` → one float32 vector per row."""


def fill_missing_vectors(sql: SQLStore, embed: Embed, batch_size: int = 500) -> int:
    """Embed pending events committed without a vector and store the vectors in SQL only (the
    outbox rows stay for the index's writer); returns how many were filled.

    A process that may not write an embedded index (another owns it) searches the vectors in SQL
    by brute force: without this, the owner's newest background writes would have no vector there
    until the owner's worker drained them. The owner's drain then indexes them without embedding
    again; both processes embedding one event write the same vector."""
    filled = 0
    while True:
        pending = outbox.join(events, events.c.id == outbox.c.event_id)
        with sql.reader() as conn:
            rows = conn.execute(
                select(*_TEXT_COLUMNS, events.c.tenant).select_from(pending).where(events.c.embedding.is_(None)).limit(batch_size)
            ).all()
        if not rows:
            return filled
        try:
            matrix = np.ascontiguousarray(embed(rows), dtype=np.float32)
        except Exception as exc:
            raise BackendError(f"embedding {len(rows)} pending vector writes failed ({type(exc).__name__}: {exc})") from exc
        with sql.writer() as conn:
            conn.execute(_FILL_EMBEDDING, [{"event_id": row.id, "blob": vector.tobytes()} for row, vector in zip(rows, matrix)])
            sql.bump_tenants(conn, {row.tenant: 0 for row in rows})
        filled += len(rows)
        if len(rows) < batch_size:
            return filled


class OutboxApplier:
    def __init__(self, sql: SQLStore, index: ChromaIndex, batch_size: int = 2000, embed: Embed | None = None) -> None:
        self._sql = sql
        self._index = index
        self._batch_size = batch_size
        self._embed = embed
        self._lock = threading.Lock()

    def has_pending(self) -> bool:
        with self._sql.reader() as conn:
            return conn.execute(_ANY_PENDING).first() is not None

    def drain(self) -> int:
        """Apply every pending outbox row; returns how many rows were applied."""
        # Every query drains first (read-your-writes across processes), and the outbox is
        # nearly always empty: one indexed probe outside a transaction says so cheaply.
        with self._sql.reader() as conn:
            if conn.execute(_ANY_PENDING).first() is None:
                return 0
        total = 0
        with self._lock:
            while True:
                applied = self._drain_batch()
                total += applied
                if applied < self._batch_size:
                    return total

    def _drain_batch(self) -> int:
        with self._sql.reader() as conn, conn.begin():
            if self._sql.dialect.advisory_locks:
                conn.execute(select(func.pg_advisory_xact_lock(_DRAIN_LOCK_KEY)))
            rows = conn.execute(
                select(outbox.c.id, outbox.c.tenant, outbox.c.event_id).order_by(outbox.c.id).limit(self._batch_size)
            ).all()
            if not rows:
                return 0
            filled = self._apply(conn, rows)
            row_ids = [row.id for row in rows]
            if self._sql.dialect.advisory_locks:
                self._store_vectors(conn, filled)
                conn.execute(_DELETE_APPLIED, {"row_ids": row_ids})
        if not self._sql.dialect.advisory_locks:
            # SQLite: only the owning process drains, so deleting in a separate short write
            # transaction is safe and keeps the write lock off the embedder and the Chroma round trip.
            with self._sql.writer() as write_conn:
                self._store_vectors(write_conn, filled)
                write_conn.execute(_DELETE_APPLIED, {"row_ids": row_ids})
        return len(rows)

    def _apply(self, conn: Connection, rows: list[Any]) -> dict[str, tuple[str, bytes]]:
        """Bring the index to the SQL state of ``rows``' events; returns the vectors computed
        here (event id → (tenant, float32 bytes)) for the caller to store in SQL."""
        tenant_of = {row.event_id: row.tenant for row in rows}
        live: dict[str, Any] = {}
        unembedded: list[str] = []
        ids = list(tenant_of)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            columns = [events.c.id, events.c.embedding, *(events.c[name] for name in _META_COLUMNS)]
            for row in conn.execute(select(*columns).where(events.c.id.in_(chunk))):
                live[row.id] = row
                if row.embedding is None:
                    unembedded.append(row.id)
        vectors = {event_id: np.frombuffer(row.embedding, dtype=np.float32) for event_id, row in live.items() if row.embedding is not None}
        filled: dict[str, tuple[str, bytes]] = {}
        if unembedded and self._embed is not None:
            for event_id, vector in self._embed_rows(conn, unembedded).items():
                vectors[event_id] = vector
                filled[event_id] = (tenant_of[event_id], vector.tobytes())
        by_tenant: dict[str, tuple[list[Any], list[str]]] = {}
        for event_id, tenant in tenant_of.items():
            upserts, deletes = by_tenant.setdefault(tenant, ([], []))
            if event_id in vectors:
                upserts.append(live[event_id])
            else:
                deletes.append(event_id)
        for tenant, (upserts, deletes) in by_tenant.items():
            if upserts:
                matrix = np.stack([vectors[row.id] for row in upserts])
                self._index.upsert(tenant, [row.id for row in upserts], matrix, [vector_metadata(r) for r in upserts])
            if deletes:
                self._index.delete(tenant, deletes)
        return filled

    def _embed_rows(self, conn: Connection, event_ids: list[str]) -> dict[str, np.ndarray]:
        assert self._embed is not None
        rows = []
        for start in range(0, len(event_ids), 500):
            rows.extend(conn.execute(select(*_TEXT_COLUMNS).where(events.c.id.in_(event_ids[start : start + 500]))))
        if not rows:
            return {}
        try:
            matrix = np.ascontiguousarray(self._embed(rows), dtype=np.float32)
        except Exception as exc:
            # The events stay committed and their outbox rows pending: the next drain retries.
            raise BackendError(
                f"embedding {len(rows)} pending vector writes failed ({type(exc).__name__}: {exc}); "
                "the events are stored and searchable by text, their vectors are retried"
            ) from exc
        if matrix.shape[0] != len(rows):
            raise BackendError(f"the embedder returned {matrix.shape[0]} vectors for {len(rows)} texts; retried later")
        return {row.id: matrix[i] for i, row in enumerate(rows)}

    def _store_vectors(self, conn: Connection, filled: dict[str, tuple[str, bytes]]) -> None:
        if not filled:
            return
        conn.execute(_SET_EMBEDDING, [{"event_id": event_id, "blob": blob} for event_id, (_tenant, blob) in filled.items()])
        # Cached vectors of these tenants (the hot tier) are keyed on the tenant's counter.
        self._sql.bump_tenants(conn, {tenant: 0 for tenant, _blob in filled.values()})
