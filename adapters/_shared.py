"""What the framework adapters share: translation of DeltaCore records and the recording conventions.

Nothing here imports a framework. Each adapter translates its framework's objects itself and uses
these helpers for the parts that are the same everywhere:

* **ids**: deterministic event ids built from framework ids, so a replay lands on the same events;
* **events**: the scope, ``source`` and ``meta["framework"]`` every recorded event carries, the
  text of a ``tool_call``, the ``meta`` of a failed ``tool_result``, the text of an ``outcome``;
* **stores**: the synchronous / async handle on a ``DeltaCore``, listing every stored event, and
  turning an ingest's first rejection into the caller's error;
* **memories handed to a model**: a retrieved ``MemoryPacket`` as a prompt line and as metadata;
* **offered tools**: which tool schemas were already passed to ``DeltaCore.observe_tools``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from deltacore.delta.extract import summarize
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.errors import InvalidEventError
from deltacore.model import SCOPE_FIELDS, Event, IngestResult, MemoryPacket, Scope, TrustAction
from deltacore.model.plans import Plan

MAX_ID = 128
"""``Event.id``'s length limit."""
TOP_K_LIMIT = 1000
"""The engine's ``QueryCriteria.top_k`` ceiling."""
EVENTS_PAGE = 1000
"""Events read per ``DeltaCore.events()`` call when listing everything."""
SUMMARY_CHARS = 200
"""Length of the answer or error an ``outcome`` text quotes."""

PLAN_HEADER = "Best known plan for this task (DeltaCore, learned from earlier episodes):"
"""First line of the plan text the framework memories put in a model's context."""

MEMORY_HEADER = "Relevant memories (DeltaCore, retrieved for the latest message):"
"""First line of the memory text the AutoGen memory and the LlamaIndex memory block hand a model
(how the AutoGen memory finds and replaces its previous turn's message)."""


# ---- ids ---------------------------------------------------------------------------------------
# Both schemes are frozen: stored events (and key-value items looked up by id) already carry them.


def event_id(*parts: str) -> str:
    """``"a:b:c"`` from framework ids, or its uuid5 when longer than ``Event.id`` allows
    (AutoGen and LlamaIndex run steps)."""
    joined = ":".join(parts)
    return joined if len(joined) <= MAX_ID else uuid.uuid5(uuid.NAMESPACE_URL, joined).hex


def stable_id(prefix: str, *parts: Any) -> str:
    """``<prefix>:<sha256 of the parts>``, always hashed (LangChain store keys, long run ids)."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:40]
    return f"{prefix}:{digest}"


# ---- events ------------------------------------------------------------------------------------

_UNSET_SCOPE = Scope()


def adapter_scope(
    scope: Scope | None = None,
    *,
    tenant: str = "default",
    agent_id: str | None = None,
    user_id: str | None = None,
    session_id: str | None = None,
) -> Scope:
    """An adapter's scope from its constructor: ``scope=Scope(...)`` or the flat keyword
    arguments. Both may be given when they agree; a flat argument set to something else than the
    scope says is a ``ValueError`` naming it."""
    flat = {"tenant": tenant, "agent_id": agent_id, "user_id": user_id, "session_id": session_id}
    if scope is None:
        return Scope(**flat)
    if not isinstance(scope, Scope):
        raise TypeError(f"scope must be a deltacore.model.Scope, got {type(scope).__name__}")
    for name, value in flat.items():
        if value != getattr(_UNSET_SCOPE, name) and value != getattr(scope, name):
            raise ValueError(f"{name} is given twice and differs: scope.{name}={getattr(scope, name)!r}, {name}={value!r}")
    return scope


class ScopedAdapter:
    """An adapter object that holds one :class:`Scope` and reads it as flat attributes, as the
    hooks and the events they build do (``self.tenant``, ``scope_of(self)``)."""

    scope: Scope

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


def unfold_scope(data: Any, agents_field: str | None = None) -> Any:
    """The constructor input of a framework's pydantic model whose flat scope fields are its
    configuration: a ``scope=Scope(...)`` given becomes those fields (a flat one that says
    otherwise is a ``ValueError`` naming it). ``agents_field``: the model's list of agents, for a
    model that filters by several (the scope's ``agent_id`` becomes a one-item list)."""
    if not isinstance(data, dict) or data.get("scope") is None:
        return data
    data = dict(data)
    flat = {name: data.pop(name) for name in SCOPE_FIELDS if name in data}
    scope = adapter_scope(data.pop("scope"), **flat)
    data.update(tenant=scope.tenant, user_id=scope.user_id, session_id=scope.session_id)
    if agents_field is None:
        data["agent_id"] = scope.agent_id
    elif scope.agent_id is not None:
        agents = list(data.get(agents_field) or [])
        if agents and agents != [scope.agent_id]:
            raise ValueError(f"{agents_field} is given twice and differs: scope.agent_id={scope.agent_id!r}, {agents_field}={agents!r}")
        data[agents_field] = [scope.agent_id]
    return data


def scope_of(owner: Any, **overrides: Any) -> dict[str, Any]:
    """The scope an adapter object stamps on its events: its ``tenant``, ``agent_id``, ``user_id``
    and ``session_id`` attributes (``overrides`` win)."""
    return {name: getattr(owner, name) for name in SCOPE_FIELDS} | overrides


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data (``meta`` and ``tool_args`` are stored as JSON)."""
    return json.loads(json.dumps(value, default=str))


def shorten(text: str, limit: int = SUMMARY_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (with an ellipsis)."""
    return summarize(text, limit)


def scoped_event(framework: str, component: str, scope: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    """An event dict with ``scope`` (tenant, agent_id, user_id, session_id), ``source``
    (``"<framework>:<component>"`` unless ``fields`` give one) and ``meta["framework"]``."""
    meta = {"framework": framework, **(fields.pop("meta", None) or {})}
    source = fields.pop("source", None) or f"{framework}:{component}"
    return {**scope, "source": source, **fields, "meta": meta}


def call_text(tool_name: str, arguments: Mapping[str, Any] | None) -> str:
    """A ``tool_call``'s text, as the engine itself shows a call: ``name({"arg": …})``."""
    return f"{tool_name}({json.dumps(dict(arguments or {}), sort_keys=True, default=str)})"


# Exception classes whose name says the failure is worth retrying, not held against a plan.
_TRANSIENT_NAME = re.compile(r"timeout|timedout|ratelimit|toomanyrequests|throttl", re.IGNORECASE)


def error_meta(error: BaseException | str | None = None, message: str | None = None) -> dict[str, Any]:
    """``meta`` of a ``tool_result`` that is an error, from the framework's exception (or, when
    the framework already turned it into text, its type name): ``meta["error"] = {"type",
    "message", "kind"}``, ``kind`` ``"transient"`` for a timeout or rate-limit class and left
    out otherwise (the engine classifies it); ``error_type`` repeats the type for older readers."""
    if isinstance(error, BaseException):
        type_name = type(error).__name__
        transient = isinstance(error, TimeoutError) or any(_TRANSIENT_NAME.search(cls.__name__) for cls in type(error).__mro__)
        text = str(error) if message is None else message
    else:
        type_name = error or "ToolError"
        transient = bool(_TRANSIENT_NAME.search(type_name))
        text = message or ""
    detail: dict[str, Any] = {"type": type_name, "message": shorten(text, 1000) if text else ""}
    if transient:
        detail["kind"] = "transient"
    return {"error": detail, "error_type": type_name}


def outcome_text(success: bool, detail: str | None = None) -> str:
    """An ``outcome``'s text: ``"episode succeeded: <answer>"`` / ``"episode failed: <error>"``."""
    verdict = "succeeded" if success else "failed"
    return f"episode {verdict}: {shorten(detail)}" if detail and detail.strip() else f"episode {verdict}"


# ---- stores ------------------------------------------------------------------------------------


def check_store(store: Any, name: str = "store") -> DeltaCore | AsyncDeltaCore:
    """``store`` when it is an open ``DeltaCore`` or ``AsyncDeltaCore``, else a ``TypeError``."""
    if not isinstance(store, (DeltaCore, AsyncDeltaCore)):
        raise TypeError(f"{name} must be an open DeltaCore or AsyncDeltaCore, got {type(store).__name__}")
    return store


def sync_store(store: DeltaCore | AsyncDeltaCore, name: str = "store") -> DeltaCore:
    """The synchronous store behind ``store``."""
    checked = check_store(store, name)
    return checked.sync if isinstance(checked, AsyncDeltaCore) else checked


def async_store(store: DeltaCore | AsyncDeltaCore, name: str = "store") -> AsyncDeltaCore:
    """``store`` as an ``AsyncDeltaCore`` (its blocking work runs in a worker thread)."""
    checked = check_store(store, name)
    return checked if isinstance(checked, AsyncDeltaCore) else AsyncDeltaCore(checked)


def iter_events(store: DeltaCore, **filters: Any) -> Iterator[Event]:
    """Every stored event matching ``filters`` (``QueryCriteria`` fields), oldest first, read a
    page of :data:`EVENTS_PAGE` at a time."""
    after: str | None = None
    while True:
        page = store.events(after=after, limit=EVENTS_PAGE, **filters)
        yield from page
        if len(page) < EVENTS_PAGE:
            return
        after = page[-1].id


def raise_rejections(result: IngestResult) -> IngestResult:
    """Raise the first event an ingest rejected as :class:`InvalidEventError`."""
    if result.rejected:
        rejection = result.rejected[0]
        raise InvalidEventError(rejection.field, rejection.reason, rejection.index)
    return result


def query_fields(
    *, tenant: str, agent_id: str | None, user_id: str | None, top_k: int, max_tokens: int | None
) -> dict[str, Any]:
    """Retrieval scope of a memory: the tenant, and the agent and user when configured (not the
    session: long-term memory spans sessions)."""
    fields: dict[str, Any] = {"tenant": tenant, "top_k": top_k, "max_tokens": max_tokens}
    if agent_id is not None:
        fields["agent_filter"] = (agent_id,)
    if user_id is not None:
        fields["user_id"] = user_id
    return fields


# ---- memories handed to a model ----------------------------------------------------------------


def flag_names(packet: MemoryPacket) -> list[str]:
    return sorted(flag.value for flag in packet.flags)


def memory_line(packet: MemoryPacket) -> str:
    """One memory as a prompt line: date, kind, who, text and warning flags."""
    who = packet.actor or packet.tool_name or packet.role or packet.kind.value
    flags = f" [{', '.join(flag_names(packet))}]" if packet.flags else ""
    return f"- [{packet.ts.date().isoformat()} {packet.kind.value}] {who}: {packet.text}{flags}"


def memory_text(packets: Sequence[MemoryPacket]) -> str:
    """:data:`MEMORY_HEADER` and one :func:`memory_line` per memory, most relevant first."""
    return "\n".join([MEMORY_HEADER, *(memory_line(packet) for packet in packets)])


BELIEF_KEYS = ("belief_confidence", "superseded_by", "current_value", "conflict", "belief_hint")
"""Metadata keys a memory that states a tracked fact adds (what the belief layer knows of it)."""


def packet_metadata(packet: MemoryPacket) -> dict[str, Any]:
    """What a framework's document / node / memory metadata says about a retrieved memory; a
    memory that states a fact the store tracks also carries :data:`BELIEF_KEYS` (the current
    value when its own was superseded, the competing values of a conflict, what to do first)."""
    metadata = {
        "id": packet.id,
        "score": packet.score,
        "flags": flag_names(packet),
        "token_cost": packet.token_cost,
        "provenance": list(packet.provenance),
        "kind": packet.kind.value,
        "ts": packet.ts.isoformat(),
        "actor": packet.actor,
        "tool_name": packet.tool_name,
        "episode_id": packet.episode_id,
    }
    if packet.schema_match is not None:  # a schema packet (the "schema" router): the schema and its support
        metadata["schema"] = packet.schema_match.model_dump(mode="json")
    if packet.belief_confidence is not None:
        metadata.update(
            belief_confidence=packet.belief_confidence,
            superseded_by=packet.superseded_by,
            current_value=packet.current_value,
            conflict=dict(packet.conflict),
            belief_hint=packet.belief_hint,
        )
    return metadata


# ---- plans handed to a model ----------------------------------------------------------------------


def best_plan(store: DeltaCore, task: str, *, tenant: str, agent_id: str | None = None, tools: Any = None) -> Plan | None:
    """The engine's best plan for ``task`` (``recall_plans``, top 1), None without a task or a plan."""
    if not (task or "").strip():
        return None
    plans = store.recall_plans(task, tools, tenant=tenant, agent_id=agent_id, top_k=1)
    return plans[0] if plans else None


def plan_context(plan: Plan) -> str:
    """:data:`PLAN_HEADER` and the plan as the engine writes it (``Plan.as_text``)."""
    return f"{PLAN_HEADER}\n{plan.as_text()}"


# ---- offered tools -----------------------------------------------------------------------------


class ToolOffers:
    """The tool schemas an adapter has already passed to ``DeltaCore.observe_tools``.

    Frameworks offer the same tools on every model turn; only a tool that is new or whose
    schema changed is worth a write (drift detection itself is the engine's)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}
        self._lock = threading.Lock()

    def changed(self, schemas: Mapping[str, Any]) -> dict[str, Any]:
        """Those of ``{name: schema}`` not observed yet in this form (and now marked observed)."""
        fresh: dict[str, Any] = {}
        with self._lock:
            for name, schema in schemas.items():
                if schema is None:
                    continue
                key = json.dumps(schema, sort_keys=True, default=str)
                if self._seen.get(name) != key:
                    self._seen[name] = key
                    fresh[name] = schema
        return fresh


# ---- the gateway's decision, surfaced the framework's way --------------------------------------


def gateway_notes(result: IngestResult, logger: logging.Logger, what: str = "write") -> dict[str, dict[str, Any]]:
    """What the trust gateway did with each new event of ``result``, by event id:
    ``{"trust_action": "quarantine", "namespace": "quarantine"}``. A quarantined or blocked write
    is also a warning on ``logger`` (the framework's logger: the application's operator reads
    it), so a write that will not come back as memory never vanishes without a word."""
    notes: dict[str, dict[str, Any]] = {}
    for decision in result.decisions:
        namespace = decision.namespace.value if decision.namespace is not None else None
        notes[decision.event_id] = {"trust_action": decision.action.value, "namespace": namespace}
        if decision.action in (TrustAction.QUARANTINE, TrustAction.BLOCK):
            outcome = (
                "quarantined: recorded, but not retrieved as memory until reviewed (deltacore quarantine)"
                if decision.action is TrustAction.QUARANTINE
                else "blocked by the trust gateway: not stored"
            )
            reasons = ", ".join(decision.reasons) or "low trust"
            logger.warning("DeltaCore %s %s %s (score %.2f: %s)", what, decision.event_id, outcome, decision.score, reasons)
    return notes


# ---- one name for the store across adapters ------------------------------------------------------


def renamed_store(store: Any, memory: Any, owner: str) -> Any:
    """The ``store=`` every adapter takes; ``memory=`` (LangChain adapters before) still works,
    with a ``DeprecationWarning``."""
    if memory is None:
        if store is None:
            raise TypeError(f"{owner}() needs the DeltaCore store: {owner}(store)")
        return store
    warnings.warn(f"{owner}(memory=...) is deprecated; pass store= (the same DeltaCore)", DeprecationWarning, stacklevel=3)
    if store is not None and store is not memory:
        raise TypeError(f"{owner}(): store= and memory= name two different stores; pass store= only")
    return memory
