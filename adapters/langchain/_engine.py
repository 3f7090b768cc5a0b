"""The store handle every LangChain adapter class holds.

The adapter classes accept either :class:`~deltacore.DeltaCore` or
:class:`~deltacore.AsyncDeltaCore`; they keep the synchronous store and run it in a worker
thread from their async methods (which is exactly what ``AsyncDeltaCore`` does).
"""

from __future__ import annotations

from deltacore.adapters._shared import MAX_ID, stable_id, sync_store
from deltacore import AsyncDeltaCore, DeltaCore

FRAMEWORK = "langchain"


def sync_memory(memory: DeltaCore | AsyncDeltaCore) -> DeltaCore:
    """The synchronous store behind ``memory`` (a ``TypeError`` for anything else)."""
    return sync_store(memory, "memory")


def bounded_id(raw: str) -> str:
    """``raw`` when it fits the engine's id limit, else a stable hash of it."""
    return raw if len(raw) <= MAX_ID else stable_id("lc", raw)
