"""The staged-write inbox (``dc_inbox``): events acknowledged durably, before the write path.

Storage's part of staged writes (``DeltaCore.ingest(..., staged=True)``): appending a batch is
one INSERT and one commit, so a staged write is durable when it is acknowledged; the rows are
read back in staging order and removed by the ingest layer, in the transaction that writes their
events (``deltacore.ingest.inbox`` decides what happens to them; this module only keeps them).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, text

from deltacore.storage.sql_store import SQLStore
from deltacore.storage.tables import inbox

# Key of the PostgreSQL advisory lock that lets one process at a time apply the inbox: two
# processes applying the same rows at once would race on the same event ids.
_APPLY_LOCK_KEY = 7305188034  # 7305188031-33: setup, outbox drains, the first embedder write
_INSERT = insert(inbox)
_ANY_PENDING = select(inbox.c.seq).limit(1)


class Inbox:
    """Append, read in order, remove: the inbox table and nothing else."""

    def __init__(self, sql: SQLStore) -> None:
        self._sql = sql

    def append(self, rows: Sequence[dict[str, Any]]) -> None:
        """Store ``rows`` (``event_id``, ``tenant``, ``channel``, ``ts_given``, ``payload``) in one
        transaction; when this returns they survive a crash of the process."""
        now = time.time()
        with self._sql.writer() as conn:
            conn.execute(_INSERT, [{**row, "created_at": now} for row in rows])

    def pending(self, limit: int) -> list[Any]:
        """The oldest ``limit`` rows, in staging order."""
        with self._sql.reader() as conn:
            return conn.execute(
                select(inbox.c.seq, inbox.c.event_id, inbox.c.channel, inbox.c.ts_given, inbox.c.payload)
                .order_by(inbox.c.seq)
                .limit(limit)
            ).all()

    def has_pending(self) -> bool:
        with self._sql.reader() as conn:
            return conn.execute(_ANY_PENDING).first() is not None

    def count(self) -> int:
        with self._sql.reader() as conn:
            return int(conn.execute(select(func.count()).select_from(inbox)).scalar_one())

    def remove(self, conn: Connection, seqs: Sequence[int]) -> None:
        """Remove applied rows, inside the caller's write transaction."""
        for start in range(0, len(seqs), 500):
            conn.execute(delete(inbox).where(inbox.c.seq.in_(list(seqs[start : start + 500]))))

    def remove_now(self, seqs: Sequence[int]) -> None:
        """Remove rows in a transaction of their own (rows whose events needed no write)."""
        with self._sql.writer() as conn:
            self.remove(conn, seqs)

    @contextlib.contextmanager
    def apply_lock(self) -> Iterator[None]:
        """Held while one process applies the inbox. PostgreSQL: a session advisory lock on a
        connection of its own (the write path opens its own transactions meanwhile). SQLite
        serialises writers, and the write path re-checks event ids inside its write lock."""
        if not self._sql.dialect.advisory_locks:
            yield
            return
        with self._sql.reader() as conn:
            conn.execute(text(f"SELECT pg_advisory_lock({_APPLY_LOCK_KEY})"))
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text(f"SELECT pg_advisory_unlock({_APPLY_LOCK_KEY})"))
                conn.commit()
