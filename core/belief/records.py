"""The belief layer's records: facts in time, the conflicts between them, and beliefs.

Plain, immutable data (behaviour lives in :mod:`deltacore.belief.layer`). A :class:`Fact` is
one value of one *slot* (subject + attribute) with a **valid time** (``valid_from`` …
``valid_until``: when it was true in the world) and a **record time** (``recorded_at``: when the
store learned it). Facts are never deleted by the contradiction policy: a replaced value keeps
its row, closed by ``valid_until`` and pointing at its replacement with ``superseded_by``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

_FROZEN = ConfigDict(frozen=True, extra="forbid")

UNKNOWN = "UNKNOWN"
"""The state a belief's probability mass bleeds to as its observation ages."""


class FactStatus(StrEnum):
    """Where a fact stands in its slot."""

    CURRENT = "current"
    """The slot's value now (valid_until open)."""
    CONTESTED = "contested"
    """One side of an open conflict: still believed, with a belief weight below 1."""
    SUPERSEDED = "superseded"
    """Replaced by a newer value (``superseded_by``); true from valid_from to valid_until."""
    HISTORY = "history"
    """Arrived after a newer value was already known (out of order): true in its own period only."""
    REJECTED = "rejected"
    """Lost a conflict: the value it claimed was never confirmed."""


class ConflictResolution(StrEnum):
    PENDING = "pending"
    AUTO_RESOLVED = "auto_resolved"
    """Later independent observations confirmed one side."""
    HUMAN_RESOLVED = "human_resolved"


class Fact(BaseModel):
    """One value of one slot, with its valid time, record time and provenance."""

    model_config = _FROZEN

    id: str
    """Derived from the first event that stated it and the slot: re-deriving is harmless."""
    tenant: str
    agent_id: str | None = None
    user_id: str | None = None
    subject: str
    """Canonical subject id (casefolded name; first person resolved to the speaker)."""
    subject_name: str
    """The subject as first written."""
    attribute: str
    """Normalised attribute (``"home city"``, ``"employer"``, ``"status"``)."""
    attribute_class: str = "stable"
    """``stable`` facts do not decay; observation classes (``status``, ``location``) do."""
    value: str
    """The value as first written."""
    value_key: str
    """The normalised value: two statements with the same key corroborate each other."""
    valid_from: datetime
    valid_until: datetime | None = None
    recorded_at: datetime
    last_observed: datetime
    """Latest event time of a statement of this value (staleness runs from here)."""
    confidence: float = Field(ge=0.0, le=1.0)
    """How sure the extraction and the writer were (the event's confidence × the rule's)."""
    trust: float = Field(ge=0.0, le=1.0)
    """The trust gateway's score of the first statement."""
    weight: float = Field(ge=0.0, le=1.0)
    """Belief weight within the slot (1 when uncontested)."""
    source: str | None = None
    namespace: str = "trusted"
    event_ids: tuple[str, ...] = ()
    """Every event that stated this value (provenance; what a forget must find)."""
    observations: int = 1
    status: FactStatus = FactStatus.CURRENT
    superseded_by: str | None = None
    method: str = "explicit"
    """How it was found: ``explicit`` (a fact event's fields), ``tool_result``, ``rule:<name>``."""

    @property
    def is_open(self) -> bool:
        return self.valid_until is None and self.status in (FactStatus.CURRENT, FactStatus.CONTESTED)


class ConflictRecord(BaseModel):
    """Two values of one slot that the policy could not settle (E03, TEMPORAL_CONTRADICTION)."""

    model_config = _FROZEN

    id: str
    tenant: str
    type: str = "TEMPORAL_CONTRADICTION"
    subject: str
    attribute: str
    old_fact_id: str
    new_fact_id: str
    old_value: str
    new_value: str
    old_belief: float
    new_belief: float
    resolution: ConflictResolution = ConflictResolution.PENDING
    winner_fact_id: str | None = None
    note: str | None = None
    created_at: datetime
    resolved_at: datetime | None = None


class SlotBelief(BaseModel):
    """What the store believes about one attribute of an entity at one time."""

    model_config = _FROZEN

    attribute: str
    attribute_class: str
    distribution: dict[str, float]
    """Value -> probability, with :data:`UNKNOWN`; sums to 1."""
    value: str | None
    """The most probable value (None when UNKNOWN is the most probable)."""
    fact_id: str | None
    confidence: float
    """Probability of ``value`` after staleness decay."""
    last_observed: datetime | None
    stale: bool = False
    """Confidence below the policy's threshold (E05): re-observe before acting."""
    hint: str | None = None
    conflict_id: str | None = None
    """The open conflict of this slot, if any."""


class BeliefState(BaseModel):
    """What the store believes about one entity at one time (:meth:`DeltaCore.query_belief`)."""

    model_config = _FROZEN

    entity: str
    """Canonical id of the entity asked about."""
    tenant: str
    at: datetime
    slots: dict[str, SlotBelief] = Field(default_factory=dict)
    """Attribute -> belief."""
    last_observation: datetime | None = None
    confidence: float = 0.0
    """The lowest slot confidence (what an agent acting on all of it can count on)."""
    ambiguous_with: tuple[str, ...] = ()
    """Other subjects whose names read like this one ("anna" for "ana", "api-staging" for
    "api-production"): kept apart, never merged (E06). Check which one is meant."""

    @property
    def stale(self) -> bool:
        return any(slot.stale for slot in self.slots.values())

    def value(self, attribute: str) -> str | None:
        slot = self.slots.get(attribute)
        return slot.value if slot is not None else None
