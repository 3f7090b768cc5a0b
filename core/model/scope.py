"""Where a memory belongs, and which memories a query may see.

:class:`Scope` is the tenant and the agent, user and session a record is about. ``Event``,
``Delta``, ``MemoryPacket`` and ``QueryCriteria`` each hold one as ``scope``; callers still pass
and read the flat fields (``Event(text=…, tenant="acme")``, ``packet.agent_id``), because JSON
lines, framework payloads and every dump carry them flat (:class:`Scoped`).

The trust namespace is not part of a scope: the gateway assigns it to a stored item, a caller
never chooses it, so it stays a field of the records that report it.

:class:`ScopeFilter` is the part of a query every index applies itself — scope, episode, kinds,
quarantine and time — defined once and compiled by ``deltacore.storage.filters`` to SQL, to a
Chroma ``where`` and to a test on the HOT tier's cached metadata.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import (
    BaseModel,
    Field,
    ModelWrapValidatorHandler,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from deltacore.model.base import FROZEN

if TYPE_CHECKING:
    from deltacore.model.query import QueryCriteria

SCOPE_FIELDS = ("tenant", "agent_id", "user_id", "session_id")
"""The flat fields a :class:`Scope` is given and read as."""
_SCOPE_SET = frozenset(SCOPE_FIELDS)


class Scope(BaseModel):
    """The tenant a record lives in and the agent, user and session it belongs to.

    >>> Scope(tenant="acme", user_id="alice").fields()
    {'tenant': 'acme', 'user_id': 'alice'}
    """

    model_config = FROZEN

    tenant: str = Field(default="default", min_length=1, max_length=128)
    """Hard isolation: one vector collection per tenant, every SQL statement filtered on it."""
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None

    @field_validator("tenant", "agent_id", "user_id", "session_id")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        # PostgreSQL text cannot hold NUL; refused here so both backends answer alike.
        if value is not None and "\x00" in value:
            raise ValueError("holds a NUL character, which the database cannot store")
        return value

    def fields(self) -> dict[str, str]:
        """The flat fields of this scope: the tenant, and each id that is set."""
        ids = {"agent_id": self.agent_id, "user_id": self.user_id, "session_id": self.session_id}
        return {"tenant": self.tenant, **{name: value for name, value in ids.items() if value is not None}}


class Scoped(BaseModel):
    """A record with a ``scope`` field that reads and writes its scope as flat fields.

    In: flat ``tenant=``, ``agent_id=``… are folded into ``scope`` (a scope given as well must
    agree with them; a conflict is an error naming the field). Out: ``model_dump`` and JSON carry
    the flat fields where the record's layout puts them, as before there was a ``scope``.
    """

    _flat_layout: ClassVar[tuple[str, ...] | None] = None
    """The dump's field order when it is not "the scope's fields where ``scope`` is declared"."""
    _flat_omit_none: ClassVar[tuple[str, ...]] = ()
    """Scope fields left out of the dump when unset (a field the record never had flat)."""

    if TYPE_CHECKING:
        scope: Scope

    @model_validator(mode="wrap")
    @classmethod
    def _fold_scope(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if type(data) is not dict:
            if not isinstance(data, Mapping):
                return handler(data)  # a record instance, or something pydantic will refuse
            data = dict(data)
        given_flat = _SCOPE_SET.intersection(data)
        if not given_flat:
            return handler(data)
        flat = {name: data[name] for name in given_flat}
        data = {key: value for key, value in data.items() if key not in _SCOPE_SET}
        given = data.get("scope")
        if given is None:
            data["scope"] = _shared_scope(flat) or flat
            try:
                return handler(data)
            except ValidationError as exc:
                # The caller wrote ``tenant``, not ``scope.tenant``: name the field they gave.
                raise _relocated(exc) from None
        current = given.model_dump() if isinstance(given, Scope) else dict(given) if isinstance(given, Mapping) else None
        if current is None:
            return handler(data)  # not a scope at all: pydantic names the field
        for name in SCOPE_FIELDS:
            if name in flat:
                if name in current and current[name] != flat[name]:
                    raise _conflict(cls.__name__, name, current[name], flat[name])
                current[name] = flat[name]
        data["scope"] = current
        return handler(data)

    @model_serializer(mode="wrap")
    def _flatten_scope(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped = handler(self)
        if not isinstance(dumped, dict) or not isinstance(dumped.get("scope"), dict):
            return dumped
        flat: dict[str, Any] = {}
        for key, value in dumped.items():
            if key != "scope":
                flat[key] = value
                continue
            for name, scoped in value.items():
                if scoped is not None or name not in self._flat_omit_none:
                    flat[name] = scoped
        layout = self._flat_layout
        if layout is None:
            return flat
        return {**{key: flat[key] for key in layout if key in flat}, **{k: v for k, v in flat.items() if k not in layout}}

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy with ``update`` applied; flat scope fields in ``update`` change the scope."""
        if update and any(name in update for name in SCOPE_FIELDS):
            update = dict(update)
            changes = {name: update.pop(name) for name in SCOPE_FIELDS if name in update}
            update["scope"] = update.get("scope", self.scope).model_copy(update=changes)
        return super().model_copy(update=update, deep=deep)

    @property
    def tenant(self) -> str:
        return self.scope.tenant

    @property
    def agent_id(self) -> str | None:
        return self.scope.agent_id

    @property
    def user_id(self) -> str | None:
        return self.scope.user_id

    @property
    def session_id(self) -> str | None:
        return self.scope.session_id


@functools.lru_cache(maxsize=4096)
def _cached_scope(tenant: str, agent_id: str | None, user_id: str | None, session_id: str | None) -> Scope:
    return Scope(tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)


def _shared_scope(flat: dict[str, Any]) -> Scope | None:
    """One frozen Scope per distinct value, shared by the records in it: rows of one scope are
    read by the thousand, and validating a nested model for each was most of a record's cost.
    None when the values are not plain strings (pydantic then validates and reports them)."""
    tenant = flat.get("tenant", "default")
    agent_id, user_id, session_id = flat.get("agent_id"), flat.get("user_id"), flat.get("session_id")
    if (
        type(tenant) is not str
        or (agent_id is not None and type(agent_id) is not str)
        or (user_id is not None and type(user_id) is not str)
        or (session_id is not None and type(session_id) is not str)
    ):
        return None
    try:
        return _cached_scope(tenant, agent_id, user_id, session_id)
    except ValidationError:
        return None


def _relocated(exc: ValidationError) -> ValidationError:
    errors = []
    for error in exc.errors():
        loc = error["loc"][1:] if error["loc"][:1] == ("scope",) else error["loc"]
        errors.append({"type": error["type"], "loc": loc, "input": error["input"], "ctx": error.get("ctx", {})})
    return ValidationError.from_exception_data(exc.title, errors)  # type: ignore[arg-type]


def _conflict(record: str, name: str, in_scope: Any, flat: Any) -> ValidationError:
    error = PydanticCustomError(
        "scope_conflict",
        "{name} is given twice and differs: scope.{name}={in_scope!r}, {name}={flat!r}; pass it once",
        {"name": name, "in_scope": repr(in_scope), "flat": repr(flat)},
    )
    return ValidationError.from_exception_data(record, [{"type": error, "loc": (name,), "input": flat}])


class ScopeFilter(BaseModel):
    """Which stored memories a query may see, as every index can test it.

    One definition for the three places that apply it: SQL (every router's statements and the
    final fetch), Chroma's metadata pre-filter and the HOT tier (``deltacore.storage.filters``).

    >>> ScopeFilter(tenant="acme", agents=("planner",)).agents
    ('planner',)
    """

    model_config = FROZEN

    tenant: str = "default"
    agents: tuple[str, ...] = ()
    """Only memories of these agents (empty: any agent)."""
    user_id: str | None = None
    session_id: str | None = None
    episode_id: str | None = None
    exclude_episode_id: str | None = None
    """Leave out one episode (memories without an episode stay)."""
    kinds: tuple[str, ...] = ()
    """Event kinds, as stored (``"message"``, ``"tool_call"``…); empty: every kind."""
    include_quarantined: bool = False
    since: float | None = None
    """Earliest timestamp (seconds since the epoch, inclusive)."""
    until: float | None = None
    """Latest timestamp (inclusive)."""

    @classmethod
    def of(cls, criteria: QueryCriteria) -> ScopeFilter:
        """The filter of a query."""
        start, end = criteria.time_range or (None, None)
        agent = criteria.scope.agent_id
        return cls(
            tenant=criteria.scope.tenant,
            agents=criteria.agent_filter or ((agent,) if agent is not None else ()),
            user_id=criteria.scope.user_id,
            session_id=criteria.scope.session_id,
            episode_id=criteria.episode_id,
            exclude_episode_id=criteria.exclude_episode_id,
            kinds=tuple(kind.value for kind in criteria.kinds),
            include_quarantined=criteria.include_quarantined,
            since=start.timestamp() if start is not None else None,
            until=end.timestamp() if end is not None else None,
        )
