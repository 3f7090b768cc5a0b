"""A closed ``DeltaCore`` refuses every call with a clear error.

After ``close()`` (or the end of a ``with`` block) the connections, the vector index and the
worker threads are gone; a call would otherwise fail deep inside SQLAlchemy or Chroma, or worse,
half-work on a reopened pool. Every public attribute of a closed store raises
:class:`~deltacore.errors.StoreClosedError` instead, by construction, so a method added later is
covered without remembering to check: ``close()`` moves the instance to a subclass of its own
class (made once per class) in which every public name is a property that raises. An open store
pays nothing for this, as no attribute lookup on it goes through a guard.
"""

from __future__ import annotations

from typing import Any

from deltacore.errors import StoreClosedError

# Still answer on a closed store: closing again is a no-op; the settings are plain data.
_ALWAYS_OPEN = frozenset({"close", "config", "open"})

_CLOSED_CLASSES: dict[tuple[type, frozenset[str]], type] = {}


def _refusal(name: str) -> property:
    def refuse(self: Any) -> Any:
        raise StoreClosedError(
            f"DeltaCore.{name}: this store is closed (close() was called or its `with` block ended); "
            "open it again with DeltaCore.open(...)"
        )

    return property(refuse)


def _closed_class(cls: type, instance_names: frozenset[str]) -> type:
    """``cls`` with every public name (of the class and of the instance) refused."""
    key = (cls, instance_names)
    closed = _CLOSED_CLASSES.get(key)
    if closed is None:
        names = {n for n in dir(cls) if not n.startswith("_")} | instance_names
        body: dict[str, Any] = {name: _refusal(name) for name in names - _ALWAYS_OPEN}
        # Same names as the open class: the type shows in reprs and errors the user reads.
        body.update(
            __module__=cls.__module__,
            __qualname__=cls.__qualname__,
            __doc__=cls.__doc__,
        )
        closed = _CLOSED_CLASSES[key] = type(cls.__name__, (cls,), body)
    return closed


class ClosedGuard:
    """Mixed into :class:`~deltacore.DeltaCore`; ``close()`` calls :meth:`_refuse_calls`."""

    _closed: bool = False

    def _refuse_calls(self) -> None:
        """From now on every public attribute raises :class:`~deltacore.errors.StoreClosedError`.
        The properties of the closed class take precedence over instance attributes (they are
        data descriptors), so a public instance attribute is refused too."""
        self._closed = True
        instance_names = frozenset(n for n in vars(self) if not n.startswith("_"))
        self.__class__ = _closed_class(type(self), instance_names)
