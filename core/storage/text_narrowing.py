"""Narrowing a scan for a subject's strings in SQL, so Python reads only the rows that could match.

The forget pipeline's matcher (``deltacore.compliance.matching``) decides, after the gateway's
Unicode folding; SQL can only say which rows *cannot* match. A row is read when one of its
columns holds a candidate string in any ASCII case, a non-ASCII character (folding could turn
it into the name: "Àlice"), or a backslash (a JSON column keeps non-ASCII escaped, ``\\u00c0``).
Every clause is a superset of what the matcher accepts, never a subset.

SQLite: ``LIKE`` (case-insensitive for ASCII) and ``GLOB`` on the column cast to text (a BLOB
reads as its bytes). PostgreSQL: ``strpos(lower(…))`` (no ``LIKE`` escaping of ``_``/``%`` to get
wrong), a regular expression for non-ASCII, and for ``bytea`` columns the ``escape`` encoding
(printable ASCII as itself, every high byte as ``\\ooo``), where a UTF-8 multi-byte character is
a lead byte ``\\3oo`` followed by a continuation byte ``\\2oo``; Python reads such bytes as
UTF-8, so a row without one holds no non-ASCII character the matcher could fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import LargeBinary, Text, cast, func, literal, or_

__all__ = ["candidate_clause"]

_PG_NON_ASCII = "[^\\x01-\\x7f]"
_PG_UTF8_MULTIBYTE = "\\\\3[0-7][0-7]\\\\2[0-7][0-7]"


def _sqlite(columns: Sequence[Any], candidates: Sequence[str]) -> Any:
    clauses = []
    for column in columns:
        text = cast(column, Text)
        clauses.extend(text.like(f"%{term}%") for term in candidates)
        clauses.append(text.op("GLOB")(literal("*[^\x01-\x7f]*")))
        clauses.append(text.like("%\\%"))
    return or_(*clauses)


def _postgres(columns: Sequence[Any], candidates: Sequence[str]) -> Any:
    clauses = []
    for column in columns:
        if isinstance(column.type, LargeBinary):
            escaped = func.encode(column, literal("escape"))
            lowered = func.lower(escaped)
            clauses.extend(func.strpos(lowered, literal(term)) > 0 for term in candidates)
            clauses.append(escaped.op("~")(literal(_PG_UTF8_MULTIBYTE)))
            continue
        text = cast(column, Text)
        lowered = func.lower(text)
        clauses.extend(func.strpos(lowered, literal(term)) > 0 for term in candidates)
        clauses.append(text.op("~")(literal(_PG_NON_ASCII)))
        clauses.append(func.strpos(text, literal("\\")) > 0)
    return or_(*clauses)


def candidate_clause(dialect: str, columns: Sequence[Any], candidates: Sequence[str]) -> Any | None:
    """A ``WHERE`` clause keeping every row that could hold one of ``candidates`` (lower-case
    strings), or ``None`` for a dialect this module does not narrow (every row is read)."""
    if not candidates:
        return None
    if dialect == "sqlite":
        return _sqlite(columns, candidates)
    if dialect == "postgresql":
        return _postgres(columns, candidates)
    return None
