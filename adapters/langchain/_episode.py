"""The events of one agent run, shared by the callback handlers and the agent middleware.

Both hosts see the same run (user input, model turns, tool calls and results, the end) through
different hooks; this module turns each of those moments into the events of the recording
conventions, with deterministic ids so that the two hosts, or a replay, write each event once:

=====================  ======================================  =========================
moment                 event                                   id
=====================  ======================================  =========================
run starts             message, role user, channel user        ``<episode>:input``
model answers (text)   message, role assistant, channel agent  ``<episode>:<message id>``
tool called            tool_call (name, args, schema)          ``<episode>:<call id>:call``
tool returned/failed   tool_result (text or error)             ``<episode>:<call id>:result``
run ends or fails      outcome (success, answer or error)      ``<episode>:outcome``
=====================  ======================================  =========================

Causal parents: a model turn follows the user input or the previous round of tool results; a
tool call follows the model turn that asked for it; a result follows its call; the outcome
follows the last step.
"""

from __future__ import annotations

import threading
import uuid
from contextvars import ContextVar
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from deltacore.adapters._shared import call_text, error_meta, json_safe, outcome_text, scoped_event
from deltacore.adapters.langchain._engine import FRAMEWORK, bounded_id
from deltacore.model import Channel, EventKind, Scope

Write = tuple[list[dict[str, Any]], Channel]
"""Events to ingest together, and the channel they came through."""

MAX_OPEN_EPISODES = 1024
"""Episodes tracked at once by one recorder."""

current_episode: ContextVar[str | None] = ContextVar("deltacore_langchain_episode", default=None)
"""The episode whose tool call is running (set by the middleware), so a retriever
called from inside a tool records its retrieval under that episode."""


def tool_schema(tool: Any) -> dict[str, Any]:
    """A tool's argument schema exactly as a model is offered it (OpenAI ``parameters``).

    The same tool must hash the same whichever hook saw it, so registry tools and offered schemas
    both go through ``convert_to_openai_tool``.
    """
    return json_safe(convert_to_openai_tool(tool)["function"].get("parameters") or {})


def offered_schema(spec: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, parameters) of one tool as passed to a model: a BaseTool, or an OpenAI,
    Anthropic or plain ``{"name", "parameters"}`` dict."""
    if isinstance(spec, BaseTool):
        return spec.name, tool_schema(spec)
    if isinstance(spec, Mapping):
        function = spec.get("function") if isinstance(spec.get("function"), Mapping) else spec
        name = function.get("name")
        parameters = function.get("parameters", function.get("input_schema"))
        if isinstance(name, str) and isinstance(parameters, Mapping):
            return name, json_safe(dict(parameters))
        return None
    try:
        converted = convert_to_openai_tool(spec)["function"]
    except Exception:  # noqa: BLE001 - an unknown tool shape is simply not remembered
        return None
    return converted["name"], json_safe(converted.get("parameters") or {})


@dataclass
class _Steps:
    """Which recorded events the next step of one episode follows from."""

    frontier: list[str] = field(default_factory=list)
    """What the next model turn follows from (the input, or the last round of results)."""
    decision: list[str] = field(default_factory=list)
    """What the current round of tool calls follows from."""
    results: list[str] = field(default_factory=list)
    last: str | None = None


class EpisodeRecorder:
    """Builds the events of agent runs, one run = one episode; thread-safe.

    Each method returns the writes to perform; the sync host ingests them directly, the async one
    in a worker thread. ``tools`` is a name → tool registry whose schemas win over offered ones.
    """

    def __init__(self, scope: Scope, source: str, tools: Iterable[Any] = ()) -> None:
        self.scope = scope
        self.source = source
        self._lock = threading.Lock()
        self._steps: dict[str, _Steps] = {}
        self._registry: dict[str, dict[str, Any]] = {}
        self._offered: dict[str, dict[str, Any]] = {}
        for tool in tools:
            schema = offered_schema(tool)
            if schema is not None:
                self._registry[schema[0]] = schema[1]

    # ---- tool schemas -------------------------------------------------------------------------

    def offer(self, specs: Iterable[Any]) -> dict[str, dict[str, Any]]:
        """Remember the schemas a model was offered, for the calls that follow; returns them
        by name."""
        offered: dict[str, dict[str, Any]] = {}
        for spec in specs or ():
            schema = offered_schema(spec)
            if schema is not None:
                offered[schema[0]] = schema[1]
                with self._lock:
                    self._offered[schema[0]] = schema[1]
        return offered

    def registry(self) -> dict[str, dict[str, Any]]:
        """The schemas of the tools given up front, by name."""
        return dict(self._registry)

    def schema_for(self, name: str, tool: Any = None) -> dict[str, Any] | None:
        if name in self._registry:
            return self._registry[name]
        schema = offered_schema(tool) if tool is not None else None
        return schema[1] if schema else self._offered.get(name)

    # ---- the moments of a run -----------------------------------------------------------------

    def start(self, episode_id: str, user_text: str, source: str | None = None, principal: str | None = None) -> list[Write]:
        with self._lock:
            steps = self._steps_of(episode_id)
            if not user_text.strip():
                return []
            event_id = bounded_id(f"{episode_id}:input")
            steps.frontier = steps.decision = [event_id]
            steps.last = event_id
        event = self._event(episode_id, event_id, EventKind.MESSAGE, user_text, source, role="user", principal=principal)
        return [([event], Channel.USER)]

    def model_output(
        self, episode_id: str, text: str, message_id: str | None, source: str | None = None
    ) -> list[Write]:
        """A model turn: its text (if any) is the assistant's message; its tool calls follow it."""
        with self._lock:
            steps = self._steps_of(episode_id)
            steps.results = []
            if not text.strip():
                steps.decision = list(steps.frontier)
                return []
            event_id = bounded_id(f"{episode_id}:{message_id or uuid.uuid4().hex}")
            parents = list(steps.frontier)
            steps.frontier = steps.decision = [event_id]
            steps.last = event_id
        event = self._event(
            episode_id, event_id, EventKind.MESSAGE, text, source, role="assistant", parent_ids=parents
        )
        return [([event], Channel.AGENT)]

    def tool_call(
        self,
        episode_id: str,
        call_key: str | None,
        name: str,
        args: Mapping[str, Any] | None,
        schema: dict[str, Any] | None,
        source: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> tuple[list[Write], str]:
        """The call event's writes and its id (the result's parent)."""
        event_id = bounded_id(f"{episode_id}:{call_key or uuid.uuid4().hex}:call")
        with self._lock:
            steps = self._steps_of(episode_id)
            parents = list(steps.decision or steps.frontier)
            steps.last = event_id
        arguments = json_safe(dict(args or {}))
        if call_key:
            # The framework's call id is the call's identity: a retry with the same arguments is
            # a second call (its own result), not a re-sent copy of the first.
            meta = {**(meta or {}), "dedupe_key": event_id}
        event = self._event(
            episode_id,
            event_id,
            EventKind.TOOL_CALL,
            call_text(name, arguments),
            source,
            parent_ids=parents,
            tool_name=name,
            tool_args=arguments,
            tool_schema=schema,
            meta=meta,
        )
        return [([event], Channel.AGENT)], event_id

    def tool_result(
        self,
        episode_id: str,
        call_id: str,
        name: str,
        text: str,
        error: BaseException | str | None = None,
        source: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> list[Write]:
        """A tool's output, or its error (``error`` is the exception, or a type name when the
        framework already turned the exception into an error message)."""
        event_id = call_id.removesuffix(":call") + ":result"
        extra = dict(meta or {})
        if error is not None:
            extra.update(error_meta(error, text if isinstance(error, str) else None))
            if not text:
                text = str(error) if not isinstance(error, str) else "error"
        with self._lock:
            steps = self._steps_of(episode_id)
            steps.results.append(event_id)
            steps.frontier = list(steps.results)
            steps.last = event_id
        event = self._event(
            episode_id,
            event_id,
            EventKind.TOOL_RESULT,
            text or "(no output)",
            source,
            role="tool",
            parent_ids=[call_id],
            tool_name=name,
            meta=extra,
        )
        return [([event], Channel.TOOL)]

    def finish(
        self,
        episode_id: str,
        answer: str | None = None,
        error: BaseException | None = None,
        source: str | None = None,
    ) -> list[Write]:
        """The episode's outcome; forgets the episode."""
        with self._lock:
            steps = self._steps.pop(episode_id, _Steps())
        if error is None:
            text = outcome_text(True, answer)
            meta: dict[str, Any] = {"success": True}
        else:
            text = outcome_text(False, f"{type(error).__name__}: {error}")
            meta = {"success": False, "error_type": type(error).__name__}
        event = self._event(
            episode_id,
            bounded_id(f"{episode_id}:outcome"),
            EventKind.OUTCOME,
            text,
            source,
            parent_ids=[steps.last] if steps.last else [],
            meta=meta,
        )
        return [([event], Channel.SYSTEM)]

    def _steps_of(self, episode_id: str) -> _Steps:
        """The episode's bookkeeping (caller holds the lock). Runs that never end (an exception
        the host did not report) must not grow it forever: the oldest is dropped past a bound."""
        steps = self._steps.get(episode_id)
        if steps is None:
            if len(self._steps) >= MAX_OPEN_EPISODES:
                self._steps.pop(next(iter(self._steps)))
            steps = self._steps[episode_id] = _Steps()
        return steps

    def forget(self, episode_id: str) -> None:
        with self._lock:
            self._steps.pop(episode_id, None)

    def _event(
        self,
        episode_id: str,
        event_id: str,
        kind: EventKind,
        text: str,
        source: str | None,
        meta: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        return scoped_event(
            FRAMEWORK,
            source or self.source,
            self.scope.fields(),
            id=event_id,
            kind=kind,
            text=text,
            episode_id=episode_id,
            meta=json_safe(dict(meta or {})),
            **{name: value for name, value in fields.items() if value is not None},
        )
