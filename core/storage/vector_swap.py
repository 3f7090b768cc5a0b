"""Rebuilding a tenant's vector collection without a gap: fill a new collection from SQL, point
the store at it, then delete the old one.

A forget must rebuild the collection (``collection.delete`` leaves vectors in Chroma's files),
and dropping it first and refilling it under the same name left other processes querying a
collection that was missing or half filled: measured on a Chroma 1.5.9 server at 10,000
memories, 328 of 687 queries of a second process failed ("Nothing found on disk") during the
forgets. Here the old collection answers until the new one is full and has answered a query;
the pointer (``dc_store_meta``, read by every process of the store) then names the new one, and
the old one is deleted, so a process whose cached handle goes stale reopens by the pointer
(``ChromaIndex`` retries once on a missing collection). Vectors written while the new one was
filled went to the old one; they are copied from SQL after the swap.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import delete, func, insert, select

from deltacore.storage.outbox import _META_COLUMNS, vector_metadata
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import events, store_meta
from deltacore.storage.vector_index import ChromaIndex, generation_name

__all__ = ["CollectionPointers", "SwapReport", "rebuild_by_swap"]

_KEY = "vector_collection:"


class CollectionPointers:
    """tenant → the name of its current Chroma collection, in ``dc_store_meta``."""

    def __init__(self, sql: SQLStore) -> None:
        self._sql = sql

    @staticmethod
    def _key(tenant: str) -> str:
        return _KEY + hashlib.sha1(tenant.encode()).hexdigest()[:24]

    def get(self, tenant: str) -> str | None:
        with self._sql.reader() as conn:
            return conn.execute(select(store_meta.c.value).where(store_meta.c.key == self._key(tenant))).scalar_one_or_none()

    def set(self, tenant: str, name: str) -> None:
        with self._sql.writer() as conn:
            conn.execute(delete(store_meta).where(store_meta.c.key == self._key(tenant)))
            conn.execute(insert(store_meta).values(key=self._key(tenant), value=name))


@dataclass
class SwapReport:
    """What one rebuild did, for the certificate."""

    name: str
    written: int
    caught_up: int = 0
    dropped: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)
    """The tenant's collections the server lists after the swap (only ``name`` when it worked)."""
    ready_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.remaining == [self.name]


def rebuild_by_swap(sql: SQLStore, index: ChromaIndex, tenant: str, batch_size: int = 4000, ready_timeout: float = 60.0) -> SwapReport:
    """Fill a new collection with the tenant's live vectors, make it current, delete the others."""
    if index.names is None:
        raise ValueError("index.names: the swap needs the store's collection pointer (CollectionPointers)")
    before = index.names_of(tenant)
    name = generation_name(index.prefix, tenant)
    with sql.reader() as conn:
        high = conn.execute(select(func.max(events.c.seq)).where(events.c.tenant == tenant)).scalar() or 0
    collection = index.open_named(tenant, name)
    written, probe = _fill(sql, collection, tenant, batch_size, upto=high)
    started = time.perf_counter()
    if probe is not None:
        _wait_queryable(collection, probe, ready_timeout)
    report = SwapReport(name=name, written=written, ready_seconds=round(time.perf_counter() - started, 3))
    index.names.set(tenant, name)
    index.make_current(tenant, collection)
    for old in before:
        if old != name:
            index.drop_named(old)
            report.dropped.append(old)
    # After the old one is gone, so a write that still went there is retried on the new one.
    report.caught_up, _ = _fill(sql, collection, tenant, batch_size, after=high)
    report.remaining = index.names_of(tenant)
    return report


def _fill(sql: SQLStore, collection: Any, tenant: str, batch_size: int, upto: int | None = None, after: int | None = None) -> tuple[int, np.ndarray | None]:
    columns = [events.c.id, events.c.embedding, *(events.c[name] for name in _META_COLUMNS)]
    condition = [events.c.tenant == tenant, events.c.embedding.is_not(None)]
    if upto is not None:
        condition.append(events.c.seq <= upto)
    if after is not None:
        condition.append(events.c.seq > after)
    written, probe = 0, None
    with sql.reader() as conn:
        statement = select(*columns).where(*condition).order_by(events.c.seq).execution_options(yield_per=batch_size)
        for rows in conn.execute(statement).partitions(batch_size):
            vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in rows])
            collection.upsert(ids=[row.id for row in rows], embeddings=vectors, metadatas=[vector_metadata(row) for row in rows])
            written += len(rows)
            probe = vectors[0] if probe is None else probe
    return written, probe


def _wait_queryable(collection: Any, vector: np.ndarray, timeout: float) -> None:
    """Until the new collection answers a query: a Chroma server may still be writing it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            collection.query(query_embeddings=[vector], n_results=1, include=["distances"])
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
