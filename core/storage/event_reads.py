"""Reads of events, deltas and provenance: what the read path, ``get``, ``list`` and
``query_causal`` ask of the store. Every method runs on the caller's connection."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, Connection, func, literal, select, tuple_

from deltacore.storage.database import Database
from deltacore.storage.event_statements import (
    ANCESTRY,
    DELTAS_OF_EVENTS,
    EVENT_COLUMNS,
    LINKED,
    TRUST_SIGNALS,
    UTILITIES,
    VECTORS_BY_SEQ,
)
from deltacore.storage.id_lists import chunks, in_list
from deltacore.storage.tables import delta_links, deltas, events, outbox


class EventReads:
    """Events and their deltas by id, by scope, by row number; provenance walks; vectors."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def fetch_events(
        self, conn: Connection, ids: Sequence[str], filters: Sequence[ColumnElement[bool]] = ()
    ) -> dict[str, Any]:
        """Rows of ``ids`` that pass ``filters``, by id (embedding column left out)."""
        if not ids:
            return {}
        statement = select(*EVENT_COLUMNS).where(in_list(events.c.id), *filters)
        return {row.id: row for row in conn.execute(statement, {"ids": list(ids)}).all()}

    def deltas_for_events(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        for row in conn.execute(DELTAS_OF_EVENTS, {"ids": list(event_ids)}).all():
            found.setdefault(row.event_id, []).append(row)
        return found

    def fetch_deltas(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for chunk in chunks(delta_ids):
            found.update({row.id: row for row in conn.execute(select(deltas).where(deltas.c.id.in_(chunk)))})
        return found

    def parents_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._links(conn, delta_ids, delta_links.c.child_id, delta_links.c.parent_id)

    def children_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._links(conn, delta_ids, delta_links.c.parent_id, delta_links.c.child_id)

    def _links(self, conn: Connection, delta_ids: Sequence[str], near: Any, far: Any) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for chunk in chunks(delta_ids):
            for node, other in conn.execute(select(near, far).where(near.in_(chunk))):
                found.setdefault(node, []).append(other)
        return found

    def ancestry(self, conn: Connection, delta_ids: Sequence[str], depth: int) -> dict[str, list[str]]:
        """child -> parents for ``delta_ids`` and their ancestors up to ``depth`` links away.

        One recursive query instead of one round trip per level; a delta met twice is walked once
        (``UNION`` drops repeated rows), so a cycle cannot loop.
        """
        found: dict[str, list[str]] = {delta_id: [] for delta_id in delta_ids}
        if not delta_ids or depth <= 0:
            return found
        for child, parent in conn.execute(ANCESTRY, {"ids": list(delta_ids), "depth": depth}).all():
            parents = found.setdefault(child, [])
            if parent not in parents:
                parents.append(parent)
        return found

    def recent_event_ids(
        self,
        conn: Connection,
        filters: Sequence[ColumnElement[bool]],
        limit: int,
        among: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """``(id, ts)`` newest first; ``among``: only these ids."""
        statement = select(events.c.id, events.c.ts).where(*filters)
        if among is not None:
            statement = statement.where(events.c.id.in_(list(among)))
        statement = statement.order_by(events.c.ts.desc(), events.c.seq.desc())
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
        statement = select(*EVENT_COLUMNS).where(*filters)
        if after is not None:
            anchor = conn.execute(select(events.c.ts, events.c.seq).where(events.c.id == after)).first()
            if anchor is not None:
                statement = statement.where(tuple_(events.c.ts, events.c.seq) > tuple_(literal(anchor.ts), literal(anchor.seq)))
        return list(conn.execute(statement.order_by(events.c.ts, events.c.seq).limit(limit)))

    def tenant_signature(self, conn: Connection, tenant: str) -> tuple[int, int]:
        """(rows, change counter) of a tenant: changes with every insert and delete, from any process."""
        return self.database.tenant_signature(conn, tenant)

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

        One statement reads and tests each row, so every row is touched once (testing in one
        statement and reading the vectors in another would touch each twice).
        """
        if not seqs:
            return [], np.zeros((0, 0), dtype=np.float32)
        statement = VECTORS_BY_SEQ.where(events.c.embedding.is_not(None), *filters)
        rows = {seq: (event_id, blob) for seq, event_id, blob in conn.execute(statement, {"seqs": list(seqs)}).all()}
        return _ordered_vectors(rows, seqs)

    def linked_events(
        self, conn: Connection, event_ids: Sequence[str], filters: Sequence[ColumnElement[bool]]
    ) -> dict[str, list[str]]:
        """For each event, the events of its delta's causal parents and children (that pass ``filters``)."""
        found: dict[str, list[str]] = {}
        links = [(seed, other, seq) for statement in LINKED for seed, other, seq in conn.execute(statement, {"ids": list(event_ids)}).all()]
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
        for event_id, namespace, flags in conn.execute(TRUST_SIGNALS, {"ids": list(event_ids)}).all():
            found.setdefault(event_id, (namespace, set()))[1].update(flags or ())
        return found

    def utilities(self, conn: Connection, event_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
        """(utility, set at) of each event's best delta."""
        found: dict[str, tuple[float, float]] = {}
        for event_id, utility, set_at in conn.execute(UTILITIES, {"ids": list(event_ids)}).all():
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

    def counts(self, tenant: str | None = None) -> dict[str, Any]:
        with self.database.reader() as conn:
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
