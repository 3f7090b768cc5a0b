"""What a consolidation cycle reports (``DeltaCore.consolidate``) and where consolidation stands
(``DeltaCore.consolidate_status``)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class ConsolidationPhase(StrEnum):
    """Which part of a cycle to run (``None`` runs them all, in this order)."""

    NREM = "nrem"
    """Spindles (recently retrieved memories first), near-duplicate merges, ripples (the
    reconstruction test deciding whether originals may leave live retrieval), and schemas
    extracted, updated and merged from repeated plan patterns."""
    PRUNE = "prune"
    """Memories whose utility decayed under the threshold and that nobody retrieved for a while
    move to the COLD tier (Parquet); nothing is deleted."""
    REM = "rem"
    """The fidelity audit of merged memories against the originals they stand for, and of
    schemas against the episodes that still back them."""


class ConsolidationReport(BaseModel):
    """What one cycle did, and whether it was kept."""

    model_config = ConfigDict(frozen=True)

    cycle_id: str
    tenant: str
    phases: tuple[ConsolidationPhase, ...]
    merged: int = 0
    """New merged memories (each with ``meta["derives_from"]``)."""
    originals_hidden: int = 0
    """Originals that left live retrieval in favour of a merged memory (still readable by id)."""
    pruned: int = 0
    """Memories moved to the COLD tier (``query(..., include_cold=True)`` still finds them)."""
    anchors_kept: int = 0
    """Candidates kept WARM because they are anchors (a fixed 1% of raw events, never archived)."""
    refused_by_guard: int = 0
    """Memories the trust guard kept out of every merge (quarantined, unverified, low trust, …)."""
    slot_conflicts: int = 0
    """Near-duplicate pairs not merged because they state different values of one fact slot."""
    depth_limited: int = 0
    """Merged memories at the compression depth limit: never merged again (E08)."""
    reconstruction_failed: int = 0
    """Merges dropped because the merged memory did not retrieve for an original's own text."""
    fidelity: float | None = None
    """Mean fidelity (cosine of a merged memory to each original it stands for) of this cycle's merges."""
    low_fidelity: int = 0
    """Merged memories (new or audited) under the fidelity floor (0.7 by default)."""
    schemas_created: int = 0
    """Plan patterns seen across episodes that became a schema (version 1) in this cycle."""
    schemas_updated: int = 0
    """Schemas given a new version: what their episodes show changed, or they absorbed a near-duplicate."""
    schemas_merged: int = 0
    """Near-duplicate schemas (same steps pattern) merged into another (``merged_into``; no version removed)."""
    schema_fidelity: float | None = None
    """Mean fidelity of the audited schemas to their surviving episodes (REM)."""
    low_fidelity_schemas: tuple[str, ...] = ()
    """Schemas whose fidelity fell under the floor (0.7 by default)."""
    probes: int = 0
    """Probe queries of the shadow evaluation (retrieval log plus registered probes)."""
    precision_before: float | None = None
    """Probe precision@5 before the cycle (None without probes)."""
    precision_after: float | None = None
    rolled_back: bool = False
    """The cycle made retrieval worse (or failed) and was undone: the store is as before it."""
    reason: str | None = None
    """Why it was rolled back, or why nothing ran."""
    timed_out: bool = False
    """The budget ran out before every candidate was seen; the next cycle resumes (E09)."""
    merge_threshold: float = 0.85
    """The cosine threshold this cycle merged with (raised after a rolled-back cycle)."""
    seconds: float = 0.0
    yields: int = 0
    """Steps of the cycle (probe queries, planning slices, apply transactions) that found a user
    query of this process in flight and waited for it (``ConsolidationPolicy.yield_to_queries``)."""
    yield_seconds: float = 0.0
    """Seconds the cycle spent waiting for user queries, in all (part of ``seconds``)."""
    yield_overruns: int = 0
    """Steps run while a user query was still in flight, because a pacing bound ran out."""
    apply_transactions: int = 0
    """Short transactions the apply used (merges in chunks, then the COLD partition)."""
    notes: tuple[str, ...] = ()


class ConsolidationStatus(BaseModel):
    """Where consolidation stands for a tenant."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    running: bool = False
    """A cycle is running now (in this process or another)."""
    yielding: bool = False
    """A cycle of this process is waiting right now for a user query to finish
    (``ConsolidationPolicy.yield_to_queries``)."""
    automatic: bool = False
    """Cycles start by themselves when a trigger fires (``ConsolidationPolicy.automatic``)."""
    last_cycle: ConsolidationReport | None = None
    last_cycle_at: datetime | None = None
    cycles: int = 0
    rolled_back: int = 0
    events_since_last: int = 0
    minutes_since_last: float | None = None
    utility_variance: float | None = None
    """Variance of the utility steps learned since the last cycle (None: too few to judge)."""
    retrieval_miss_rate: float | None = None
    """Share of this process's queries since the last cycle that returned nothing (None: too few)."""
    shifts_since_last: int = 0
    """Distribution shifts (E07) the belief layer logged for the tenant since the last cycle."""
    due: bool = False
    """A trigger fires now (never on a read-only open)."""
    triggers: tuple[str, ...] = ()
    """Which: ``events``, ``minutes``, ``utility_variance``, ``miss_rate``, ``shift``
    (:mod:`deltacore.consolidation.triggers`)."""
    merged_live: int = 0
    """Merged memories in live retrieval."""
    cold_items: int = 0
    cold_partitions: int = 0
    probes: int = Field(default=0, description="registered probe queries")
