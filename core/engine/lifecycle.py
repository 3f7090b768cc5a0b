"""A closed ``DeltaCore`` refuses every call with a clear error.

After ``close()`` (or the end of a ``with`` block) the connections, the vector index and the
worker threads are gone; a call would otherwise fail deep inside SQLAlchemy or Chroma, or worse,
half-work on a reopened pool. Every public attribute of a closed store raises
:class:`~deltacore.errors.StoreClosedError` instead, by construction (one guard on attribute
access), so a method added later is covered without remembering to check.
"""

from __future__ import annotations

from typing import Any

from deltacore.errors import StoreClosedError

# Still answer on a closed store: closing again is a no-op; the settings are plain data.
_ALWAYS_OPEN = frozenset({"close", "config", "open"})


class ClosedGuard:
    """Mixed into :class:`~deltacore.DeltaCore` first; ``close()`` sets ``_closed``."""

    _closed: bool = False

    def __getattribute__(self, name: str) -> Any:
        if name[0] != "_" and name not in _ALWAYS_OPEN and object.__getattribute__(self, "_closed"):
            raise StoreClosedError(
                f"DeltaCore.{name}: this store is closed (close() was called or its `with` block ended); "
                "open it again with DeltaCore.open(...)"
            )
        return object.__getattribute__(self, name)
