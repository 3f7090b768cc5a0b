"""What every LangChain adapter module needs from the engine: one handle, listings, stable ids.

The adapter classes accept either :class:`~deltacore.DeltaCore` or
:class:`~deltacore.AsyncDeltaCore`; they keep the synchronous store and run it in a worker
thread from their async methods (which is exactly what ``AsyncDeltaCore`` does).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from deltacore.engine import AsyncDeltaCore, DeltaCore
from deltacore.errors import InvalidEventError
from deltacore.model import IngestResult, MemoryPacket

FRAMEWORK = "langchain"
LISTING_PAGE = 1000
"""The engine's ``top_k`` ceiling: listings page through time in pages of this size."""
MAX_ID = 128


def sync_memory(memory: DeltaCore | AsyncDeltaCore) -> DeltaCore:
    """The synchronous store behind ``memory``."""
    if isinstance(memory, AsyncDeltaCore):
        return memory.sync
    if isinstance(memory, DeltaCore):
        return memory
    raise TypeError(f"memory must be a DeltaCore or AsyncDeltaCore, got {type(memory).__name__}")


def stable_id(prefix: str, *parts: Any) -> str:
    """A deterministic event id for a framework key (so a re-put or a replay lands on one id)."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:40]
    return f"{prefix}:{digest}"


def bounded_id(raw: str) -> str:
    """``raw`` when it fits the engine's id limit, else a stable hash of it."""
    return raw if len(raw) <= MAX_ID else stable_id("lc", raw)


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data (event ``meta`` is stored as JSON)."""
    return json.loads(json.dumps(value, default=str))


def raise_rejections(result: IngestResult) -> IngestResult:
    """Turn the first rejected event of a batch into the caller's error."""
    if result.rejected:
        rejection = result.rejected[0]
        raise InvalidEventError(rejection.field, rejection.reason, rejection.index)
    return result


def list_packets(memory: DeltaCore, **criteria: Any) -> list[MemoryPacket]:
    """Every memory matching ``criteria``, oldest first.

    The engine has no listing call, so this pages through the recency router by time: each page
    is the newest ``LISTING_PAGE`` memories at or before the oldest one seen so far.
    """
    criteria.setdefault("exclude_tainted", False)
    criteria.update(text=None, top_k=LISTING_PAGE, include_deltas=False, routers=("recency",))
    newest_first: list[MemoryPacket] = []
    seen: set[str] = set()
    end: datetime | None = None
    while True:
        page = memory.query(time_range=(None, end) if end else None, **criteria)
        fresh = [packet for packet in page if packet.id not in seen]
        newest_first.extend(fresh)
        seen.update(packet.id for packet in fresh)
        if len(page) < LISTING_PAGE or not fresh:
            break
        end = min(packet.ts for packet in page)
    newest_first.reverse()
    return newest_first
