"""What differs between SQLite and PostgreSQL, in one value instead of ``if dialect == …``.

Every statement builder and repository receives a :class:`Dialect`; the SQL the two backends
run is the same where it can be, and this object holds the few places where it cannot: the
insert that ignores or updates a conflicting row, how "column in this list" is bound, which
full-text index the store keeps, whether advisory locks exist.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, Engine, Table
from sqlalchemy.dialects import postgresql, sqlite

from deltacore.storage.id_lists import InList, in_list

DialectName = Literal["sqlite", "postgresql"]


@dataclass(frozen=True)
class Dialect:
    """One SQL backend. ``Dialect.of(engine)`` picks it; ``SQLITE`` and ``POSTGRESQL`` are the two."""

    name: DialectName
    full_text: Literal["fts5", "tsvector"]
    """SQLite: an FTS5 external-content table kept by triggers; PostgreSQL: a generated tsvector column."""
    advisory_locks: bool
    """PostgreSQL serialises setup, the first embedder write and outbox draining with advisory locks;
    SQLite's single writer (``BEGIN IMMEDIATE``) serialises them already."""
    keeps_about_column: bool
    """Only SQLite's full-text index reads the ``about`` tokens; PostgreSQL filters in SQL instead."""

    @classmethod
    def of(cls, engine: Engine) -> Dialect:
        return dialect_named(engine.dialect.name)

    @property
    def is_sqlite(self) -> bool:
        return self.name == "sqlite"

    def insert(self, table: Table) -> Any:
        """This backend's ``INSERT`` (with ``on_conflict_do_nothing`` / ``on_conflict_do_update``)."""
        return (sqlite.insert if self.is_sqlite else postgresql.insert)(table)

    def insert_or_ignore(self, table: Table, keys: Sequence[str]) -> Any:
        """``INSERT … ON CONFLICT (keys) DO NOTHING``."""
        return self.insert(table).on_conflict_do_nothing(index_elements=list(keys))

    def upsert(
        self, table: Table, keys: Sequence[str], updates: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]], values: Mapping[str, Any] | None = None
    ) -> Any:
        """``INSERT … ON CONFLICT (keys) DO UPDATE SET updates``; ``updates`` may be a function of
        the statement's ``excluded`` row (the values that were refused)."""
        statement = self.insert(table)
        if values is not None:
            statement = statement.values(**values)
        changes = updates(statement.excluded) if callable(updates) else updates
        return statement.on_conflict_do_update(index_elements=list(keys), set_=dict(changes))

    @staticmethod
    def in_list(column: ColumnElement[Any], name: str = "ids", *, integers: bool = False) -> InList:
        """``column`` in the list bound to parameter ``name`` (``json_each`` / ``= ANY``)."""
        return in_list(column, name, integers=integers)


SQLITE = Dialect("sqlite", full_text="fts5", advisory_locks=False, keeps_about_column=True)
POSTGRESQL = Dialect("postgresql", full_text="tsvector", advisory_locks=True, keeps_about_column=False)


def dialect_named(name: str) -> Dialect:
    if name == "sqlite":
        return SQLITE
    if name == "postgresql":
        return POSTGRESQL
    raise ValueError(f"unsupported SQL backend {name!r}: DeltaCore runs on SQLite or PostgreSQL")
