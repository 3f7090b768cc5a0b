"""Record LlamaIndex agent runs in DeltaCore through the instrumentation dispatcher.

>>> # handler = instrument(store, user_id="alice")     # on the root dispatcher
>>> # await agent.run(user_msg="...", memory=memory)     # recorded as one episode
>>> # handler.detach()                                  # or: with instrument(store): ...

Workflow agents (``FunctionAgent``, ``ReActAgent``, ``AgentWorkflow``) emit no tool-call event,
but every workflow step runs in a span, so this span handler reads them (llama-index-core 0.14):

- ``*.init_run`` (its ``AgentWorkflowStartEvent``) → the user message, and the agents' tools
  (``tool.metadata`` schemas) handed to ``DeltaCore.observe_tools`` (drift before any call);
- ``*.run_agent_step`` → the model's ``AgentOutput`` (its text as the assistant message);
- ``*.call_tool`` → its ``ToolCall`` (+ the tool's schema from ``tool.metadata``) and its
  ``ToolCallResult`` (output, or the error with the exception's type);
- the workflow's ``run`` span → the outcome (its ``StopEvent``, or the step error that ended it).

The episode id is the workflow's run id (``handler.run_id``). Recording is synchronous inside the
span hooks, so steps are stored in order with their causal parents. LlamaIndex swallows every
exception a handler raises: recording failures are logged and kept in ``handler.errors``.
"""

from __future__ import annotations

import inspect
import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from llama_index.core.agent.workflow import AgentOutput, ToolCall, ToolCallResult
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.dispatcher import Dispatcher
from llama_index.core.instrumentation.span import SimpleSpan
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.tools import BaseTool
from llama_index.core.workflow import StopEvent, Workflow
from pydantic import BaseModel, Field, PrivateAttr, field_validator, model_validator

from deltacore.adapters._shared import (
    ToolOffers,
    adapter_scope,
    call_text,
    check_store,
    error_meta,
    event_id,
    outcome_text,
    scope_of,
    scoped_event,
    sync_store,
    unfold_scope,
)
from deltacore.adapters.llamaindex._translate import FRAMEWORK, RUN_ID_TAG, message_text
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.model import Channel, EventKind, Scope

log = logging.getLogger(__name__)


@dataclass
class _Run:
    """What the handler knows about one workflow run (an episode) while it runs."""

    id: str
    workflow: Any = None
    agent: str | None = None
    last_event_id: str | None = None
    tool_parent_id: str | None = None
    """The step that led to the pending tool calls (parallel calls share it)."""
    steps: int = 0
    final_text: str = ""
    error: BaseException | None = None


@dataclass
class _PendingCall:
    run: _Run
    call: ToolCall
    started: datetime
    event_id: str | None = None


class DeltaCoreSpanHandler(BaseSpanHandler[SimpleSpan]):
    """Records user messages, model outputs, tool calls/results and outcomes of workflow-agent
    runs into a DeltaCore store. Attach it with :func:`instrument`."""

    store: Any = Field(exclude=True)
    """An open :class:`DeltaCore` or :class:`AsyncDeltaCore` (the caller closes it)."""
    tenant: str = "default"
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    errors: list[str] = Field(default_factory=list)
    """Recording failures (LlamaIndex swallows exceptions raised in handlers)."""

    _roots: dict[str, Any] = PrivateAttr(default_factory=dict)  # root span id -> workflow
    _root_runs: dict[str, _Run] = PrivateAttr(default_factory=dict)  # root span id -> run
    _runs: dict[str, _Run] = PrivateAttr(default_factory=dict)  # run id -> run
    _calls: dict[str, _PendingCall] = PrivateAttr(default_factory=dict)  # call_tool span id -> call
    _steps: dict[str, _Run] = PrivateAttr(default_factory=dict)  # workflow step span id -> run
    _state_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _offers: ToolOffers = PrivateAttr(default_factory=ToolOffers)
    _dispatcher: Dispatcher | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        BaseModel.__init__(self, **data)  # BaseSpanHandler.__init__ only accepts its own fields
        self._lock = None

    @field_validator("store")
    @classmethod
    def _open_store(cls, value: Any) -> Any:
        return check_store(value)

    @model_validator(mode="before")
    @classmethod
    def _unfold_scope(cls, data: Any) -> Any:
        return unfold_scope(data)

    @property
    def scope(self) -> Scope:
        """Where this handler's events go (``scope=Scope(...)`` is accepted in place of the fields)."""
        return Scope(tenant=self.tenant, agent_id=self.agent_id, user_id=self.user_id, session_id=self.session_id)

    @classmethod
    def class_name(cls) -> str:
        return "DeltaCoreSpanHandler"

    # ---- attaching ----------------------------------------------------------------------------

    def detach(self) -> None:
        """Stop recording: remove this handler from the dispatcher it was attached to."""
        dispatcher = self._dispatcher or get_dispatcher()
        dispatcher.span_handlers = [h for h in dispatcher.span_handlers if h is not self]
        self._dispatcher = None

    def records_into(self, store: DeltaCore | AsyncDeltaCore) -> bool:
        """Whether this handler writes into ``store``."""
        return sync_store(self.store) is sync_store(store)

    def __enter__(self) -> DeltaCoreSpanHandler:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.detach()

    # ---- span hooks ---------------------------------------------------------------------------

    def new_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_span_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        try:
            self._enter(id_, bound_args, instance, parent_span_id, tags or {})
        except Exception as exc:
            self._failed("entering", id_, exc)
        return SimpleSpan(id_=id_, parent_id=parent_span_id, tags=tags or {})

    def prepare_to_exit_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        try:
            self._exit(id_, result)
        except Exception as exc:
            self._failed("exiting", id_, exc)
        return self.open_spans.get(id_)

    def prepare_to_drop_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        try:
            self._drop(id_, err)
        except Exception as exc:
            self._failed("dropping", id_, exc)
        return self.open_spans.get(id_)

    # ---- what each span means -----------------------------------------------------------------

    def _enter(self, id_: str, bound_args: inspect.BoundArguments, instance: Any, parent: str | None, tags: dict) -> None:
        method = _method(id_)
        if method == "run" and isinstance(instance, Workflow):
            with self._state_lock:
                self._roots[id_] = instance
            return
        run_id = tags.get(RUN_ID_TAG)
        run = self._run_for(str(run_id), parent) if run_id else None
        if run is not None and parent in self._roots:
            with self._state_lock:
                self._steps[id_] = run  # a step of the workflow: its output or error is the run's
        event = bound_args.arguments.get("ev")
        if run is not None and method == "init_run":
            self._observe_tools(run)
            self._record_user(run, event)
        elif run is not None and method == "call_tool" and isinstance(event, ToolCall):
            with self._state_lock:
                self._calls[id_] = _PendingCall(run, event, datetime.now(timezone.utc))
        elif parent in self._calls and isinstance(instance, BaseTool):
            self._record_call(self._calls[parent], instance)  # the tool itself starts: its schema is at hand

    def _take(self, id_: str) -> tuple[_Run | None, _PendingCall | None]:
        """Forget the span as a workflow step and as a tool call: (its run, its pending call)."""
        with self._state_lock:
            return self._steps.pop(id_, None), self._calls.pop(id_, None)

    def _exit(self, id_: str, result: Any) -> None:
        run, pending = self._take(id_)
        if pending is not None:
            self._record_call(pending, None)
            if isinstance(result, ToolCallResult):
                output = result.tool_output
                error = output.exception  # the exception itself: its class says whether it is transient
                self._record_result(pending, str(output.content), bool(output.is_error), error)
        elif run is not None and isinstance(result, AgentOutput):
            self._record_output(run, result)
        elif id_ in self._roots:
            self._finish(id_, result)

    def _drop(self, id_: str, err: BaseException | None) -> None:
        run, pending = self._take(id_)
        if pending is not None:
            self._record_call(pending, None)
            message = str(err) if err is not None else "the tool call was dropped"
            self._record_result(pending, message, True, err)
            return
        if id_ in self._roots:
            self._finish(id_, None, err)
        elif run is not None and err is not None:
            run.error = err  # the step error that will end the run (its root span exits without it)

    # ---- recording ----------------------------------------------------------------------------

    def _run_for(self, run_id: str, parent: str | None) -> _Run:
        with self._state_lock:
            run = self._runs.get(run_id)
            if run is None:
                run = self._runs[run_id] = _Run(run_id)
            if parent in self._roots and run.workflow is None:
                run.workflow = self._roots[parent]
                run.agent = getattr(run.workflow, "name", None) or type(run.workflow).__name__
                self._root_runs[parent] = run
            return run

    def _event(self, run: _Run, **fields: Any) -> dict[str, Any]:
        return scoped_event(FRAMEWORK, run.agent or "agent", scope_of(self), episode_id=run.id, **fields)

    def _ingest(self, events: list[dict[str, Any]], channel: Channel, staged: bool = False) -> None:
        """``staged``: tool steps, acknowledged once durable (``ingest(..., staged=True)``)."""
        result = sync_store(self.store).ingest(events, channel=channel, staged=staged)
        for rejection in result.rejected:
            self._failed("storing", rejection.event_id or "?", ValueError(f"{rejection.field}: {rejection.reason}"))

    def _observe_tools(self, run: _Run) -> None:
        workflow = run.workflow
        agents = [workflow, *getattr(workflow, "agents", {}).values()] if workflow is not None else []
        tools = [t for agent in agents for t in (getattr(agent, "tools", None) or []) if isinstance(t, BaseTool)]
        changed = self._offers.changed({tool.metadata.name: _tool_schema(tool) for tool in tools if tool.metadata.name})
        if changed:
            try:
                sync_store(self.store).observe_tools(changed, tenant=self.tenant, source=f"{FRAMEWORK}:{run.agent or 'agent'}")
            except Exception as exc:  # noqa: BLE001 - LlamaIndex would swallow it anyway; keep it visible
                self._failed("observing tools of", run.id, exc)

    def _record_user(self, run: _Run, start_event: Any) -> None:
        user_msg = start_event.get("user_msg") if start_event is not None else None
        text = message_text(user_msg)
        if not text.strip():
            return
        identifier = event_id(run.id, "user")
        self._ingest(
            [self._event(run, id=identifier, kind=EventKind.MESSAGE.value, role="user", actor="user", text=text)],
            Channel.USER,
        )
        run.last_event_id = identifier

    def _record_output(self, run: _Run, output: AgentOutput) -> None:
        run.agent = output.current_agent_name or run.agent
        text = message_text(output.response)
        if text.strip():
            run.steps += 1
            identifier = event_id(run.id, f"step{run.steps}")
            self._ingest(
                [
                    self._event(
                        run,
                        id=identifier,
                        kind=EventKind.MESSAGE.value,
                        role="assistant",
                        actor=run.agent,
                        text=text,
                        parent_ids=[run.last_event_id] if run.last_event_id else [],
                    )
                ],
                Channel.AGENT,
            )
            run.last_event_id = identifier
            run.final_text = text
        if output.tool_calls:
            run.tool_parent_id = run.last_event_id

    def _record_call(self, pending: _PendingCall, tool: BaseTool | None) -> None:
        if pending.event_id is not None:
            return
        run, call = pending.run, pending.call
        tool = tool or _find_tool(run.workflow, call.tool_name)
        schema = _tool_schema(tool) if tool is not None else None
        arguments = dict(call.tool_kwargs)
        parent = run.tool_parent_id or run.last_event_id
        identifier = event_id(run.id, call.tool_id, "call")
        self._ingest(
            [
                self._event(
                    run,
                    id=identifier,
                    ts=pending.started,
                    kind=EventKind.TOOL_CALL.value,
                    tool_name=call.tool_name,
                    tool_args=arguments,
                    tool_schema=schema,
                    text=call_text(call.tool_name, arguments),
                    actor=run.agent,
                    parent_ids=[parent] if parent else [],
                )
            ],
            Channel.AGENT,
            staged=True,
        )
        pending.event_id = identifier

    def _record_result(self, pending: _PendingCall, output: str, is_error: bool, error: BaseException | None) -> None:
        run, call = pending.run, pending.call
        identifier = event_id(run.id, call.tool_id, "result")
        self._ingest(
            [
                self._event(
                    run,
                    id=identifier,
                    kind=EventKind.TOOL_RESULT.value,
                    tool_name=call.tool_name,
                    actor=call.tool_name,
                    text=output if output.strip() else "(empty result)",
                    parent_ids=[pending.event_id] if pending.event_id else [],
                    meta=error_meta(error, None if isinstance(error, BaseException) else output) if is_error else {},
                )
            ],
            Channel.TOOL,
            staged=True,
        )
        run.last_event_id = identifier

    def _finish(self, root_span: str, result: Any, err: BaseException | None = None) -> None:
        with self._state_lock:
            self._roots.pop(root_span, None)
            run = self._root_runs.pop(root_span, None)
            if run is not None:
                self._runs.pop(run.id, None)
        if run is None:
            return
        meta: dict[str, Any] = {}
        if isinstance(result, StopEvent):
            answer = result.result
            text = message_text(answer.response) if isinstance(answer, AgentOutput) else str(answer or "")
            success, detail = True, text or run.final_text
        else:
            failure = err or run.error
            success = False
            detail = f"{type(failure).__name__}: {failure}" if failure is not None else "the run ended without a result"
            if failure is not None:
                meta["error_type"] = type(failure).__name__
        self._ingest(
            [
                self._event(
                    run,
                    id=event_id(run.id, "outcome"),
                    kind=EventKind.OUTCOME.value,
                    text=outcome_text(success, detail),
                    parent_ids=[run.last_event_id] if run.last_event_id else [],
                    meta={"success": success, **meta},
                )
            ],
            Channel.SYSTEM,
        )

    def _failed(self, what: str, span_id: str, exc: BaseException) -> None:
        message = f"DeltaCore could not record span {span_id} ({what}): {type(exc).__name__}: {exc}"
        log.warning(message, exc_info=exc)
        self.errors.append(message)


def instrument(
    store: DeltaCore | AsyncDeltaCore,
    *,
    scope: Scope | None = None,
    tenant: str = "default",
    agent_id: str | None = None,
    user_id: str | None = None,
    session_id: str | None = None,
    dispatcher: Dispatcher | None = None,
) -> DeltaCoreSpanHandler:
    """Attach a :class:`DeltaCoreSpanHandler` to the root dispatcher (or ``dispatcher``) and
    return it; ``handler.detach()`` (or ``with instrument(...):``) removes it."""
    handler = DeltaCoreSpanHandler(
        store=store, scope=adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
    )
    target = dispatcher or get_dispatcher()
    target.add_span_handler(handler)
    handler._dispatcher = target
    return handler


def active_handlers() -> list[DeltaCoreSpanHandler]:
    """The DeltaCore span handlers attached to the root dispatcher."""
    return [h for h in get_dispatcher().span_handlers if isinstance(h, DeltaCoreSpanHandler)]


def _method(span_id: str) -> str:
    """``"BaseWorkflowAgent.call_tool-<uuid>"`` → ``"call_tool"``."""
    return span_id.split("-", 1)[0].rsplit(".", 1)[-1]


def _find_tool(workflow: Any, name: str) -> BaseTool | None:
    agents = [workflow, *getattr(workflow, "agents", {}).values()] if workflow is not None else []
    for agent in agents:
        for tool in getattr(agent, "tools", None) or []:
            if isinstance(tool, BaseTool) and tool.metadata.name == name:
                return tool
    return None


def _tool_schema(tool: BaseTool) -> dict[str, Any] | None:
    try:
        return tool.metadata.get_parameters_dict()
    except Exception:  # a tool without a usable fn_schema
        return None
