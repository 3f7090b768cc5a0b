"""Record an AgentChat run (``run_stream`` of an agent or a team) as one DeltaCore episode.

>>> # result = await record_run(memory, agent, "What's the weather in Paris?")
>>> # async for item in record_run_stream(memory, team, task):   # same items as team.run_stream
>>> #     ...

AutoGen has no run id, so the episode id is the id of the run's first message: the task
message (``record_run*`` create it, so the id is known before the agent starts) or, for
:func:`record_stream`, the first item of the stream. What is recorded:

- task / user messages → ``message`` (role user, channel user);
- agents' chat messages → ``message`` (role assistant, channel agent, actor = agent name);
- ``ToolCallRequestEvent`` + ``ToolCallExecutionEvent`` → ``tool_call`` + ``tool_result``
  (a :class:`~.workbench.DeltaCoreWorkbench` records the same ids first, with the tool's schema
  and exception type, and these copies are then dropped as duplicates);
- ``TaskResult`` → ``outcome`` (success); an exception from the stream → ``outcome`` (failure).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Collection, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from autogen_agentchat.base import TaskResult, TaskRunner
from autogen_agentchat.messages import (
    BaseChatMessage,
    TextMessage,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    ToolCallSummaryMessage,
)
from autogen_core import FunctionCall
from autogen_core.models import FunctionExecutionResult

from deltacore.adapters._shared import call_text, error_meta, event_id, outcome_text
from deltacore.adapters.autogen.memory import FRAMEWORK, DeltaCoreMemory
from deltacore.model import Channel, EventKind

log = logging.getLogger(__name__)


@dataclass
class Episode:
    """The run being recorded; shared (mutable) with the workbench and the memory, including
    from the tasks a team's runtime starts, which copy the context when the run starts."""

    id: str | None = None
    last_event_id: str | None = None
    """The latest recorded step: the causal parent of what comes next."""
    tool_parent_id: str | None = None
    """The step that led to the pending tool calls (parallel calls share it)."""
    agent: str | None = None
    """The agent whose tool calls are pending."""
    recorded_messages: set[str] = field(default_factory=set)
    """Ids of the chat messages already recorded (task messages are recorded before the run)."""


_CURRENT: ContextVar[Episode | None] = ContextVar("deltacore_autogen_episode", default=None)


def current_episode(memory: DeltaCoreMemory | None = None) -> Episode | None:
    """The episode being recorded in this context, else the last one ``memory`` started (for
    runtimes started outside the run, whose tasks do not see the run's context)."""
    episode = _CURRENT.get()
    if episode is None and memory is not None:
        episode = memory._active_episode
    return episode


async def record_stream(
    memory: DeltaCoreMemory,
    stream: AsyncIterator[Any],
    *,
    episode_id: str | None = None,
    task_messages: Sequence[BaseChatMessage] = (),
    user_sources: Collection[str] = ("user",),
) -> AsyncGenerator[Any, None]:
    """Yield the items of ``stream`` (an agent's or team's ``run_stream``) unchanged, recording
    them as one episode. ``user_sources`` are the message sources that are user input.

    ``task_messages`` are recorded before the first item is read: a team's agents run ahead of
    the stream's consumer, so their first tool call can then name the task as its parent."""
    episode = Episode(id=episode_id or (task_messages[0].id if task_messages else None))
    token = _CURRENT.set(episode)
    memory._active_episode = episode
    pending: dict[str, FunctionCall] = {}
    final_text = ""
    iterator = aiter(stream)
    try:
        for message in task_messages:
            await _record_message(memory, episode, message, is_user=message.source in user_sources)
        while True:
            try:
                item = await anext(iterator)
            except StopAsyncIteration:
                break
            except BaseException as exc:
                try:
                    await _record_outcome(
                        memory, episode, success=False, text=f"{type(exc).__name__}: {exc}", error_type=type(exc).__name__
                    )
                except Exception:  # the run's own error is the one to raise
                    log.exception("DeltaCore could not record the failed outcome of episode %s", episode.id)
                raise
            if episode.id is None:
                episode.id = str(getattr(item, "id", None) or uuid.uuid4())
            if isinstance(item, TaskResult):
                stop = f" (stop reason: {item.stop_reason})" if item.stop_reason else ""
                await _record_outcome(memory, episode, success=True, text=final_text + stop, stop_reason=item.stop_reason)
            elif isinstance(item, ToolCallRequestEvent):
                episode.agent = item.source
                episode.tool_parent_id = episode.last_event_id
                pending.update((call.id, call) for call in item.content)
            elif isinstance(item, ToolCallExecutionEvent):
                for result in item.content:
                    await _record_execution(memory, episode, pending.pop(result.call_id, None), result, item.source)
                episode.tool_parent_id = None
            elif isinstance(item, ToolCallSummaryMessage):
                final_text = item.to_text()  # repeats the tool results: the answer, not a new step
            elif isinstance(item, BaseChatMessage):
                final_text = item.to_text()
                await _record_message(memory, episode, item, is_user=item.source in user_sources)
            yield item
    finally:
        if memory._active_episode is episode:
            memory._active_episode = None
        try:
            _CURRENT.reset(token)
        except ValueError:  # finalised from another context (e.g. by the event loop's asyncgen hook)
            pass


async def record_run_stream(
    memory: DeltaCoreMemory,
    runner: TaskRunner,
    task: str | BaseChatMessage | Sequence[BaseChatMessage],
    **run_kwargs: Any,
) -> AsyncGenerator[Any, None]:
    """``runner.run_stream(task=task, **run_kwargs)``, recorded; the episode id is the id of the
    (first) task message. A string task becomes ``TextMessage(source="user")`` as AutoGen does."""
    messages: list[BaseChatMessage]
    if isinstance(task, str):
        messages = [TextMessage(content=task, source="user")]
    elif isinstance(task, BaseChatMessage):
        messages = [task]
    else:
        messages = list(task)
    run_task: Any = messages[0] if len(messages) == 1 else messages
    stream = runner.run_stream(task=run_task, **run_kwargs)
    async for item in record_stream(memory, stream, task_messages=messages):
        yield item


async def record_run(
    memory: DeltaCoreMemory,
    runner: TaskRunner,
    task: str | BaseChatMessage | Sequence[BaseChatMessage],
    **run_kwargs: Any,
) -> TaskResult:
    """``await runner.run(task=task)``, recorded as one episode: returns the ``TaskResult``."""
    result: TaskResult | None = None
    async for item in record_run_stream(memory, runner, task, **run_kwargs):
        if isinstance(item, TaskResult):
            result = item
    if result is None:
        raise RuntimeError("the run ended without a TaskResult")
    return result


# ---- what each item becomes ------------------------------------------------------------------


async def _record_message(memory: DeltaCoreMemory, episode: Episode, message: BaseChatMessage, is_user: bool) -> None:
    text = message.to_text()
    if not text.strip() or message.id in episode.recorded_messages:
        return
    episode.recorded_messages.add(message.id)
    identifier = event_id(message.id)
    event = memory.event(
        id=identifier,
        ts=message.created_at,
        kind=EventKind.MESSAGE.value,
        role="user" if is_user else "assistant",
        actor=message.source,
        text=text,
        episode_id=episode.id,
        parent_ids=[episode.last_event_id] if episode.last_event_id else [],
        source=f"{FRAMEWORK}:{message.source}",
        # Who AutoGen says sent it (the memory's user, for the user's own messages).
        principal=(memory.user_id if is_user and memory.user_id else f"{FRAMEWORK}:{message.source}"),
        meta={"message_type": type(message).__name__},
    )
    await memory.record([event], Channel.USER if is_user else Channel.AGENT)
    episode.last_event_id = identifier


async def _record_execution(
    memory: DeltaCoreMemory,
    episode: Episode,
    call: FunctionCall | None,
    result: FunctionExecutionResult,
    agent: str,
) -> None:
    """A tool call and its result, unless a DeltaCoreWorkbench already recorded them (same ids)."""
    call_event_id = tool_event_id(episode, result.call_id, "call")
    if call is not None:
        arguments = parse_arguments(call.arguments)
        call_event = tool_call_event(memory, episode, call_event_id, call.name, arguments, None, agent)
        await memory.record([call_event], Channel.AGENT, staged=True)
    result_event = tool_result_event(
        memory,
        episode,
        tool_event_id(episode, result.call_id, "result"),
        call_event_id,
        result.name,
        result.content,
        bool(result.is_error),
        None,
        agent,
    )
    await memory.record([result_event], Channel.TOOL, staged=True)
    episode.last_event_id = result_event["id"]


async def _record_outcome(
    memory: DeltaCoreMemory,
    episode: Episode,
    *,
    success: bool,
    text: str,
    stop_reason: str | None = None,
    error_type: str | None = None,
) -> None:
    if episode.id is None:
        episode.id = str(uuid.uuid4())
    meta: dict[str, Any] = {"success": success}
    if stop_reason is not None:
        meta["stop_reason"] = stop_reason
    if error_type is not None:
        meta["error_type"] = error_type
    event = memory.event(
        id=event_id(episode.id, "outcome"),
        kind=EventKind.OUTCOME.value,
        text=outcome_text(success, text),
        episode_id=episode.id,
        parent_ids=[episode.last_event_id] if episode.last_event_id else [],
        meta=meta,
    )
    await memory.record([event], Channel.SYSTEM)
    episode.last_event_id = event["id"]


# ---- tool events, shared with the workbench --------------------------------------------------


def tool_event_id(episode: Episode | None, call_id: str | None, suffix: str) -> str:
    run = episode.id if episode is not None and episode.id else FRAMEWORK
    return event_id(run, call_id or uuid.uuid4().hex, suffix)


def parse_arguments(arguments: str) -> dict[str, Any]:
    try:
        parsed = json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return {"_raw": arguments}
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def tool_call_event(
    memory: DeltaCoreMemory,
    episode: Episode | None,
    identifier: str,
    name: str,
    arguments: dict[str, Any],
    schema: dict[str, Any] | None,
    agent: str | None,
) -> dict[str, Any]:
    parent = None
    if episode is not None:
        parent = episode.tool_parent_id or episode.last_event_id
    return memory.event(
        id=identifier,
        kind=EventKind.TOOL_CALL.value,
        tool_name=name,
        tool_args=arguments,
        tool_schema=schema,
        text=call_text(name, arguments),
        actor=agent,
        episode_id=episode.id if episode is not None else None,
        parent_ids=[parent] if parent else [],
        source=f"{FRAMEWORK}:{agent}" if agent else None,
    )


def tool_result_event(
    memory: DeltaCoreMemory,
    episode: Episode | None,
    identifier: str,
    call_event_id: str,
    name: str,
    output: str,
    is_error: bool,
    error: BaseException | str | None,
    agent: str | None,
) -> dict[str, Any]:
    return memory.event(
        id=identifier,
        kind=EventKind.TOOL_RESULT.value,
        tool_name=name,
        text=output if output.strip() else "(empty result)",
        actor=name,
        episode_id=episode.id if episode is not None else None,
        parent_ids=[call_event_id],
        source=f"{FRAMEWORK}:{agent}" if agent else None,
        meta=error_meta(error, None if isinstance(error, BaseException) else output) if is_error else {},
    )
