"""Writes of events with their deltas, provenance links, entities, mentions and outbox rows.

Every write of a batch (events, deltas, provenance links, entity index, full-text index via the
database itself, and the vector outbox) happens in one transaction: a batch is stored whole or
not at all, and a crash after the commit loses nothing because the outbox is replayed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, delete, insert, select, update

from deltacore.storage.database import Database
from deltacore.storage.event_reads import EventReads
from deltacore.storage.filters import entity_filter
from deltacore.storage.fulltext import about_text
from deltacore.storage.id_lists import chunks, in_list
from deltacore.storage.tables import delta_links, deltas, event_entities, events, mentions, outbox, retrievals, review_queue


# Every write runs these (twice for the dedupe: before screening and inside the write lock), so
# they are built once; ``in_list`` binds a whole id list as one parameter (``id_lists``).
_EXISTING_IDS = select(events.c.id).where(in_list(events.c.id))
_DELTAS_OF_EVENTS = select(deltas.c.event_id, deltas.c.id).where(in_list(deltas.c.event_id))
_EPISODE_TAIL = (
    select(deltas.c.id, deltas.c.ts)
    .where(deltas.c.tenant == bindparam("tenant"), deltas.c.episode_id == bindparam("episode_id"))
    .order_by(deltas.c.ts.desc(), deltas.c.id.desc())
    .limit(1)
)


def existing_event_ids(conn: Connection, ids: Sequence[str]) -> set[str]:
    ids = list(ids)
    if not ids:
        return set()
    return set(conn.execute(_EXISTING_IDS, {"ids": ids}).scalars())


class EventWrites:
    """The write path's lookups (dedupe, episode tails) and inserts; deletes; re-embedding."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def existing_event_ids(self, conn: Connection, ids: Sequence[str]) -> set[str]:
        return existing_event_ids(conn, ids)

    def existing_hashes(self, conn: Connection, tenant: str, hashes: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in chunks(hashes):
            statement = select(events.c.content_hash, events.c.id).where(
                events.c.tenant == tenant, events.c.content_hash.in_(chunk)
            )
            for content_hash, event_id in conn.execute(statement):
                found.setdefault(content_hash, event_id)
        return found

    def delta_ids_for_events(self, conn: Connection, event_ids: Iterable[str]) -> dict[str, str]:
        event_ids = list(event_ids)
        if not event_ids:
            return {}
        return {event_id: delta_id for event_id, delta_id in conn.execute(_DELTAS_OF_EVENTS, {"ids": event_ids})}

    def episode_tails(self, conn: Connection, tenant: str, episode_ids: Iterable[str]) -> dict[str, tuple[str, float]]:
        """The latest delta (id, ts) already stored in each episode."""
        tails: dict[str, tuple[str, float]] = {}
        for episode_id in set(episode_ids):
            row = conn.execute(_EPISODE_TAIL, {"tenant": tenant, "episode_id": episode_id}).first()
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
        dialect = self.database.dialect
        statement = dialect.insert_or_ignore(events, ["id"]).returning(events.c.id)
        if dialect.keeps_about_column:
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
            self.database.bump_tenants(conn, changes)
        return inserted

    def note_inserted(self, rows: int) -> None:
        self.database.note_inserted(rows)

    def bump_version(self, conn: Connection, tenant: str) -> None:
        """Mark a tenant changed without adding rows: every cache keyed on its signature is stale."""
        self.database.bump_version(conn, tenant)

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
            return list(conn.execute(select(events.c.id).where(*filters)).scalars())
        found: list[str] = []
        for chunk in chunks(event_ids):
            found.extend(conn.execute(select(events.c.id).where(*filters, events.c.id.in_(chunk))).scalars())
        return found

    def delete_events(self, conn: Connection, ids: Sequence[str]) -> tuple[list[str], int, int]:
        """Delete events with their deltas, links, entities and full-text entries; queue the
        vector deletes in the same transaction. Returns (deleted ids, deltas, links)."""
        present = EventReads(self.database).fetch_events(conn, ids)
        if not present:
            return [], 0, 0
        id_list = list(present)
        delta_ids: list[str] = []
        for chunk in chunks(id_list):
            delta_ids.extend(conn.execute(select(deltas.c.id).where(deltas.c.event_id.in_(chunk))).scalars())
        links = 0
        for chunk in chunks(delta_ids):
            links += conn.execute(
                delete(delta_links).where(
                    delta_links.c.child_id.in_(chunk) | delta_links.c.parent_id.in_(chunk)
                )
            ).rowcount
            conn.execute(delete(review_queue).where(review_queue.c.delta_id.in_(chunk)))
            conn.execute(delete(deltas).where(deltas.c.id.in_(chunk)))
        now = time.time()
        for chunk in chunks(id_list):
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
        self.database.bump_tenants(conn, changes)
        return id_list, len(delta_ids), links

    # ---- maintenance --------------------------------------------------------------------------

    def update_embeddings(self, conn: Connection, tenant: str, pairs: list[tuple[str, bytes]]) -> None:
        for event_id, blob in pairs:
            conn.execute(update(events).where(events.c.id == event_id).values(embedding=blob))
        self.database.bump_tenants(conn, {tenant: 0})  # cached vectors of this tenant are now stale
