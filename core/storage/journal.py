"""The after-commit journal: work a write transaction promised to do once it committed.

A step that must not be lost (the E01 playbook of a blocked write, later the belief update and
the erasure journal) is written here *inside* the write transaction; after the commit it runs in
a transaction of its own that also removes its row, so each runs exactly once, and a crash
between the two leaves the row for the next open to replay.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from deltacore.storage.tables import after_commit_journal


@dataclass(frozen=True)
class JournalEntry:
    id: int
    tenant: str
    step: str
    payload: dict[str, Any]


class AfterCommitJournal:
    """Rows of ``dc_after_commit``: written in the caller's transaction, removed by the step."""

    def add(self, conn: Connection, tenant: str, step: str, payload: dict[str, Any]) -> int:
        result = conn.execute(
            insert(after_commit_journal)
            .values(tenant=tenant, step=step, payload=payload, created_at=time.time())
            .returning(after_commit_journal.c.id)
        )
        return int(result.scalar_one())

    def pending(self, conn: Connection, steps: Sequence[str] | None = None, limit: int = 1000) -> list[JournalEntry]:
        """Entries still to run, oldest first (``steps`` narrows to those step names)."""
        statement = select(after_commit_journal).order_by(after_commit_journal.c.id).limit(limit)
        if steps is not None:
            statement = statement.where(after_commit_journal.c.step.in_(list(steps)))
        return [JournalEntry(row.id, row.tenant, row.step, dict(row.payload)) for row in conn.execute(statement)]

    def claim(self, conn: Connection, entry_id: int) -> bool:
        """Remove an entry in the transaction that runs it; False if another process took it."""
        return conn.execute(delete(after_commit_journal).where(after_commit_journal.c.id == entry_id)).rowcount == 1
