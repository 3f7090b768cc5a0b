"""The records that flow through DeltaCore: plain, immutable data.

Behaviour lives in the layer that owns it (``ingest``, ``delta``, ``retrieval``…); these classes
only validate their own fields. Inputs (:class:`Event`, :class:`QueryCriteria`) accept plain
dicts through ``model_validate`` so JSON lines and framework payloads map onto them directly.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from deltacore.errors import SchemaDrift


def new_id() -> str:
    """A fresh random id (32 hex characters)."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken to be UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


class EventKind(StrEnum):
    """What an event is. Tool calls and results carry tool name, arguments and schema."""

    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    OBSERVATION = "observation"
    FACT = "fact"
    OUTCOME = "outcome"
    FEEDBACK = "feedback"


class Channel(StrEnum):
    """Where a write really came from, set by the caller or adapter, never by the content."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    DOCUMENT = "document"
    PEER = "peer"
    SYSTEM = "system"


class Namespace(StrEnum):
    """Trust namespace of a stored item (Layer 0 assigns it)."""

    TRUSTED = "trusted"
    UNVERIFIED = "unverified"
    QUARANTINE = "quarantine"
    SYNTHETIC = "synthetic"


class TrustAction(StrEnum):
    """What the trust gateway did with a write (the seed's routing of a trust score)."""

    ACCEPT = "accept"
    """Fast path (score >= ``TrustPolicy.fast_path``): stored in its channel's namespace."""
    TAG = "tag"
    """Slow path (score >= ``TrustPolicy.slow_path``): stored UNVERIFIED, with a trust tag."""
    QUARANTINE = "quarantine"
    """Stored in QUARANTINE: never retrieved without an explicit override, waiting for review."""
    BLOCK = "block"
    """Not stored (E01 playbook: the source is penalised and its recent writes quarantined)."""


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


_FROZEN = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


class Event(BaseModel):
    """One thing that happened to or in an agent: the unit of ingestion.

    >>> Event(text="deploy api to staging", kind="tool_call", tool_name="deploy",
    ...       tool_args={"service": "api"}, episode_id="run-1").kind
    <EventKind.TOOL_CALL: 'tool_call'>
    """

    model_config = _FROZEN

    id: str = Field(default_factory=new_id, min_length=1, max_length=128)
    """Stable id; give your own to make replays idempotent."""
    ts: datetime = Field(default_factory=utc_now)
    """When it happened (naive = UTC)."""
    kind: EventKind = EventKind.MESSAGE
    text: str = ""
    """What was said, observed or returned. Tool calls may leave it empty."""
    role: str | None = None
    """Chat role: user, assistant, system, tool."""
    actor: str | None = None
    """Who produced it: a speaker, an agent name, a tool."""
    source: str | None = None
    """Identity of the writer for provenance and reputation (e.g. ``"user:42"``)."""
    tenant: str = Field(default="default", min_length=1, max_length=128)
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    episode_id: str | None = None
    """The run this event belongs to; steps of one episode are causally chained."""
    parent_ids: tuple[str, ...] = ()
    """Events this one was caused by (a tool result's call, a reply's question)."""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    tool_name: str | None = None
    tool_args: dict[str, Any] | None = None
    tool_schema: dict[str, Any] | None = None
    """The tool's JSON schema as offered to the model; hashed into ``tool_schema_hash``."""
    tool_schema_hash: str | None = None
    entities: tuple[str, ...] = ()
    """People, tools, services this event is about (used for lookup and deletion)."""
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("ts")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    @field_validator("parent_ids", "entities", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        return value

    @field_validator("meta")
    @classmethod
    def _fact_fields(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if info.data.get("kind") is EventKind.FACT:
            _check_fact_fields(value)
        return value

    @model_validator(mode="after")
    def _has_content(self) -> Event:
        if not self.text.strip() and not self.tool_name:
            raise ValueError("text is empty: give the event some text (or a tool_name for a tool call)")
        if self.kind in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT) and not self.tool_name:
            raise ValueError(f"tool_name is required for kind '{self.kind.value}'")
        return self


_FACT_ROLES = (("subject",), ("attribute", "predicate"), ("value", "object"))


def _check_fact_fields(meta: dict[str, Any]) -> None:
    """A fact event that names a subject or an attribute in ``meta`` must name all three (a
    ``value`` alone is an adapter's payload, e.g. the LangGraph store's)."""
    present = [any(meta.get(key) not in (None, "") for key in keys) for keys in _FACT_ROLES]
    if (present[0] or present[1]) and not all(present):
        missing = _FACT_ROLES[present.index(False)][0]
        raise ValueError(
            f"meta.{missing} is missing: a fact event states meta.subject, meta.attribute and meta.value together"
        )


class Delta(BaseModel):
    """What changed and why: the causal record extracted from one event."""

    model_config = _FROZEN

    id: str
    event_id: str
    tenant: str
    ts: datetime
    kind: EventKind
    trigger: str
    """What prompted it (the parent step, or the event's role/actor)."""
    action: str
    """What was done (``"call deploy"``, ``"say"``, ``"observe"``)."""
    result: str
    """What came of it (the text, truncated)."""
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    utility: float = 0.5
    """Utility decayed to the time it was read (``utility * exp(-λ·age)``)."""
    credit: float = 0.0
    parent_ids: tuple[str, ...] = ()
    """Direct causal parents (delta ids); walk them with ``query_causal``."""
    conflict_flags: tuple[str, ...] = ()
    namespace: Namespace = Namespace.TRUSTED
    tool_name: str | None = None
    tool_schema_hash: str | None = None
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    episode_id: str | None = None


class MemoryPacket(BaseModel):
    """One retrieved memory, with everything an agent needs to judge it."""

    model_config = _FROZEN

    id: str
    """The id of the event this memory is."""
    text: str
    kind: EventKind
    ts: datetime
    score: float
    """Fused relevance score (higher is better)."""
    routers: dict[str, int] = Field(default_factory=dict)
    """Router name -> rank (1-based) at which that router found this memory."""
    actor: str | None = None
    role: str | None = None
    tenant: str = "default"
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
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


class QueryCriteria(BaseModel):
    """What to retrieve: the seed's query fields.

    >>> QueryCriteria(text="what broke the deploy?", top_k=5, max_tokens=300).top_k
    5
    """

    model_config = _FROZEN

    text: str | None = None
    """Free text for semantic and lexical search."""
    entity: str | None = None
    """Only memories about this entity (entities list, actor or user)."""
    action: str | None = None
    """Only memories whose action/tool matches (a tool name)."""
    outcome: str | None = None
    """Only memories whose delta result mentions this outcome (e.g. ``"error"``)."""
    kinds: tuple[EventKind, ...] = ()
    time_range: tuple[datetime | None, datetime | None] | None = None
    min_utility: float | None = Field(default=None, ge=0.0)
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    min_trust: float | None = Field(default=None, ge=0.0, le=1.0)
    exclude_stale: bool = False
    exclude_tainted: bool = True
    include_quarantined: bool = False
    """Quarantined items never appear unless this is set explicitly."""
    for_decision: bool = False
    """The answer will drive a decision: only memories that are trusted, or corroborated by an
    independent source, are returned (others are otherwise only ranked lower)."""
    tenant: str = "default"
    agent_filter: tuple[str, ...] = ()
    user_id: str | None = None
    session_id: str | None = None
    episode_id: str | None = None
    exclude_episode_id: str | None = None
    """Leave out one episode (an adapter excludes the run that is asking)."""
    top_k: int = Field(default=10, ge=1, le=1000)
    routers: tuple[str, ...] = ()
    """Router names to use; empty = the default set."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Token budget: return the best memories that fit."""
    include_deltas: bool = True
    as_of: datetime | None = None
    """Answer as it stood then: the facts valid at this time rank first, memories written
    after it are left out unless they state a fact valid then (naive = UTC)."""

    @field_validator("as_of")
    @classmethod
    def _as_of_utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value) if value is not None else None

    @field_validator("agent_filter", "kinds", "routers", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        return value

    @field_validator("time_range")
    @classmethod
    def _range(cls, value: Any) -> Any:
        if value is None:
            return None
        start, end = (as_utc(v) if v is not None else None for v in value)
        if start is not None and end is not None and start > end:
            raise ValueError("time_range start is after its end")
        return (start, end)


class Rejection(BaseModel):
    """Why one event of a batch was not stored."""

    model_config = _FROZEN

    index: int
    field: str
    reason: str
    event_id: str | None = None


class TrustDecision(BaseModel):
    """What the trust gateway decided about one event of a batch (for the operator only)."""

    model_config = ConfigDict(frozen=True)

    index: int
    """Position of the event in the batch."""
    event_id: str
    source: str | None = None
    score: float
    """Trust score in [0, 1]."""
    action: TrustAction
    namespace: Namespace | None = None
    """Where it was stored (None when blocked)."""
    reasons: tuple[str, ...] = ()
    """Why the score is below 1, e.g. ``("instruction aimed at the agent",)``."""
    signals: dict[str, float] = Field(default_factory=dict)
    """Each signal's value in [0, 1] (1 = no doubt)."""


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

    @property
    def ok(self) -> bool:
        return not self.rejected


class SecurityEvent(BaseModel):
    """One entry of the security-event log (trust decisions, E01, honeypots, reviews)."""

    model_config = ConfigDict(frozen=True)

    id: int
    ts: datetime
    tenant: str
    kind: str
    """``TRUST_DECISION``, ``POISON_DETECTED`` (E01), ``SOURCE_BLACKLISTED``,
    ``HONEYPOT_TRIGGERED``, ``QUARANTINE_REVIEW``."""
    source: str | None = None
    event_id: str | None = None
    score: float | None = None
    action: str | None = None
    reasons: tuple[str, ...] = ()
    payload: dict[str, Any] = Field(default_factory=dict)


class QuarantineReview(BaseModel):
    """What :meth:`DeltaCore.quarantine_review` did."""

    model_config = ConfigDict(frozen=True)

    verdict: str
    event_ids: list[str]
    """Quarantined events the verdict was applied to."""
    not_quarantined: list[str] = Field(default_factory=list)
    """Ids given that were not (or no longer) in quarantine: left unchanged."""
    namespace: Namespace | None = None
    """Where released events now are; None when they were deleted or stay quarantined."""


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
        """This drift as the seed's E04 exception, for callers that want to raise it."""
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


IngestResult.model_rebuild()
