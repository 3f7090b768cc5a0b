"""Checking the ids and names a caller passes to a read or a delete, before any SQL runs.

A string with a NUL character or a lone surrogate cannot be stored by both backends, so no
stored row can match it; PostgreSQL fails on it and SQLite silently matches nothing. Both now
answer alike: an :class:`~deltacore.errors.InvalidQueryError` naming the argument.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from deltacore.errors import InvalidQueryError


def check_keys(**values: Any) -> None:
    """Raise :class:`InvalidQueryError` naming the first argument that no stored value can equal."""
    for field, value in values.items():
        items: Iterable[Any] = (
            value if isinstance(value, (list, tuple, set, frozenset)) else [value]
        )
        for item in items:
            if isinstance(item, str):
                _check(item, field)


def _check(value: str, field: str) -> None:
    if "\x00" in value:
        raise InvalidQueryError(
            field, "holds a NUL character, which the database cannot store"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidQueryError(
            field,
            f"holds a lone surrogate at position {exc.start} (not valid Unicode); decode the input properly",
        ) from None
