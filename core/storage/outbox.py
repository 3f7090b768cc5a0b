"""Applying the vector outbox: how a committed SQL write reaches the vector index.

Every event insert or delete adds an outbox row in the same SQL transaction. Draining reads the
pending rows, applies the *final* state of each event to Chroma (a row that no longer exists in
SQL is deleted from the index, whatever op was queued), then removes the rows it applied. A crash
at any point leaves rows behind that the next drain (at the latest: the next open) replays;
upserts and deletes are idempotent, so replaying twice is harmless.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from sqlalchemy import Connection, delete, func, select

from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import events, outbox
from deltacore.storage.vector_index import ChromaIndex

# Key of the PostgreSQL advisory lock that serialises drains of several processes: without it,
# one process could re-add a vector that another has just deleted.
_DRAIN_LOCK_KEY = 7305188032
_ANY_PENDING = select(outbox.c.id).limit(1)
# Exactly the fields the semantic router pre-filters Chroma on (``chroma_clauses``): each stored
# field costs every insert (~0.02 ms per event each), and Chroma's copy is never read back —
# SQL is the source of truth, and the tenant is the collection.
_META_COLUMNS = ("agent_id", "user_id", "session_id", "episode_id", "kind", "ts")


def vector_metadata(row: Any) -> dict[str, Any]:
    """Scope metadata kept beside each vector so Chroma can pre-filter (None is not allowed)."""
    return {name: getattr(row, name) for name in _META_COLUMNS if getattr(row, name) is not None}


class OutboxApplier:
    def __init__(self, sql: SQLStore, index: ChromaIndex, batch_size: int = 2000) -> None:
        self._sql = sql
        self._index = index
        self._batch_size = batch_size
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
            self._apply(conn, rows)
            row_ids = [row.id for row in rows]
            if self._sql.dialect.advisory_locks:
                conn.execute(delete(outbox).where(outbox.c.id.in_(row_ids)))
        if not self._sql.dialect.advisory_locks:
            # SQLite: only the owning process drains, so deleting in a separate short write
            # transaction is safe and keeps the write lock off the Chroma round trip.
            with self._sql.writer() as write_conn:
                write_conn.execute(delete(outbox).where(outbox.c.id.in_(row_ids)))
        return len(rows)

    def _apply(self, conn: Connection, rows: list[Any]) -> None:
        tenant_of = {row.event_id: row.tenant for row in rows}
        live: dict[str, Any] = {}
        ids = list(tenant_of)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            columns = [events.c.id, events.c.embedding, *(events.c[name] for name in _META_COLUMNS)]
            for row in conn.execute(select(*columns).where(events.c.id.in_(chunk))):
                if row.embedding is not None:
                    live[row.id] = row
        by_tenant: dict[str, tuple[list[Any], list[str]]] = {}
        for event_id, tenant in tenant_of.items():
            upserts, deletes = by_tenant.setdefault(tenant, ([], []))
            if event_id in live:
                upserts.append(live[event_id])
            else:
                deletes.append(event_id)
        for tenant, (upserts, deletes) in by_tenant.items():
            if upserts:
                vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in upserts])
                self._index.upsert(tenant, [row.id for row in upserts], vectors, [vector_metadata(r) for r in upserts])
            if deletes:
                self._index.delete(tenant, deletes)
