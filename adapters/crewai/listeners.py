"""A CrewAI event listener that records each crew kickoff in DeltaCore as one episode.

``DeltaCoreListener(store)`` registers on CrewAI's global event bus (and, unless you pass your
own, registers :class:`~deltacore.adapters.crewai.hooks.ToolSchemaHooks` for tool schemas):

==========================  ==================================================================
CrewAI event                DeltaCore event (``episode_id`` = the kickoff's started-event id)
==========================  ==================================================================
``TaskStartedEvent``        ``message``, role user, channel user: the task description; the
                            task's and its agent's tools (``args_schema``) go to
                            ``DeltaCore.observe_tools`` (drift is detected before any call)
``ToolUsageFinishedEvent``  ``tool_call`` (name, arguments, args schema, parent = previous step)
                            + ``tool_result`` (output; ``ToolFailure`` → error meta), parent = call
``ToolUsageErrorEvent``     ``tool_call`` + ``tool_result`` with the error message and
                            ``meta {"error": True, "error_type": ...}``
``TaskCompletedEvent``      ``message``, role assistant, channel agent: the task's output
``TaskFailedEvent``         ``observation``, channel system: ``task failed: <error>``
``CrewKickoffCompleted``    ``outcome``: ``episode succeeded: <answer>``, ``meta {"success": True}``
``CrewKickoffFailed``       ``outcome``: ``episode failed: <error>``, ``meta {"success": False}``
==========================  ==================================================================

A call is written when it finishes (or errors), with its result, because CrewAI emits
``ToolUsageStartedEvent`` before the hooks have seen the tool's schema; calls that never finish
are written when the kickoff ends. Ids derive from CrewAI's event ids (``<started id>:call``,
``:result``, ``<task started id>:input``/``:output``, ``<kickoff id>:outcome``) so a replay
dedupes.

CrewAI runs handlers asynchronously: call ``crewai_event_bus.flush()`` (or
:meth:`DeltaCoreListener.flush`) before reading the store, and :meth:`~DeltaCoreListener.close`
(or ``with``) to unregister — the bus is global and outlives your crew.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable
from itertools import groupby
from typing import Any

from crewai.utilities.string_utils import sanitize_tool_name
from crewai.events import (
    BaseEventListener,
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
    TaskStartedEvent,
    ToolUsageErrorEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
    crewai_event_bus,
)

from deltacore import DeltaCore
from deltacore.adapters._shared import (
    ScopedAdapter,
    adapter_scope,
    ToolOffers,
    call_text,
    error_meta,
    json_safe,
    outcome_text,
    raise_rejections,
    scope_of,
)
from deltacore.adapters.crewai.episodes import episode_of
from deltacore.adapters.crewai.hooks import ToolSchemaHooks, tool_args_schema
from deltacore.model import Channel, Event, EventKind, Scope

log = logging.getLogger(__name__)


class DeltaCoreListener(ScopedAdapter, BaseEventListener):
    """Records tool calls, task inputs/outputs and each kickoff's outcome in DeltaCore.

    >>> # with DeltaCoreListener(store) as recorder:
    >>> #     crew.kickoff()
    >>> #     recorder.flush()
    """

    def __init__(
        self,
        store: DeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        hooks: ToolSchemaHooks | None = None,
        tools: Iterable[Any] = (),
    ) -> None:
        self.store = store
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        self._owns_hooks = hooks is None
        self.hooks = hooks if hooks is not None else ToolSchemaHooks().register()
        for tool in tools:
            self.hooks.add_tool(tool)
        self._offers = ToolOffers()
        self.errors: list[BaseException] = []
        """Recording failures (also logged); handlers never raise into CrewAI."""
        self._handlers: list[tuple[type, Callable[..., Any]]] = []
        self._pending_calls: dict[str, tuple[str | None, ToolUsageStartedEvent]] = {}
        self._last_step: dict[str | None, str] = {}
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        super().__init__()

    # ---- registration ----------------------------------------------------------------------

    def setup_listeners(self, crewai_event_bus: Any) -> None:
        routes: dict[type, Callable[[Any, Any], None]] = {
            TaskStartedEvent: self._task_started,
            ToolUsageStartedEvent: self._tool_started,
            ToolUsageFinishedEvent: self._tool_finished,
            ToolUsageErrorEvent: self._tool_error,
            TaskCompletedEvent: self._task_completed,
            TaskFailedEvent: self._task_failed,
            CrewKickoffCompletedEvent: self._kickoff_completed,
            CrewKickoffFailedEvent: self._kickoff_failed,
        }
        for event_type, record in routes.items():
            handler = self._handler(record)
            crewai_event_bus.register_handler(event_type, handler)
            self._handlers.append((event_type, handler))

    def close(self) -> None:
        """Unregister from the global bus (and remove the hooks this listener registered)."""
        for event_type, handler in self._handlers:
            crewai_event_bus.off(event_type, handler)
        self._handlers.clear()
        if self._owns_hooks:
            self.hooks.unregister()

    unregister = close

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until every handler CrewAI has dispatched so far has finished."""
        return crewai_event_bus.flush(timeout)

    def __enter__(self) -> DeltaCoreListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.flush()
        self.close()

    # Async handlers run one after another on the bus's event loop, in emission order (sync
    # handlers would run concurrently in a thread pool), so a step is always stored before the
    # steps it causes. The lock keeps that order while the write itself runs in a thread.
    def _handler(self, record: Callable[[Any, Any], None]) -> Callable[..., Any]:
        async def handle(source: Any, event: Any, state: Any) -> None:
            async with self._serial():
                try:
                    await asyncio.to_thread(record, event, state)
                except Exception as exc:  # noqa: BLE001 - never break the crew over a recording
                    self.errors.append(exc)
                    log.warning("DeltaCore could not record CrewAI %s: %s", event.type, exc, exc_info=True)

        return handle

    def _serial(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    # ---- translation -----------------------------------------------------------------------

    @staticmethod
    def _meta(event: Any, **extra: Any) -> dict[str, Any]:
        meta: dict[str, Any] = {"framework": "crewai", "crewai_event_id": event.event_id}
        if event.task_id:
            meta["task_id"] = event.task_id
        return {**meta, **extra}

    def _parents(self, episode_id: str | None) -> tuple[str, ...]:
        last = self._last_step.get(episode_id)
        return (last,) if last else ()

    def _step(
        self,
        event: Any,
        episode_id: str | None,
        name: str | None,
        meta: dict[str, Any] | None = None,
        **fields: Any,
    ) -> Event:
        """The DeltaCore event for a CrewAI ``event``: its time and ids in ``meta``, the listener's
        scope, ``source`` ``crewai:<name>``, and (unless ``parent_ids`` is given) the episode's
        latest step as its parent."""
        fields.setdefault("parent_ids", self._parents(episode_id))
        scope = scope_of(self, episode_id=episode_id, source=f"crewai:{name or 'crew'}")
        # Who speaks, as CrewAI knows it: the crew's user for a task's input, else the agent.
        user = fields.get("role") == "user" and self.user_id
        fields.setdefault("principal", self.user_id if user else scope["source"])
        return Event(ts=event.timestamp, meta=self._meta(event, **(meta or {})), **fields, **scope)

    def _write(self, episode_id: str | None, steps: list[tuple[Event, Channel]], staged: bool = False) -> None:
        """``staged``: tool steps, acknowledged once durable (``ingest(..., staged=True)``)."""
        stored_id = None
        for channel, group in groupby(steps, key=lambda step: step[1]):
            result = raise_rejections(self.store.ingest([event for event, _ in group], channel=channel, staged=staged))
            stored_id = result.event_ids[-1]
        if stored_id:
            self._last_step[episode_id] = stored_id

    def _task_started(self, event: TaskStartedEvent, state: Any) -> None:
        task = event.task
        self._observe_tools(task, event.agent_role)
        text = getattr(task, "description", None) or event.task_name or ""
        if not text.strip():
            return
        episode_id = episode_of(event, state)
        agent = event.agent_role or getattr(getattr(task, "agent", None), "role", None)
        message = self._step(
            event, episode_id, agent, id=f"{event.event_id}:input", kind=EventKind.MESSAGE, role="user", text=text
        )
        self._write(episode_id, [(message, Channel.USER)])

    def _observe_tools(self, task: Any, agent_role: str | None) -> None:
        """The tools the task's agent is offered (their ``args_schema``), to ``observe_tools``."""
        agent = getattr(task, "agent", None)
        tools = list(getattr(task, "tools", None) or ()) + list(getattr(agent, "tools", None) or ())
        for tool in tools:
            self.hooks.add_tool(tool)
        schemas = {sanitize_tool_name(tool.name): tool_args_schema(tool) for tool in tools if getattr(tool, "name", None)}
        changed = self._offers.changed(schemas)
        if changed:
            role = agent_role or getattr(agent, "role", None) or "crew"
            self.store.observe_tools(changed, tenant=self.tenant, source=f"crewai:{role}")

    def _tool_started(self, event: ToolUsageStartedEvent, state: Any) -> None:
        self._pending_calls[event.event_id] = (episode_of(event, state), event)

    def _tool_finished(self, event: ToolUsageFinishedEvent, state: Any) -> None:
        result_meta: dict[str, Any] = {"from_cache": event.from_cache}
        if event.failure is not None:  # the tool returned, but reported that it failed
            reason = event.failure.reason
            result_meta.update(error_meta(getattr(reason, "value", str(reason)), str(event.output)))
        self._tool_step(event, state, str(event.output), result_meta)

    def _tool_error(self, event: ToolUsageErrorEvent, state: Any) -> None:
        error = event.error
        failure = error if isinstance(error, BaseException) else "ToolError"
        self._tool_step(event, state, str(error), error_meta(failure, str(error)))

    def _tool_step(self, event: Any, state: Any, output: str, result_meta: dict[str, Any]) -> None:
        started_id = event.started_event_id or event.event_id
        episode_id, started = self._pending_calls.pop(started_id, (None, None))
        if started is None:
            episode_id = episode_of(event, state)
        call = self._call(started or event, started_id, episode_id)
        result = self._step(
            event,
            episode_id,
            event.agent_role or event.tool_name,
            result_meta,
            id=f"{started_id}:result",
            kind=EventKind.TOOL_RESULT,
            role="tool",
            actor=event.tool_name,
            tool_name=event.tool_name,
            text=output,
            parent_ids=(call.id,),
        )
        self._write(episode_id, [(call, Channel.AGENT), (result, Channel.TOOL)], staged=True)

    def _call(self, event: Any, started_id: str, episode_id: str | None) -> Event:
        name = event.tool_name
        arguments = _arguments(event.tool_args, self.hooks.arguments_for(name))
        return self._step(
            event,
            episode_id,
            event.agent_role,
            id=f"{started_id}:call",
            kind=EventKind.TOOL_CALL,
            role="assistant",
            actor=event.agent_role,
            tool_name=name,
            tool_args=arguments,
            tool_schema=self.hooks.schema_for(name),
            text=call_text(name, arguments),
        )

    def _task_completed(self, event: TaskCompletedEvent, state: Any) -> None:
        output = event.output
        if not (output.raw or "").strip():
            return
        episode_id = episode_of(event, state)
        message = self._step(
            event,
            episode_id,
            output.agent,
            id=f"{event.started_event_id or event.event_id}:output",
            kind=EventKind.MESSAGE,
            role="assistant",
            actor=output.agent,
            text=output.raw,
        )
        self._write(episode_id, [(message, Channel.AGENT)])

    def _task_failed(self, event: TaskFailedEvent, state: Any) -> None:
        episode_id = episode_of(event, state)
        error_type = getattr(event.error_type, "__name__", None) or "TaskError"
        observation = self._step(
            event,
            episode_id,
            event.agent_role,
            error_meta(error_type),
            id=f"{event.started_event_id or event.event_id}:failed",
            kind=EventKind.OBSERVATION,
            role="system",
            text=f"task failed: {event.error}",
        )
        self._write(episode_id, [(observation, Channel.SYSTEM)])

    def _kickoff_completed(self, event: CrewKickoffCompletedEvent, state: Any) -> None:
        answer = str(getattr(event.output, "raw", event.output))
        self._outcome(event, outcome_text(True, answer), success=True)

    def _kickoff_failed(self, event: CrewKickoffFailedEvent, state: Any) -> None:
        self._outcome(event, outcome_text(False, str(event.error)), success=False)

    def _outcome(self, event: Any, text: str, *, success: bool) -> None:
        episode_id = event.started_event_id or event.event_id
        unfinished = [started for eid, (ep, started) in list(self._pending_calls.items()) if ep == episode_id]
        for started in unfinished:  # blocked or aborted calls: the call happened, no result came
            del self._pending_calls[started.event_id]
            self._write(episode_id, [(self._call(started, started.event_id, episode_id), Channel.AGENT)])
        outcome = self._step(
            event,
            episode_id,
            event.crew_name,
            {"success": success},
            id=f"{episode_id}:outcome",
            kind=EventKind.OUTCOME,
            role="system",
            actor=event.crew_name,
            text=text,
        )
        try:
            self._write(episode_id, [(outcome, Channel.SYSTEM)])
        finally:
            self._last_step.pop(episode_id, None)


def _arguments(raw: Any, captured: dict[str, Any] | None) -> dict[str, Any]:
    """Tool arguments as a dict: the text/ReAct path reports them as a raw JSON string."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError:
            raw = captured if captured is not None else {"input": raw}
    if not isinstance(raw, dict):
        raw = captured if captured is not None else {"input": raw}
    return json_safe(raw)
