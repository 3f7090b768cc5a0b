"""Erasure primitives: every text-bearing column of every table, deleting and rewriting rows,
and the physical steps that make a deleted row's bytes leave the backend's files.

Storage knows no policy: *what* to erase (which rows name a subject, how text is folded,
what a re-derived value is) is decided by ``deltacore.compliance``; this module reads rows,
deletes or rewrites exactly the keys it is given, and runs each backend's clean-up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, Table, delete, select, update

from deltacore.storage import tables as t
from deltacore.storage.checkpoint_store import checkpoint_writes, checkpoints
from deltacore.storage.erasure_physical import chroma_folder_cleanup, hnsw_scrub, sqlite_physical
from deltacore.storage.erasure_physical import postgres_physical as _postgres_physical
from deltacore.storage.consolidation_store import derivations
from deltacore.storage.plan_store import schemas as plan_schemas
from deltacore.storage.filters import entity_filter
from deltacore.storage.id_lists import chunks
from deltacore.storage.text_narrowing import candidate_clause

TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    # Every column that can hold a person's words or identifiers (free text, names, ids, JSON).
    "dc_events": ("text", "actor", "source", "agent_id", "user_id", "session_id", "tool_args", "entities", "meta"),
    "dc_deltas": ("trigger", "action", "result", "subject", "object", "agent_id", "user_id", "session_id"),
    "dc_retrievals": ("query",),
    "dc_security_events": ("source", "reasons", "payload"),
    "dc_source_reputation": ("source",),
    "dc_review_queue": ("reason", "payload", "resolution"),
    "dc_system_events": ("payload",),
    "dc_facts": ("subject", "subject_name", "value", "value_key", "source", "sources", "agent_id", "user_id", "session_id"),
    "dc_conflicts": ("subject", "old_value", "new_value", "note", "support"),
    "dc_delta_migrations": ("args", "mapping", "reason"),
    "dc_after_commit": ("payload",),
    # LangGraph checkpoints hold the conversation state (the subject's words) serialised: the
    # bytes are read as UTF-8, where msgpack and JSON keep strings as they are.
    "dc_checkpoints": ("thread_id", "checkpoint", "metadata", "metadata_json"),
    "dc_checkpoint_writes": ("thread_id", "channel", "value"),
    # Plan schemas learned from episodes (issue 17): templates, situations and slot values quote
    # the episodes' tasks, so a version naming the subject goes (plans re-learn from what remains).
    "dc_schemas": ("schema_id", "body", "note"),
}
"""Table → the columns a scan for a subject's strings must read."""

_TABLES: dict[str, Table] = {
    "dc_events": t.events,
    "dc_deltas": t.deltas,
    "dc_retrievals": t.retrievals,
    "dc_security_events": t.security_events,
    "dc_source_reputation": t.source_reputation,
    "dc_review_queue": t.review_queue,
    "dc_system_events": t.system_events,
    "dc_facts": t.facts,
    "dc_conflicts": t.conflicts,
    "dc_delta_migrations": t.delta_migrations,
    "dc_after_commit": t.after_commit_journal,
    "dc_checkpoints": checkpoints,
    "dc_checkpoint_writes": checkpoint_writes,
    "dc_schemas": plan_schemas,
}

KEYS: dict[str, tuple[str, ...]] = {name: tuple(c.name for c in table.primary_key.columns) for name, table in _TABLES.items()}
KEYS["dc_events"] = ("id",)  # unique; ``seq`` is only the full-text rowid
"""Table → the key columns a scanned row is named by (the primary key, or a unique id)."""

Key = tuple[Any, ...]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return json.dumps(value, ensure_ascii=False, default=str)


class ErasureRepository:
    """Reads every text-bearing row, deletes and rewrites rows by key; runs in the caller's transaction."""

    def scan(
        self,
        conn: Connection,
        table_name: str,
        tenant: str | None,
        batch: int = 2000,
        candidates: Sequence[str] = (),
        ids: Sequence[Any] | None = None,
    ) -> Iterator[tuple[Key, str]]:
        """(primary key, the row's text-bearing columns joined) for every row of the table
        (in ``tenant`` when the table has a tenant column; only the rows keyed ``ids`` when given).

        ``candidates`` (lower-case strings) narrows the rows in SQL on SQLite and PostgreSQL
        (``deltacore.storage.text_narrowing``): a row is read only if a column holds one of
        them in any ASCII case, a non-ASCII character or a backslash (a JSON escape), so the
        caller's own matching, which still decides, sees every row it could match. Measured:
        reading and decoding every row of every table in Python was a quarter of a forget at
        5,000 memories."""
        table = _TABLES[table_name]
        keys = [table.c[name] for name in KEYS[table_name]]
        columns = [table.c[name] for name in TEXT_COLUMNS[table_name]]
        statement = select(*keys, *columns)
        if tenant is not None and "tenant" in table.c:
            statement = statement.where(table.c.tenant == tenant)
        if ids is not None:
            statement = statement.where(keys[0].in_(list(ids)))
        narrow = candidate_clause(conn.dialect.name, columns, candidates)
        if narrow is not None:
            statement = statement.where(narrow)
        width = len(keys)
        for rows in conn.execute(statement.execution_options(yield_per=batch)).partitions(batch):
            for row in rows:
                yield tuple(row[:width]), "\n".join(_as_text(value) for value in row[width:])

    def column_values(self, conn: Connection, table_name: str, column: str, tenant: str, values: Sequence[str]) -> list[Key]:
        """Keys of the rows whose ``column`` equals one of ``values`` (a source, a user id…)."""
        table = _TABLES[table_name]
        keys = [table.c[name] for name in KEYS[table_name]]
        found: list[Key] = []
        for chunk in chunks(list(values)):
            found.extend(tuple(r) for r in conn.execute(select(*keys).where(table.c.tenant == tenant, table.c[column].in_(chunk))))
        return found

    def event_ids_where(self, conn: Connection, tenant: str, column: str, values: Sequence[str]) -> list[str]:
        return [key[0] for key in self.column_values(conn, "dc_events", column, tenant, values)]

    def event_ids_named(self, conn: Connection, tenant: str, names: Sequence[str]) -> list[str]:
        """Events whose entity index or mentions hold one of ``names`` (casefolded)."""
        found: list[str] = []
        for chunk in chunks(list(names)):
            found.extend(conn.execute(select(t.event_entities.c.event_id).where(t.event_entities.c.tenant == tenant, t.event_entities.c.entity.in_(chunk))).scalars())
            found.extend(conn.execute(select(t.mentions.c.event_id).where(t.mentions.c.tenant == tenant, t.mentions.c.name.in_(chunk))).scalars())
        return list(dict.fromkeys(found))

    def event_ids_within(
        self, conn: Connection, tenant: str, fields: Mapping[str, str], among: Sequence[str] | None = None
    ) -> list[str]:
        """Events of ``tenant`` where *every* field of ``fields`` matches (``agent_id``,
        ``user_id``, ``session_id`` by equality, ``entity`` as ``events(entity=…)``), oldest
        first; only those of ``among`` when given (their order kept)."""
        clauses = [t.events.c.tenant == tenant]
        for name in ("agent_id", "user_id", "session_id"):
            if fields.get(name) is not None:
                clauses.append(t.events.c[name] == fields[name])
        if fields.get("entity") is not None:
            clauses.append(entity_filter(tenant, fields["entity"]))
        if among is None:
            statement = select(t.events.c.id).where(*clauses).order_by(t.events.c.ts, t.events.c.seq)
            return list(conn.execute(statement).scalars())
        inside: set[str] = set()
        for chunk in chunks(list(among)):
            inside.update(conn.execute(select(t.events.c.id).where(*clauses, t.events.c.id.in_(chunk))).scalars())
        return [event_id for event_id in among if event_id in inside]

    def current_versions(self, conn: Connection, event_ids: Sequence[str]) -> int:
        """How many of these events are a memory's current version (not replaced by an update)."""
        count = 0
        for chunk in chunks(list(event_ids)):
            statement = select(t.events.c.id).where(t.events.c.id.in_(chunk), t.events.c.replaced_by.is_(None))
            count += len(conn.execute(statement).all())
        return count

    def version_chain(
        self, conn: Connection, event_ids: Sequence[str], *, newer: bool, through_merges: bool = True
    ) -> list[str]:
        """Every older version of these events (``replaced_by`` leads to them) and, with
        ``newer``, every version that replaced them; the given ids are not repeated.
        ``through_merges=False``: the newer walk stops before a merged memory (a row of
        ``dc_derivations``), which hides other events besides these."""
        seen = set(event_ids)
        frontier = list(event_ids)
        found: list[str] = []
        while frontier:
            step: list[str] = []
            for chunk in chunks(frontier):
                step.extend(conn.execute(select(t.events.c.id).where(t.events.c.replaced_by.in_(chunk))).scalars())
                if newer:
                    statement = select(t.events.c.replaced_by).where(t.events.c.id.in_(chunk))
                    if not through_merges:
                        statement = statement.where(t.events.c.replaced_by.not_in(select(derivations.c.derived_id)))
                    step.extend(v for v in conn.execute(statement).scalars() if v)
            frontier = [e for e in dict.fromkeys(step) if e not in seen]
            seen.update(frontier)
            found.extend(frontier)
        return found

    def rows_referencing_events(self, conn: Connection, table_name: str, event_ids: Sequence[str]) -> list[Key]:
        """Keys of rows of a log table that point at one of these events (``event_id`` column)."""
        table = _TABLES[table_name]
        keys = [table.c[name] for name in KEYS[table_name]]
        found: list[Key] = []
        for chunk in chunks(list(event_ids)):
            found.extend(tuple(r) for r in conn.execute(select(*keys).where(table.c.event_id.in_(chunk))))
        return found

    def delete_rows(self, conn: Connection, table_name: str, keys: Sequence[Key]) -> int:
        """Delete rows by primary key; returns how many went."""
        table = _TABLES[table_name]
        names = KEYS[table_name]
        removed = 0
        if len(names) == 1:
            for chunk in chunks([key[0] for key in keys]):
                removed += conn.execute(delete(table).where(table.c[names[0]].in_(chunk))).rowcount
            return removed
        for key in keys:
            clause = [table.c[name] == value for name, value in zip(names, key, strict=True)]
            removed += conn.execute(delete(table).where(*clause)).rowcount
        return removed

    def update_row(self, conn: Connection, table_name: str, key: Key, values: Mapping[str, Any]) -> int:
        table = _TABLES[table_name]
        clause = [table.c[name] == value for name, value in zip(KEYS[table_name], key, strict=True)]
        return conn.execute(update(table).where(*clause).values(**values)).rowcount

    # ---- provenance around erased deltas --------------------------------------------------------

    def delta_ids_of_events(self, conn: Connection, event_ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in chunks(list(event_ids)):
            found.extend(conn.execute(select(t.deltas.c.id).where(t.deltas.c.event_id.in_(chunk))).scalars())
        return found

    def children_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        """child delta id → its parents among ``delta_ids``."""
        found: dict[str, list[str]] = {}
        for chunk in chunks(list(delta_ids)):
            statement = select(t.delta_links.c.child_id, t.delta_links.c.parent_id).where(t.delta_links.c.parent_id.in_(chunk))
            for child, parent in conn.execute(statement):
                found.setdefault(child, []).append(parent)
        return found

    def parents_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[str]]:
        """delta id → its parent delta ids (explicit parents first, then episode order)."""
        found: dict[str, list[str]] = {}
        for chunk in chunks(list(delta_ids)):
            statement = (
                select(t.delta_links.c.child_id, t.delta_links.c.parent_id, t.delta_links.c.relation)
                .where(t.delta_links.c.child_id.in_(chunk))
                .order_by(t.delta_links.c.relation)  # "parent" sorts before "sequence"
            )
            for child, parent, _relation in conn.execute(statement):
                found.setdefault(child, []).append(parent)
        return found

    def deltas(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for chunk in chunks(list(delta_ids)):
            for row in conn.execute(select(t.deltas).where(t.deltas.c.id.in_(chunk))):
                found[row.id] = dict(row._mapping)
        return found

    def events_with_parents(self, conn: Connection, tenant: str, event_ids: Sequence[str]) -> dict[str, list[str]]:
        """Retained events whose ``parent_ids`` name one of ``event_ids``: id → parent ids."""
        wanted = set(event_ids)
        found: dict[str, list[str]] = {}
        statement = select(t.events.c.id, t.events.c.parent_ids).where(t.events.c.tenant == tenant)
        for event_id, parents in conn.execute(statement):
            if parents and wanted.intersection(parents):
                found[event_id] = list(parents)
        return found

    # ---- facts ---------------------------------------------------------------------------------

    def facts_of_events(self, conn: Connection, event_ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in chunks(list(event_ids)):
            found.extend(conn.execute(select(t.fact_events.c.fact_id).where(t.fact_events.c.event_id.in_(chunk))).scalars())
            found.extend(conn.execute(select(t.facts.c.id).where(t.facts.c.event_id.in_(chunk))).scalars())
        return list(dict.fromkeys(found))

    def slots(self, conn: Connection, fact_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """(tenant, subject, attribute) of these facts."""
        found: set[tuple[str, str, str]] = set()
        for chunk in chunks(list(fact_ids)):
            statement = select(t.facts.c.tenant, t.facts.c.subject, t.facts.c.attribute).where(t.facts.c.id.in_(chunk))
            found.update((r.tenant, r.subject, r.attribute) for r in conn.execute(statement))
        return sorted(found)

    def slot_fact_ids(self, conn: Connection, tenant: str, subject: str, attribute: str) -> list[str]:
        statement = select(t.facts.c.id).where(t.facts.c.tenant == tenant, t.facts.c.subject == subject, t.facts.c.attribute == attribute)
        return list(conn.execute(statement).scalars())

    def fact_event_ids(self, conn: Connection, fact_ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in chunks(list(fact_ids)):
            found.extend(conn.execute(select(t.fact_events.c.event_id).where(t.fact_events.c.fact_id.in_(chunk))).scalars())
            found.extend(conn.execute(select(t.facts.c.event_id).where(t.facts.c.id.in_(chunk))).scalars())
        return list(dict.fromkeys(found))

    def fact_values(self, conn: Connection, fact_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """fact id → (value, status), to tell what re-derivation changed."""
        found: dict[str, tuple[str, str]] = {}
        for chunk in chunks(list(fact_ids)):
            for row in conn.execute(select(t.facts.c.id, t.facts.c.value, t.facts.c.status).where(t.facts.c.id.in_(chunk))):
                found[row.id] = (row.value, row.status)
        return found

    def delete_facts(self, conn: Connection, tenant: str, subject: str, attribute: str) -> int:
        """Delete a slot's facts, their statement links and its conflicts."""
        ids = self.slot_fact_ids(conn, tenant, subject, attribute)
        for chunk in chunks(ids):
            conn.execute(delete(t.fact_events).where(t.fact_events.c.fact_id.in_(chunk)))
        conn.execute(delete(t.conflicts).where(t.conflicts.c.tenant == tenant, t.conflicts.c.subject == subject, t.conflicts.c.attribute == attribute))
        removed = 0
        for chunk in chunks(ids):
            removed += conn.execute(delete(t.facts).where(t.facts.c.id.in_(chunk))).rowcount
        return removed

    def existing_events(self, conn: Connection, event_ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in chunks(list(event_ids)):
            found.extend(conn.execute(select(t.events.c.id).where(t.events.c.id.in_(chunk))).scalars())
        return found

    def purge_outbox_upserts(self, conn: Connection, event_ids: Sequence[str]) -> int:
        """Drop queued vector *upserts* of erased events (their deletes stay queued)."""
        removed = 0
        for chunk in chunks(list(event_ids)):
            removed += conn.execute(delete(t.outbox).where(t.outbox.c.event_id.in_(chunk), t.outbox.c.op == "upsert")).rowcount
        return removed


class ErasureLog:
    """The rows the forget journal and its status records live in (``dc_after_commit``,
    ``dc_system_events``) and the store's HMAC key (``dc_store_meta``)."""

    def meta(self, conn: Connection, key: str) -> str | None:
        row = conn.execute(select(t.store_meta.c.value).where(t.store_meta.c.key == key)).first()
        return None if row is None else str(row[0])

    def set_meta(self, conn: Connection, key: str, value: str) -> None:
        conn.execute(t.store_meta.insert().values(key=key, value=value))

    def set_journal_payload(self, conn: Connection, entry_id: int, payload: dict[str, Any]) -> None:
        conn.execute(update(t.after_commit_journal).where(t.after_commit_journal.c.id == entry_id).values(payload=payload))

    def journal_step(self, conn: Connection, entry_id: int) -> str | None:
        row = conn.execute(select(t.after_commit_journal.c.step).where(t.after_commit_journal.c.id == entry_id)).first()
        return None if row is None else str(row[0])

    def log(self, conn: Connection, tenant: str, kind: str, payload: dict[str, Any]) -> None:
        conn.execute(t.system_events.insert().values(ts=time.time(), tenant=tenant, kind=kind, payload=payload))

    def logged(self, conn: Connection, kind: str) -> Iterator[dict[str, Any]]:
        """Payloads of system events of ``kind``, newest first."""
        statement = select(t.system_events.c.payload).where(t.system_events.c.kind == kind).order_by(t.system_events.c.id.desc())
        for (payload,) in conn.execute(statement):
            yield dict(payload)


POSTGRES_TABLES = tuple(
    ["dc_events", "dc_deltas", "dc_delta_links", "dc_event_entities", "dc_mentions", "dc_vector_outbox", "dc_utility_updates", "dc_fact_events"]
    + list(TEXT_COLUMNS)
)


def postgres_physical(engine: Engine) -> list[tuple[str, str, bool, str]]:
    """``VACUUM (FULL, ANALYZE)`` of every table that can hold erased rows, ``VACUUM FULL
    pg_statistic`` and ``CHECKPOINT`` (``deltacore.storage.erasure_physical``)."""
    return _postgres_physical(engine, POSTGRES_TABLES)


__all__ = [
    "KEYS",
    "POSTGRES_TABLES",
    "TEXT_COLUMNS",
    "ErasureLog",
    "ErasureRepository",
    "chroma_folder_cleanup",
    "hnsw_scrub",
    "postgres_physical",
    "sqlite_physical",
]
