"""What to retrieve (:class:`QueryCriteria`), through which routers, within which budget."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from deltacore.model.base import FROZEN, as_utc
from deltacore.model.events import EventKind
from deltacore.model.scope import Scope, Scoped


class RouterName(StrEnum):
    """The routers a query can name in ``QueryCriteria.routers`` (plain strings work too)."""

    SEMANTIC = "semantic"
    LEXICAL = "lexical"
    ENTITY = "entity"
    TEMPORAL = "temporal"
    RECENCY = "recency"
    CAUSAL = "causal"
    UTILITY = "utility"
    BELIEF = "belief"
    SCHEMA = "schema"
    """Learned plan schemas whose trigger matches the query (only when named: a packet that
    is a schema with its supporting episodes, ``MemoryPacket.schema_match``)."""


class PresetName(StrEnum):
    """Named router sets (``deltacore.retrieval.presets``): upper case, so a preset is never
    mistaken for the router it stresses (``ENTITY`` is semantic + lexical + ``entity``)."""

    HYBRID = "HYBRID"
    TEMPORAL = "TEMPORAL"
    CAUSAL_FIRST = "CAUSAL_FIRST"
    ENTITY = "ENTITY"
    UTILITY = "UTILITY"
    RECENT = "RECENT"


class SearchBudget(BaseModel):
    """What one query may spend. The read path fills it from the query and the configuration;
    a governor may hand a tighter one to ``Retriever.query``.

    >>> SearchBudget(candidate_pool=50, max_tokens=400).max_tokens
    400
    """

    model_config = FROZEN

    candidate_pool: int = Field(default=50, ge=1)
    """Candidates each router proposes (and fusion ranks)."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Token budget of the answer; None = the ``top_k`` best."""
    deadline_ms: float | None = Field(default=None, gt=0)
    """Latency the caller can afford, in milliseconds. Carried for a governor to set and
    routers to honour; no router cuts its search short on it yet."""
    routers: tuple[str, ...] | None = None
    """The only routers this query may run (the governor's degradation plan); None = every
    router the query chooses. When none of the query's stage-one routers is allowed, lexical
    (or recency, for a query without text) runs instead."""
    hot_only: bool = False
    """Vector search answers only from the HOT tier (no vector-index or SQL scan): level 3+."""
    level: int = Field(default=0, ge=0, le=5)
    """The degradation level this budget was planned at (for reports; 0 = full operation)."""


class QueryCriteria(Scoped):
    """What to retrieve: the text, the filters and the budget of a query.

    >>> QueryCriteria(text="what broke the deploy?", top_k=5, max_tokens=300).top_k
    5
    """

    model_config = FROZEN
    _flat_layout: ClassVar[tuple[str, ...]] = (
        "text", "entity", "action", "outcome", "kinds", "time_range", "min_utility", "min_confidence", "min_trust",
        "exclude_stale", "exclude_tainted", "include_quarantined", "for_decision", "tenant", "agent_id",
        "agent_filter", "user_id", "session_id", "episode_id", "exclude_episode_id", "top_k", "routers",
        "max_tokens", "include_deltas", "as_of", "include_cold", "distinct",
    )
    _flat_omit_none: ClassVar[tuple[str, ...]] = ("agent_id",)

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
    scope: Scope = Field(default_factory=Scope)
    """Tenant, user and session to search (flat: ``tenant``, ``user_id``, ``session_id``). Its
    ``agent_id``, when set, means ``agent_filter=(agent_id,)``."""
    agent_filter: tuple[str, ...] = ()
    """Only memories of these agents (empty: any agent)."""
    episode_id: str | None = None
    exclude_episode_id: str | None = None
    """Leave out one episode (an adapter excludes the run that is asking)."""
    top_k: int = Field(default=10, ge=1, le=1000)
    routers: tuple[str, ...] = ()
    """Router names (:class:`RouterName`) or presets (:class:`PresetName`) to use; empty = chosen
    from the query. Unknown names are an ``InvalidQueryError`` when the query runs."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Token budget: return the best memories that fit."""
    include_deltas: bool = True
    as_of: datetime | None = None
    """Answer as it stood then: the facts valid at this time rank first, memories written
    after it are left out unless they state a fact valid then (naive = UTC)."""
    include_cold: bool = False
    """Also search the COLD tier (memories consolidation archived to Parquet); their packets
    carry ``meta["tier"] == "cold"``."""
    distinct: bool = True
    """A message or observation stored more than once (the same words, case and spacing aside: a
    line pasted by several people, a notice posted every week) is returned once, as its
    best-ranked copy; the places its copies would take go to other memories. Tool calls, tool
    results and outcomes are never collapsed (the same words with another result are another
    experience). False: every copy competes."""

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

    @field_validator("entity", "agent_filter")
    @classmethod
    def _matchable(cls, value: Any) -> Any:
        # A name with NUL or a lone surrogate can match no stored one; PostgreSQL would fail on it.
        for name in (value,) if isinstance(value, str) else value or ():
            if "\x00" in name:
                raise ValueError("holds a NUL character, which the database cannot store")
            if not name.isascii():
                try:
                    name.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise ValueError(f"holds a lone surrogate at position {exc.start} (not valid Unicode)") from None
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

    @field_validator("agent_filter")
    @classmethod
    def _one_agent_selector(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        scope = info.data.get("scope")
        if value and scope is not None and scope.agent_id is not None:
            raise ValueError("the scope's agent_id selects an agent too: give agent_filter or agent_id, not both")
        return value
