"""What happened: the event an agent writes, the delta extracted from it, and why one was refused."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from deltacore.model.base import FROZEN, as_utc, new_id, utc_now
from deltacore.model.scope import Scope, Scoped
from deltacore.model.trust import Namespace


class EventKind(StrEnum):
    """What an event is. Tool calls and results carry tool name, arguments and schema."""

    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    OBSERVATION = "observation"
    FACT = "fact"
    OUTCOME = "outcome"
    FEEDBACK = "feedback"


class Event(Scoped):
    """One thing that happened to or in an agent: the unit of ingestion.

    >>> Event(text="deploy api to staging", kind="tool_call", tool_name="deploy",
    ...       tool_args={"service": "api"}, episode_id="run-1").kind
    <EventKind.TOOL_CALL: 'tool_call'>
    """

    model_config = FROZEN

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
    """Identity of the writer for provenance and reputation (e.g. ``"user:42"``): a *claim*."""
    scope: Scope = Field(default_factory=Scope)
    """Tenant, agent, user and session; given and dumped as the flat fields ``tenant``,
    ``agent_id``, ``user_id``, ``session_id``."""
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
    # Last: dumps and exports keep the field order they had before principals existed.
    principal: str | None = Field(default=None, max_length=256)
    """Who is actually speaking, as the host authenticated it (its user id, the framework's
    message sender). A claimed voice (``source``, an "as <name>:" in the text) that differs from
    it is an impersonation signal, never a first-party record; ``None``: nothing is authenticated."""

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


class Delta(Scoped):
    """What changed and why: the causal record extracted from one event."""

    model_config = FROZEN
    _flat_layout: ClassVar[tuple[str, ...]] = (
        "id", "event_id", "tenant", "ts", "kind", "trigger", "action", "result", "subject", "predicate", "object",
        "utility", "credit", "parent_ids", "conflict_flags", "namespace", "tool_name", "tool_schema_hash",
        "agent_id", "user_id", "session_id", "episode_id",
    )

    id: str
    event_id: str
    scope: Scope
    """The event's scope (flat: ``tenant``, ``agent_id``, ``user_id``, ``session_id``)."""
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
    episode_id: str | None = None


class Rejection(BaseModel):
    """Why one event of a batch was not stored."""

    model_config = FROZEN

    index: int
    field: str
    reason: str
    event_id: str | None = None
