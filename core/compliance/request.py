"""What a caller asks to forget: :class:`ForgetRequest` and its :class:`ForgetMode`.

A request names *who or what* (a subject with its identifiers, event ids, a source, a scope)
and *how far* the erasure goes (the mode). Every selector is optional but at least one must be
given; they combine with OR, because an erasure request is about a person, and a person's
data is found by any of their names (a subject "Alice Smith" with identifiers
``["alice@x.com", "+33 6 12 34 56 78"]`` finds events that mention either). The scope fields
(``agent_id``, ``user_id``, ``session_id``) select every event of that scope; ``tenant`` bounds
all of it. ``within`` is an AND scope (:class:`ForgetWithin`: agent, user, session and entity
must *all* match): alone it selects every event of that scope (a framework's "clear this
memory"); with other selectors it bounds them, so nothing outside the scope is touched.

A request is validated when built; a mistake raises :class:`InvalidForgetRequestError`
naming the field, so an erasure never "succeeds" on a request that could not match what the
caller meant (an empty request, an unknown mode, a deadline already past).

>>> ForgetRequest(subject="Alice Smith", identifiers=["alice@x.com"]).terms()
('Alice Smith', 'alice@x.com')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from deltacore.errors import DeltaCoreError, first_validation_error
from deltacore.model.base import FROZEN, as_utc, new_id, utc_now

__all__ = ["ForgetMode", "ForgetRequest", "ForgetWithin", "InvalidForgetRequestError", "coerce_requests"]


class InvalidForgetRequestError(DeltaCoreError, ValueError):
    """A forget request is malformed; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}")


class ForgetMode(StrEnum):
    """How far an erasure goes (the seed's ``ForgetScope``)."""

    EVENTS_ONLY = "events_only"
    """The matched events and their own rows (deltas, links, full text, vectors, outbox)."""
    SCHEMAS_ONLY = "schemas_only"
    """Only what was derived from the events (facts, beliefs, schemas); the events stay."""
    FULL = "full"
    """Events, every copy and everything derived, re-derived from what remains; then the
    physical pass on every backend file."""
    VERIFIED = "verified"
    """``FULL``, then the audit (``deltacore.compliance.audit``) whose result the certificate holds."""

    @property
    def erases_events(self) -> bool:
        return self is not ForgetMode.SCHEMAS_ONLY

    @property
    def rederives(self) -> bool:
        return self is not ForgetMode.EVENTS_ONLY

    @property
    def physical(self) -> bool:
        return self in (ForgetMode.FULL, ForgetMode.VERIFIED)


_SELECTORS = ("subject", "identifiers", "event_ids", "source", "agent_id", "user_id", "session_id", "within")
_WITHIN_FIELDS = ("agent_id", "user_id", "session_id", "entity")


class ForgetWithin(BaseModel):
    """An AND scope: an event is inside when *every* given field matches it (inside the
    request's tenant). ``entity`` matches as ``events(entity=…)`` does: the event's entity
    index, its actor or its user id.

    >>> ForgetWithin(user_id="alice", session_id="s1").fields()
    {'user_id': 'alice', 'session_id': 's1'}
    """

    model_config = FROZEN

    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    entity: str | None = None

    @field_validator(*_WITHIN_FIELDS)
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or "\x00" in value):
            raise ValueError("is empty or holds a NUL character; leave it out or give a value")
        return value

    @model_validator(mode="after")
    def _bounded(self) -> ForgetWithin:
        if not self.fields():
            raise ValueError("names no field; give agent_id, user_id, session_id or entity")
        return self

    def fields(self) -> dict[str, str]:
        """The given fields (all must match)."""
        return {name: getattr(self, name) for name in _WITHIN_FIELDS if getattr(self, name) is not None}


class ForgetRequest(BaseModel):
    """One erasure request.

    ``subject`` is the person or entity (an entity name, a user id, a display name);
    ``identifiers`` are the other strings that identify them (aliases, e-mail, phone…), matched
    like the subject. ``event_ids`` erases those events; ``source`` erases a source's own writes
    and its reputation; ``agent_id`` / ``user_id`` / ``session_id`` erase every event of that
    scope. Selectors combine with OR, inside ``tenant``. ``within`` (an AND scope, a
    :class:`ForgetWithin` or a dict) alone selects every event of that scope; with other
    selectors it bounds them: only events inside it, and rows pointing at them, are erased.
    """

    model_config = FROZEN

    request_id: str = Field(default_factory=new_id, min_length=1, max_length=128)
    subject: str | None = None
    identifiers: tuple[str, ...] = ()
    event_ids: tuple[str, ...] = ()
    source: str | None = None
    tenant: str = Field(default="default", min_length=1, max_length=128)
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    within: ForgetWithin | None = None
    """AND scope: alone, every event where all its fields match; with other selectors, their bound."""
    mode: ForgetMode = ForgetMode.FULL
    dp_epsilon: float | None = Field(default=None, gt=0, le=100)
    """DP noise on the utilities the subject influenced (``deltacore.compliance.utilities``):
    the privacy budget ε; smaller is stronger privacy and noisier utilities. ``None``: re-derived
    exactly, no noise."""
    requester: str | None = None
    """Who asked (kept in the certificate and the journal)."""
    reason: str | None = None
    """Why (e.g. ``"GDPR art. 17"``); kept in the certificate."""
    deadline: datetime | None = None
    """The regulatory deadline; a deadline already past is refused (the caller must decide)."""
    created_at: datetime = Field(default_factory=utc_now)

    @field_validator("mode", mode="before")
    @classmethod
    def _known_mode(cls, value: Any) -> Any:
        if isinstance(value, ForgetMode):
            return value
        text = str(value).strip().lower().replace("-", "_")
        aliases = {"verified_erasure": "verified", "events": "events_only", "schemas": "schemas_only"}
        text = aliases.get(text, text)
        try:
            return ForgetMode(text)
        except ValueError:
            allowed = ", ".join(mode.value for mode in ForgetMode)
            raise ValueError(f"unknown mode {value!r}; use one of {allowed}") from None

    @field_validator("subject", "source", "agent_id", "user_id", "session_id", "requester", "reason")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if "\x00" in value:
            raise ValueError("holds a NUL character")
        if not value.strip():
            raise ValueError("is empty; leave it out or give a value")
        return value

    @field_validator("identifiers", "event_ids", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        return value

    @field_validator("identifiers", "event_ids")
    @classmethod
    def _no_blank(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for position, item in enumerate(value):
            if not item.strip() or "\x00" in item:
                raise ValueError(f"item {position} is empty or holds a NUL character")
        return tuple(dict.fromkeys(value))

    @field_validator("identifiers")
    @classmethod
    def _long_enough(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # A one- or two-letter identifier would match inside unrelated words and erase them.
        for item in value:
            if len(item.strip()) < 3:
                raise ValueError(f"identifier {item!r} is shorter than 3 characters and would match unrelated text")
        return value

    @field_validator("deadline", "created_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value) if value is not None else None

    @model_validator(mode="after")
    def _selects_something(self) -> ForgetRequest:
        if not any(getattr(self, name) for name in _SELECTORS):
            raise InvalidForgetRequestError(
                "request", "name what to forget: subject, identifiers, event_ids, source, agent_id, user_id, session_id or within"
            )
        if self.subject is not None and len(self.subject.strip()) < 3 and not self.identifiers:
            raise InvalidForgetRequestError(
                "subject", "is shorter than 3 characters and would match unrelated text; give identifiers too"
            )
        if self.deadline is not None and self.deadline < self.created_at:
            raise InvalidForgetRequestError(
                "deadline", f"{self.deadline.isoformat()} is already past; erase now without a deadline or fix it"
            )
        return self

    @property
    def only_within(self) -> bool:
        """``within`` is the only selector: the request is "every event of this scope"."""
        return self.within is not None and not any(getattr(self, name) for name in _SELECTORS if name != "within")

    def terms(self) -> tuple[str, ...]:
        """Every string that identifies the subject: the subject first, then the identifiers."""
        terms = ((self.subject,) if self.subject else ()) + self.identifiers
        return tuple(dict.fromkeys(terms))

    def describe(self) -> dict[str, Any]:
        """The request without its identifying strings: safe to journal and to print."""
        return {
            "request_id": self.request_id,
            "tenant": self.tenant,
            "mode": self.mode.value,
            "selectors": [name for name in _SELECTORS if getattr(self, name)],
            "event_ids": len(self.event_ids),
            "requester": self.requester,
            "reason": self.reason,
            "deadline": self.deadline.isoformat() if self.deadline else None,
        }


def _build(fields: Mapping[str, Any]) -> ForgetRequest:
    try:
        return ForgetRequest(**fields)
    except ValidationError as exc:
        cause = exc.errors()[0].get("ctx", {}).get("error")
        if isinstance(cause, InvalidForgetRequestError):
            raise InvalidForgetRequestError(cause.field, cause.reason) from None
        field, message = first_validation_error(exc, "request")
        raise InvalidForgetRequestError(field, message) from None
    except TypeError as exc:  # pragma: no cover - pydantic reports unknown fields itself
        raise InvalidForgetRequestError("request", str(exc)) from None


def coerce_requests(
    request: ForgetRequest | str | Mapping[str, Any] | Sequence[ForgetRequest | str | Mapping[str, Any]] | None = None,
    **fields: Any,
) -> list[ForgetRequest]:
    """The requests a caller meant, however they said it.

    ``forget(ForgetRequest(...))``, ``forget("Alice Smith")`` (a subject), ``forget({"subject": …})``,
    ``forget(subject="Alice Smith", identifiers=[...])`` and ``forget([req_a, req_b])`` (a batch
    sharing one physical pass) all work; keyword fields given with a string or mapping apply to it.
    """
    if request is None:
        if not fields:
            raise InvalidForgetRequestError(
                "request", "name what to forget: a ForgetRequest, a subject string, or keyword fields"
            )
        return [_build(fields)]
    if isinstance(request, ForgetRequest):
        if fields:
            raise InvalidForgetRequestError("request", f"give a ForgetRequest or keyword fields, not both ({sorted(fields)})")
        return [request]
    if isinstance(request, str):
        return [_build({"subject": request, **fields})]
    if isinstance(request, Mapping):
        return [_build({**request, **fields})]
    items = list(request)
    if not items:
        raise InvalidForgetRequestError("request", "the batch is empty; give at least one request")
    out: list[ForgetRequest] = []
    for position, item in enumerate(items):
        try:
            out.extend(coerce_requests(item, **fields))
        except InvalidForgetRequestError as exc:
            raise InvalidForgetRequestError(f"request[{position}].{exc.field}", exc.reason) from None
    ids = [item.request_id for item in out]
    if len(set(ids)) != len(ids):
        raise InvalidForgetRequestError("request_id", "two requests of the batch share an id")
    return out
