"""Versions of a memory: what ``DeltaCore.update`` reports and what ``versions`` lists."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from deltacore.model.events import Event
from deltacore.model.results import IngestResult
from deltacore.model.trust import Namespace, TrustDecision


class MemoryVersion(BaseModel):
    """One version of a memory (``versions()`` lists them oldest first)."""

    model_config = ConfigDict(frozen=True)

    version: int
    """1 for the first write, then one more per update."""
    event: Event
    """The stored event of this version (its own id)."""
    namespace: Namespace
    """Where the gateway put it (a quarantined update never becomes the current version)."""
    trust: float
    replaced_by: str | None = None
    """The id of the version that replaced this one; None for the current version."""
    replaced_at: datetime | None = None

    @property
    def current(self) -> bool:
        return self.replaced_by is None


class UpdateResult(BaseModel):
    """What ``DeltaCore.update`` did.

    ``memory_id`` is the id to use from now on (the new version's when it replaced the old one,
    else the unchanged current version's)."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    previous_id: str
    """The version the update was applied to (the current one when it was called)."""
    new_id: str | None
    """The id of the version written (None when nothing changed, so nothing was written)."""
    replaced: bool
    """True when the new version is now the memory and ``previous_id`` is hidden from retrieval.
    False when nothing changed, or when the gateway quarantined or blocked the new text (the
    previous version then stays current)."""
    decision: TrustDecision | None = None
    """The trust gateway's decision about the new text (operator-facing, like ``IngestResult``)."""
    ingest: IngestResult | None = None
    """The write path's report of the new version (warnings, beliefs, drift)."""
