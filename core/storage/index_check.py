"""Checking the vector index against SQL when a store opens, and repairing a gap from SQL.

The index is derived data: every vector is also kept in SQL. If Chroma's files were deleted,
restored from an older backup or written by a crashed process, the index holds fewer (or other)
vectors than SQL, and semantic search silently misses memories. The check is cheap: one read of
the per-tenant row counters (``dc_tenants``) and one ``count()`` per collection; only a tenant
whose counts differ is compared id by id and repaired — missing vectors written from SQL,
vectors of deleted events removed — without dropping the collection, so other processes sharing
a Chroma server keep answering meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from deltacore.errors import DeltaCoreError
from deltacore.storage.outbox import _META_COLUMNS, vector_metadata
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import events, outbox, tenants
from deltacore.storage.vector_index import ChromaIndex
from sqlalchemy import func, select

_BATCH = 1000


@dataclass(frozen=True)
class IndexGap:
    """One tenant whose vector index did not match SQL when the store opened."""

    tenant: str
    sql_vectors: int
    index_vectors: int
    written: int = 0
    """Vectors written from SQL by the repair."""
    removed: int = 0
    """Vectors of events no longer in SQL removed by the repair."""
    error: str | None = None
    """Why the repair failed (``None``: repaired)."""

    @property
    def repaired(self) -> bool:
        return self.error is None


def find_gaps(sql: SQLStore, index: ChromaIndex) -> list[tuple[str, int, int]]:
    """(tenant, vectors in SQL, vectors in the index) of every tenant whose counts differ.

    A tenant with vector writes still pending in the outbox is skipped: the next drain brings
    it level, and counting it now would report a gap that is only a write in flight."""
    with sql.reader() as conn:
        counted = dict(conn.execute(select(tenants.c.tenant, tenants.c.events)).all())
        pending = set(conn.execute(select(outbox.c.tenant).distinct()).scalars())
    gaps = []
    for tenant in set(counted) | set(index.tenants()):
        if tenant in pending:
            continue
        expected, present = int(counted.get(tenant, 0)), index.count(tenant)
        if expected == present:
            continue
        # The counter is maintained per write; the exact count confirms before anything is repaired.
        with sql.reader() as conn:
            expected = int(
                conn.execute(
                    select(func.count()).where(
                        events.c.tenant == tenant, events.c.embedding.is_not(None)
                    )
                ).scalar_one()
            )
        if expected != present:
            gaps.append((tenant, expected, present))
    return gaps


def repair_gap(
    sql: SQLStore, index: ChromaIndex, tenant: str, sql_vectors: int, index_vectors: int
) -> IndexGap:
    """Make the tenant's collection hold exactly SQL's vectors; a failure is returned, not raised."""
    written = removed = 0
    try:
        present = set(index.ids(tenant))
        with sql.reader() as conn:
            stored = set(
                conn.execute(
                    select(events.c.id).where(
                        events.c.tenant == tenant, events.c.embedding.is_not(None)
                    )
                ).scalars()
            )
        missing, extra = sorted(stored - present), sorted(present - stored)
        columns = [
            events.c.id,
            events.c.embedding,
            *(events.c[name] for name in _META_COLUMNS),
        ]
        for start in range(0, len(missing), _BATCH):
            with sql.reader() as conn:
                rows = list(
                    conn.execute(
                        select(*columns).where(
                            events.c.id.in_(missing[start : start + _BATCH])
                        )
                    )
                )
            vectors = np.stack(
                [np.frombuffer(row.embedding, dtype=np.float32) for row in rows]
            )
            index.upsert(
                tenant,
                [row.id for row in rows],
                vectors,
                [vector_metadata(row) for row in rows],
            )
            written += len(rows)
        if extra:
            index.delete(tenant, extra)
            removed = len(extra)
    except DeltaCoreError as exc:
        return IndexGap(
            tenant, sql_vectors, index_vectors, written, removed, error=str(exc)
        )
    return IndexGap(tenant, sql_vectors, index_vectors, written, removed)
