"""What the store reports back: an ingest's outcome, a delete, a causal walk, the store's counts."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from deltacore.model.events import Delta, Rejection
from deltacore.model.learning import ToolDrift
from deltacore.model.trust import TrustDecision


class IngestResult(BaseModel):
    """What happened to each event of a batch.

    ``event_ids[i]`` is the stored id of input ``i`` (the existing id for a duplicate) or
    ``None`` when it was rejected; ``rejected`` says why.
    """

    model_config = ConfigDict(frozen=True)

    event_ids: list[str | None]
    stored: list[str] = Field(default_factory=list)
    duplicates: list[str] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    delta_ids: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    causal_loops: list[list[str]] = Field(default_factory=list)
    """Cycles found among the new deltas' parents (E02), each broken at its weakest edge."""
    schema_drifts: list[ToolDrift] = Field(default_factory=list)
    """Tools these events were called with under a changed schema (E04), with what was done."""
    decisions: list[TrustDecision] = Field(default_factory=list)
    """The trust gateway's decision for each new event, in input order (duplicates and invalid
    events have none). Meant for the operator: never show it to the writer."""
    quarantined: list[str] = Field(default_factory=list)
    """Ids stored in QUARANTINE by this batch (its own events only)."""
    blocked: list[str] = Field(default_factory=list)
    """Ids of events that were not stored because the gateway blocked them."""
    staged: list[str] = Field(default_factory=list)
    """Ids acknowledged into the durable inbox by ``ingest(..., staged=True)``, not yet through
    the write path: ``stored``, ``delta_ids``, ``decisions``, ``quarantined``, ``blocked``,
    ``warnings`` and ``schema_drifts`` stay empty for them (what the gateway and the pipeline
    decide is not known yet). Every other call of the store applies them before it reads."""

    @property
    def ok(self) -> bool:
        return not self.rejected


class CausalChain(BaseModel):
    """Deltas reached from one delta by walking provenance, with the edges walked."""

    model_config = ConfigDict(frozen=True)

    root: str
    deltas: dict[str, Delta]
    edges: list[tuple[str, str]]
    """(child, parent) pairs."""
    depth: int


class DeleteResult(BaseModel):
    """What a delete removed (rows, full-text entries and vectors go together)."""

    model_config = ConfigDict(frozen=True)

    event_ids: list[str]
    deltas_removed: int
    links_removed: int


class StoreStats(BaseModel):
    """Counts and health of a store."""

    model_config = ConfigDict(frozen=True)

    events: int
    deltas: int
    links: int
    outbox_pending: int
    vectors: int | None
    """Vectors in the index for this tenant; ``None`` when this process does not own it."""
    tenants: list[str]
    backend: str
    vector_backend: str
    embedder: str | None
    problems: list[str] = []
    """Faults found when the store opened and not repaired (a vector-index gap, recovery that
    could not finish); empty when healthy. The same are logged and kept as system events."""
