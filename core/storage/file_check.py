"""Refusing a database file that is not a DeltaCore store, before anything is written to it.

SQLite opens any path: a zero-length file (a truncated copy, a failed restore) or the database
of some other application would silently become a new, empty DeltaCore store, and the user's
memories would seem gone. The file is looked at first, read-only, with the standard library.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from deltacore.errors import ForeignDatabaseError

_SQLITE_HEADER = b"SQLite format 3\x00"
CREATION_GRACE_SECONDS = 2.0
"""How long an empty file may stay empty (another process's first write) before it is refused."""


def check_sqlite_file(path: Path) -> bool:
    """Raise :class:`ForeignDatabaseError` unless ``path`` is absent or a DeltaCore store.

    Returns whether the file exists (a store to open rather than create)."""
    if not path.exists():
        return False
    if not path.is_file():
        raise ForeignDatabaseError(str(path), "it is not a regular file")
    wal = path.with_name(path.name + "-wal")
    # Another process creating the store leaves the file empty for a moment (SQLite creates it,
    # then writes its first page): an empty file is only refused once it has stayed empty.
    deadline = time.monotonic() + CREATION_GRACE_SECONDS
    while (size := path.stat().st_size) == 0 and not (wal.exists() and wal.stat().st_size > 0):
        if time.monotonic() >= deadline:
            raise ForeignDatabaseError(str(path), "the file is empty (0 bytes)")
        time.sleep(0.05)
    if size == 0:
        return True  # the pages are still in the write-ahead log; SQLite recovers them
    with path.open("rb") as stream:
        header = stream.read(len(_SQLITE_HEADER))
    if header != _SQLITE_HEADER:
        raise ForeignDatabaseError(str(path), "the file is not an SQLite database")
    tables = _table_names(path)
    if tables and "dc_store_meta" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        raise ForeignDatabaseError(
            str(path), f"it holds the tables of another application: {shown}"
        )
    return True


def _table_names(path: Path) -> set[str]:
    # immutable=1: no lock, no -shm, nothing written, even on a read-only folder.
    uri = f"{path.absolute().as_uri()}?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
        try:
            rows = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            ).fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise ForeignDatabaseError(str(path), f"SQLite cannot read it: {exc}") from exc
    return {name for (name,) in rows if not name.startswith("sqlite_")}
