"""What learning reports: credit and utility updates, review items, tool-schema drift, propagation, decisions."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deltacore.errors import SchemaDrift
from deltacore.model.events import Rejection


class CreditUpdate(BaseModel):
    """How one outcome or feedback moved one delta's utility."""

    model_config = ConfigDict(frozen=True)

    delta_id: str
    event_id: str
    index: int | None
    """The step's position in the episode (0 = first); None for a memory retrieved during it."""
    weight: float
    """Credit weight in [0, 1] (the terminal step has 1; see ``deltacore.delta.credit``)."""
    credit: float
    """``reward · weight``."""
    share: float
    """Fraction of the episode's credit (0 for retrieved memories, which are outside it)."""
    on_path: bool
    """The outcome depended on this step (causal ancestor of the terminal step)."""
    necessary: bool
    predicted: float
    """Utility before the update (decayed to now)."""
    utility: float
    """Utility after the update."""
    step: float
    """Signed change of utility (the gradient kept in the history)."""
    unstable: bool = False
    """This update made the delta's utility oscillate: flagged and queued for review."""


class OutcomeReport(BaseModel):
    """What :meth:`DeltaCore.record_outcome` (or ``feedback``) learned."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    episode_id: str | None
    reward: float
    updates: list[CreditUpdate]
    """Episode steps in order, then retrieved memories."""
    review_items: list[int] = Field(default_factory=list)
    """Review queue items opened by this outcome (UNSTABLE deltas)."""

    def update_for(self, event_id: str) -> CreditUpdate:
        """The update of one event's delta."""
        for item in self.updates:
            if item.event_id == event_id:
                return item
        raise KeyError(event_id)


class ReviewItem(BaseModel):
    """Something that needs a person: an UNSTABLE utility, a failed migration, …"""

    model_config = ConfigDict(frozen=True)

    id: int
    tenant: str
    kind: str
    delta_id: str | None = None
    event_id: str | None = None
    reason: str
    payload: dict[str, Any] = Field(default_factory=dict)
    created: datetime
    resolved_at: datetime | None = None
    resolution: str | None = None


class ToolDrift(BaseModel):
    """One tool's schema changed (E04): which deltas it affected and what became of them."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    tool: str
    old_hashes: list[str]
    """Schema hashes the affected deltas were learned under."""
    new_hash: str
    affected: list[str] = Field(default_factory=list)
    """Delta ids learned under an older schema: demoted and flagged ``schema_drift``."""
    migrated: list[str] = Field(default_factory=list)
    """Affected deltas whose arguments were migrated to the new schema."""
    failed: list[str] = Field(default_factory=list)
    """Affected deltas whose arguments could not be migrated: queued for review."""
    mapping: dict[str, str] = Field(default_factory=dict)
    """Old parameter name -> new one, for the renames the migration found."""
    review_items: list[int] = Field(default_factory=list)

    def error(self) -> SchemaDrift:
        """This drift as a :class:`~deltacore.errors.SchemaDrift` (E04), for callers that want to raise it."""
        return SchemaDrift(
            f"tool {self.tool!r} changed its schema ({', '.join(self.old_hashes) or '?'} -> {self.new_hash}): "
            f"{len(self.affected)} deltas demoted, {len(self.migrated)} migrated, {len(self.failed)} queued for review",
            tool=self.tool,
            old_hashes=self.old_hashes,
            new_hash=self.new_hash,
            affected=self.affected,
            failed=self.failed,
        )


class DriftReport(BaseModel):
    """What :meth:`DeltaCore.observe_tools` found."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    tools: list[str]
    """Tools observed, in the order given."""
    new_versions: list[str] = Field(default_factory=list)
    """Tools whose schema was not known in this version before."""
    drifts: list[ToolDrift] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    """Tool specs that could not be read (the others were still observed)."""

    @property
    def drifted(self) -> bool:
        return bool(self.drifts)


class PropagationReport(BaseModel):
    """What an exception did to the provenance graph (:meth:`DeltaCore.propagate`)."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    origin: str
    """The delta the exception happened at."""
    exception: str
    """``poison``, ``contradiction`` or ``drift``."""
    flag: str
    """The flag set on each marked delta (``tainted``, ``contradicted``, ``schema_drift``)."""
    marked: list[str]
    """Delta ids marked (the origin first), breadth-first along the rule's edges."""


class Decision(BaseModel):
    """A tool decision taken before in a similar situation, and how it went.

    :meth:`DeltaCore.recall_decisions` returns what worked (best first) and what failed
    (flagged ``failed``, after them), so an agent can reuse one and avoid the other.
    """

    model_config = ConfigDict(frozen=True)

    tool: str | None
    action: str
    """The delta's action (``"call deploy"``)."""
    args: dict[str, Any]
    """The argument pattern to use: migrated to the tool's current schema when a migration succeeded."""
    original_args: dict[str, Any] | None = None
    """The arguments as originally called (set when ``args`` were migrated)."""
    outcome: Literal["worked", "failed", "unknown"]
    expected_reward: float
    """In [-1, 1]: the evidence-weighted reward this decision led to in similar situations."""
    confidence: float
    """In [0, 1]: how much evidence backs ``expected_reward`` (lower for a drifted schema)."""
    utility: float
    """Learned utility of the decision's deltas (similarity-weighted mean, decayed to now)."""
    trigger: str
    """The situation the decision was taken in (the episode's task, or the step that prompted it)."""
    similarity: float
    """Cosine similarity of ``trigger`` to the context asked about."""
    schema_hash: str | None = None
    """The tool schema the decision was learned under."""
    schema_current: bool | None = None
    """Whether that schema is still the tool's latest one (None when the tool has no schema)."""
    migrated: bool = False
    flags: list[str] = Field(default_factory=list)
    """``failed``, ``schema_drift``, ``migrated``, ``migration_failed``, ``unstable``, ``tainted``…"""
    evidence: int = 0
    """How many earlier calls with this tool and argument pattern back it."""
    worked_count: int = 0
    failed_count: int = 0
    event_id: str
    """The representative call (the most similar one, preferring the current schema)."""
    delta_id: str
    episode_id: str | None = None
    score: float = 0.0
    """The ranking score (similarity × value): higher is a better choice."""
