"""``column IN <a list bound as one parameter>``: one compiled statement for every list.

The read path asks "these rows, by id" a dozen times per query. SQLAlchemy's expanding ``IN``
parameter re-renders the SQL string for every list length (``_process_parameters_for_postcompile``),
which cost more Python time than SQLite took to answer. Binding the whole list as a single value
keeps the compiled statement cached and the SQL text fixed:

- SQLite: ``col IN (SELECT value FROM json_each(?))`` with the list as a JSON array. The planner
  walks the list and looks each id up in the column's index (``SEARCH ... USING INDEX``).
- PostgreSQL: ``col = ANY(%s)`` with the list as an array.

No length limit either (SQLite's bound-variable limit chunked the expanding form at 500).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Boolean, Text, TypeDecorator, bindparam
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import BindParameter, ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal


class _BoundList(TypeDecorator[Any]):
    """A Python list bound as a JSON array (SQLite) or a text/integer array (PostgreSQL)."""

    impl = Text
    cache_ok = True

    def __init__(self, integers: bool = False) -> None:
        super().__init__()
        self.integers = integers

    def load_dialect_impl(self, dialect: Any) -> Any:
        if dialect.name == "postgresql":
            from sqlalchemy import BigInteger

            return dialect.type_descriptor(postgresql.ARRAY(BigInteger if self.integers else Text))
        return dialect.type_descriptor(Text())

    def process_bind_param(self, value: Iterable[Any] | None, dialect: Any) -> Any:
        items = list(value or ())
        return items if dialect.name == "postgresql" else json.dumps(items)


class InList(ColumnElement[bool]):
    """``column`` is one of the values bound to parameter ``name`` (a list)."""

    inherit_cache = True
    type = Boolean()
    _is_implicitly_boolean = True  # a condition as it stands: no "= 1" appended in WHERE
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement), ("param", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any], name: str, integers: bool = False) -> None:
        self.column = column
        self.param: BindParameter[Any] = bindparam(name, type_=_BoundList(integers))


def in_list(column: ColumnElement[Any], name: str = "ids", *, integers: bool = False) -> InList:
    """Build the condition once (module level) and pass ``{name: [...]}`` when executing."""
    return InList(column, name, integers)


@compiles(InList)
def _in_json_each(element: InList, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    return f"{column} IN (SELECT value FROM json_each({compiler.process(element.param, **kw)}))"


@compiles(InList, "postgresql")
def _in_array(element: InList, compiler: Any, **kw: Any) -> str:
    return f"{compiler.process(element.column, **kw)} = ANY({compiler.process(element.param, **kw)})"


def chunks(items: Iterable[Any], size: int = 500) -> Iterator[list[Any]]:
    """``items`` in lists of ``size``: the statements that still use an expanding ``IN`` stay
    under SQLite's bound-variable limit."""
    items = list(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]
