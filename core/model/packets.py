"""What a query returns: one retrieved memory with everything an agent needs to judge it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from deltacore.model.base import FROZEN
from deltacore.model.events import Delta, EventKind
from deltacore.model.plans import SchemaStep, Slot
from deltacore.model.scope import Scope, Scoped
from deltacore.model.trust import Namespace


class MemoryFlag(StrEnum):
    """Warnings attached to a retrieved memory."""

    STALE = "stale"
    CONTRADICTED = "contradicted"
    TAINTED = "tainted"
    SYNTHETIC = "synthetic"
    UNVERIFIED = "unverified"
    SCHEMA_DRIFT = "schema_drift"
    """Learned under a tool schema that has since changed (E04)."""
    UNSTABLE = "unstable"
    """Its utility oscillates; it is waiting for review."""
    SUPERSEDED = "superseded"
    """The fact it states was replaced by a newer value (``MemoryPacket.superseded_by``)."""
    AMBIGUOUS = "ambiguous"
    """Its subject's name reads like another subject's ("Ana" / "Anna", "api-staging" /
    "api-production"; E06): the two are kept apart, ``belief_hint`` names the other one."""
    DEGRADED = "degraded"
    """The fact it states was last observed before a distribution shift (E07): the world it
    describes may have moved on."""
    LOW_FIDELITY = "low_fidelity"
    """A schema packet whose episodes no longer bear it out: its fidelity to them is under the
    consolidation floor (``ConsolidationPolicy.fidelity_floor``, 0.7), as REM's audit reports."""


class PacketKind(StrEnum):
    """What a packet is when it is not one stored event (``MemoryPacket.kind``)."""

    SCHEMA = "schema"
    """A learned plan pattern with the episodes behind it (the ``schema`` router)."""


class SchemaMatch(BaseModel):
    """What a schema packet carries beside its text: the schema and the evidence behind it,
    read live from the episodes that survive (erased or quarantined ones never count)."""

    model_config = FROZEN

    schema_id: str
    version: int
    provenance: str = "LEARNED"
    """``LEARNED`` (from this store's episodes) or ``PRIOR`` (imported)."""
    kind: str | None = None
    """The task kind it was learned for."""
    steps: tuple[SchemaStep, ...] = ()
    slots: tuple[Slot, ...] = ()
    successes: int = 0
    failures: int = 0
    transient_failures: int = 0
    probability: float = 0.5
    """Posterior mean success rate: the schema's prior plus its supporting episodes' outcomes."""
    fidelity: float | None = None
    """Fidelity to its supporting episodes (REM's ``steps × rate``); None with no episode."""
    low_fidelity: bool = False
    episode_ids: tuple[str, ...] = ()
    """The supporting episodes (newest first, at most 20) in the query's scope."""
    event_ids: tuple[str, ...] = ()
    """The tool calls of those episodes that make up the pattern (their deltas are the
    packet's ``deltas`` and ``provenance``)."""
    similarity: float = 0.0
    """Cosine of the query to the schema's nearest trigger text."""


class MemoryPacket(Scoped):
    """One retrieved memory, with everything an agent needs to judge it."""

    model_config = FROZEN

    id: str
    """The id of the event this memory is (a schema packet: ``"schema:<schema_id>"``)."""
    text: str
    kind: EventKind | PacketKind
    """The event's kind, or :attr:`PacketKind.SCHEMA` for a schema packet (``schema_match``)."""
    ts: datetime
    score: float
    """Fused relevance score (higher is better)."""
    routers: dict[str, int] = Field(default_factory=dict)
    """Router name -> rank (1-based) at which that router found this memory."""
    actor: str | None = None
    role: str | None = None
    scope: Scope = Field(default_factory=Scope)
    """The memory's scope (flat: ``tenant``, ``agent_id``, ``user_id``, ``session_id``)."""
    episode_id: str | None = None
    tool_name: str | None = None
    entities: tuple[str, ...] = ()
    deltas: tuple[Delta, ...] = ()
    """Supporting deltas."""
    provenance: tuple[str, ...] = ()
    """Ancestor delta ids, nearest first."""
    confidence: float = 1.0
    trust: float = 1.0
    utility: float = 0.5
    namespace: Namespace = Namespace.TRUSTED
    flags: frozenset[MemoryFlag] = frozenset()
    token_cost: int = 0
    """Tokens this memory costs in a prompt (tiktoken ``cl100k_base``)."""
    meta: dict[str, Any] = Field(default_factory=dict)
    # ---- beliefs (Layer 3): set when the memory states a fact the store tracks
    belief_confidence: float | None = None
    """How much the store believes what this memory states, in [0, 1], at the query's time."""
    superseded_by: str | None = None
    """Id of the fact that replaced this memory's fact (``DeltaCore.history`` lists both)."""
    current_value: str | None = None
    """The slot's value now, when this memory's value was superseded."""
    conflict: dict[str, float] = Field(default_factory=dict)
    """Competing values of an open conflict about this memory's fact, with their belief weights."""
    belief_hint: str | None = None
    """What to do before relying on it (``"re-observe before acting: …"`` when STALE)."""
    # ---- schemas (Layer 5): set on a packet of the ``schema`` router
    schema_match: SchemaMatch | None = None
    """The schema this packet is, with its statistics and supporting episodes (kind ``schema``)."""

    @property
    def is_schema(self) -> bool:
        return self.kind is PacketKind.SCHEMA

    @property
    def superseded(self) -> bool:
        return MemoryFlag.SUPERSEDED in self.flags

    @property
    def stale(self) -> bool:
        return MemoryFlag.STALE in self.flags

    @property
    def conflicted(self) -> bool:
        return MemoryFlag.CONTRADICTED in self.flags

    @property
    def tainted(self) -> bool:
        return MemoryFlag.TAINTED in self.flags
