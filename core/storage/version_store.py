"""Versions of a memory: which stored event replaced which (``dc_events.replaced_by``).

An update never edits a stored event: the write path stores the new version as a new event and,
in the same transaction, marks the version it replaces (:meth:`VersionRepository.replace_version`).
Retrieval hides replaced rows (``deltacore.storage.filters``); the chain stays readable here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from deltacore.storage.consolidation_store import derivations
from deltacore.storage.event_statements import EVENT_COLUMNS
from deltacore.storage.tables import events

_MAX_CHAIN = 10_000
"""A guard against a corrupt chain (a cycle cannot be written, but a hand-edited store could hold one)."""


class VersionRepository:
    """Reads and writes the version chain of events (mixed into ``SQLStore``)."""

    def head_version(self, conn: Connection, event_id: str) -> str | None:
        """The id of the current version of the memory ``event_id`` belongs to (None: unknown id)."""
        current: str | None = event_id
        seen = 0
        while current is not None and seen < _MAX_CHAIN:
            row = conn.execute(select(events.c.id, events.c.replaced_by).where(events.c.id == current)).first()
            if row is None:
                return None
            if row.replaced_by is None:
                return row.id
            current, seen = row.replaced_by, seen + 1
        return current

    def replace_version(self, conn: Connection, tenant: str, old_id: str, new_id: str, now: float) -> str | None:
        """Mark the current version of ``old_id``'s memory as replaced by ``new_id``; returns the
        id it replaced (None if ``old_id`` is gone). Run in the write path's transaction: a
        concurrent update that replaced ``old_id`` first is followed to its head, so two racing
        updates chain instead of forking the memory."""
        for _ in range(_MAX_CHAIN):
            head = self.head_version(conn, old_id)
            if head is None or head == new_id:
                return None
            changed = conn.execute(
                update(events)
                .where(events.c.id == head, events.c.tenant == tenant, events.c.replaced_by.is_(None))
                .values(replaced_by=new_id, replaced_at=now)
            ).rowcount
            if changed:
                self.database.bump_tenants(conn, {tenant: 0})  # type: ignore[attr-defined]  # HOT tier caches visibility
                return head
            old_id = head
        return None

    def version_chain(self, conn: Connection, event_id: str) -> list[Any]:
        """Rows of every version of ``event_id``'s memory, oldest first (empty: unknown id).

        A merged memory (consolidation) begins a chain: the several originals it hides all lead
        to it, so none of them is *its* earlier version; they are its ``meta["derives_from"]``."""
        start = conn.execute(select(*EVENT_COLUMNS).where(events.c.id == event_id)).first()
        if start is None:
            return []
        older: list[Any] = []
        row = start
        while len(older) < _MAX_CHAIN and not _is_merged(conn, row.id):
            previous = conn.execute(select(*EVENT_COLUMNS).where(events.c.replaced_by == row.id)).first()
            if previous is None:
                break
            older.append(previous)
            row = previous
        newer: list[Any] = []
        row = start
        while row.replaced_by is not None and len(newer) < _MAX_CHAIN:
            following = conn.execute(select(*EVENT_COLUMNS).where(events.c.id == row.replaced_by)).first()
            if following is None:
                break
            newer.append(following)
            row = following
        return [*reversed(older), start, *newer]


def _is_merged(conn: Connection, event_id: str) -> bool:
    return conn.execute(select(derivations.c.derived_id).where(derivations.c.derived_id == event_id).limit(1)).first() is not None
