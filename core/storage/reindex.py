"""Rebuilding the vector index from SQL, and re-embedding after a model change."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sqlalchemy import func, select

from deltacore.storage.outbox import _META_COLUMNS, vector_metadata
from deltacore.storage.records import event_from_row
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import events
from deltacore.storage.vector_index import ChromaIndex


Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: called after each batch (``"reembed"``, ``"index"``)."""


def _total(sql: SQLStore, tenants: Sequence[str], with_vectors: bool) -> int:
    condition = [events.c.tenant.in_(list(tenants))]
    if with_vectors:
        condition.append(events.c.embedding.is_not(None))
    with sql.reader() as conn:
        return int(conn.execute(select(func.count()).select_from(events).where(*condition)).scalar_one())


def rebuild_index(
    sql: SQLStore, index: ChromaIndex, tenants: Sequence[str], batch_size: int = 512, progress: Progress | None = None
) -> int:
    """Drop each tenant's collection and write it again from the vectors kept in SQL.

    Rebuilding (rather than deleting ids) is also what truly erases deleted vectors from
    Chroma's files. Returns the number of vectors written.
    """
    written = 0
    total = _total(sql, tenants, with_vectors=True) if progress else 0
    columns = [events.c.id, events.c.embedding, *(events.c[name] for name in _META_COLUMNS)]
    for tenant in tenants:
        index.drop(tenant)
        with sql.reader() as conn:
            statement = (
                select(*columns)
                .where(events.c.tenant == tenant, events.c.embedding.is_not(None))
                .order_by(events.c.seq)
                .execution_options(yield_per=batch_size)
            )
            for rows in conn.execute(statement).partitions(batch_size):
                vectors = np.stack([np.frombuffer(row.embedding, dtype=np.float32) for row in rows])
                index.upsert(tenant, [row.id for row in rows], vectors, [vector_metadata(row) for row in rows])
                written += len(rows)
                if progress:
                    progress("index", written, total)
    return written


def reembed(
    sql: SQLStore,
    embed: Callable[[list[str]], np.ndarray],
    text_of: Callable[..., str],
    tenants: Sequence[str],
    batch_size: int = 256,
    progress: Progress | None = None,
) -> int:
    """Recompute every stored vector of ``tenants`` with ``embed``; returns how many."""
    done = 0
    total = _total(sql, tenants, with_vectors=False) if progress else 0
    columns = [c for c in events.c if c.name != "embedding"]
    for tenant in tenants:
        with sql.reader() as conn:
            ids = list(conn.execute(select(events.c.id).where(events.c.tenant == tenant).order_by(events.c.seq)).scalars())
        for start in range(0, len(ids), batch_size):
            with sql.reader() as conn:
                rows = list(conn.execute(select(*columns).where(events.c.id.in_(ids[start : start + batch_size]))))
            vectors = embed([text_of(event_from_row(row)) for row in rows])
            with sql.writer() as conn:
                sql.update_embeddings(conn, tenant, [(row.id, v.astype(np.float32).tobytes()) for row, v in zip(rows, vectors)])
            done += len(rows)
            if progress:
                progress("reembed", done, total)
    return done
