"""``DeltaCoreMiddleware``: DeltaCore as ``create_agent`` middleware (``langchain.agents``).

>>> # agent = create_agent(model, tools, middleware=[DeltaCoreMiddleware(memory, inject_memories=True)])

One agent invocation is one episode:

* ``before_agent`` → the user's input (and the episode id, kept in the agent state);
* ``wrap_model_call`` → the tools offered to the model (their schemas, for the calls that
  follow; new or changed ones go to ``DeltaCore.observe_tools`` for drift detection), the
  assistant's text, and, with ``inject_memories=True``, relevant memories of
  earlier episodes added to the system message (replacing the block a previous call added);
* ``wrap_tool_call`` → the call (name, arguments, the tool's schema) and its result or error,
  staged (``ingest(..., staged=True)``);
* ``after_agent`` → the outcome.

The episode id is the root run id when LangChain exposes it (``config["run_id"]``, or a
:class:`~deltacore.adapters.langchain.DeltaCoreCallbackHandler` attached to the same run, which
then writes the very same events), else a fresh id per invocation. ``after_agent`` does not run
when an exception aborts the agent: attach the callback handler too to record that failure.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Annotated, Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command
from typing_extensions import NotRequired

from deltacore.adapters._shared import renamed_store, ToolOffers, adapter_scope, raise_rejections
from deltacore.adapters.langchain._engine import sync_memory
from deltacore.adapters.langchain._episode import (
    MAX_OPEN_EPISODES,
    EpisodeRecorder,
    Write,
    current_episode,
)
from deltacore.adapters.langchain._messages import (
    MEMORY_OPEN,
    content_text,
    last_assistant_text,
    last_user_text,
    memory_block,
    tool_output_text,
    without_memory_block,
)
from deltacore.adapters.langchain.callbacks import handler_in
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.model import MemoryPacket, Scope

EPISODE_KEY = "deltacore_episode_id"


class DeltaCoreState(AgentState[Any]):
    """The agent state plus the current episode id (private: not part of input or output)."""

    deltacore_episode_id: NotRequired[Annotated[str | None, PrivateStateAttr]]


class DeltaCoreMiddleware(AgentMiddleware[DeltaCoreState, Any, Any]):
    """Records each agent run as a DeltaCore episode and can hand the model earlier memories.

    Args:
        memory: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        tenant, agent_id, user_id, session_id: scope stamped on every event.
        name: the agent's name in ``source`` (``"langchain:<name>"``).
        inject_memories: add the memories most relevant to the user's latest message to the
            system message of each model call (one retrieval per episode, recorded with
            :meth:`DeltaCore.record_retrieval`).
        memory_query: criteria for that retrieval (``top_k``, ``max_tokens``, ``kinds``…);
            by default the 5 best in the tenant, of this ``user_id`` when one is set.
        staged_tool_steps: write tool calls and results with ``ingest(..., staged=True)`` (the
            default: the step pays one durable inbox append; the write path follows in the
            background and before the next model call's retrieval). ``False``: written in full.
    """

    state_schema = DeltaCoreState
    tools: list[Any] = []

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        name: str = "agent",
        inject_memories: bool = False,
        memory_query: Mapping[str, Any] | None = None,
        tools: Iterable[Any] = (),
        memory: DeltaCore | AsyncDeltaCore | None = None,
        staged_tool_steps: bool = True,
    ) -> None:
        memory = renamed_store(store, memory, type(self).__name__)  # `memory=` is the old name
        super().__init__()
        self.staged_tool_steps = staged_tool_steps
        self.memory = sync_memory(memory)
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        self.inject_memories = inject_memories
        defaults: dict[str, Any] = {"top_k": 5, **({"user_id": self.scope.user_id} if self.scope.user_id else {})}
        self.memory_query = {**defaults, **dict(memory_query or {})}
        self._recorder = EpisodeRecorder(self.scope, name, tools)
        self._injected: dict[str, list[MemoryPacket]] = {}
        self._offers = ToolOffers()

    # ---- agent: the episode ----------------------------------------------------------------------

    def before_agent(self, state: DeltaCoreState, runtime: Any) -> dict[str, Any] | None:
        episode = _new_episode_id(runtime)
        self._perform(self._recorder.start(episode, last_user_text(state["messages"])))
        return {EPISODE_KEY: episode}

    async def abefore_agent(self, state: DeltaCoreState, runtime: Any) -> dict[str, Any] | None:
        episode = _new_episode_id(runtime)
        await self._aperform(self._recorder.start(episode, last_user_text(state["messages"])))
        return {EPISODE_KEY: episode}

    def after_agent(self, state: DeltaCoreState, runtime: Any) -> dict[str, Any] | None:
        self._perform(self._finish(state))
        return None

    async def aafter_agent(self, state: DeltaCoreState, runtime: Any) -> dict[str, Any] | None:
        await self._aperform(self._finish(state))
        return None

    def _finish(self, state: DeltaCoreState) -> list[Write]:
        episode = _episode_of(state)
        self._injected.pop(episode, None)
        return self._recorder.finish(episode, answer=last_assistant_text(state["messages"]))

    # ---- model calls -----------------------------------------------------------------------------

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse | AIMessage:
        episode = _episode_of(request.state)
        self._observe(self._recorder.offer(request.tools))
        if self.inject_memories:
            request = self._with_memories(request, self._memories(request, episode))
        response = handler(request)
        self._perform(self._model_output(episode, response))
        return response

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse | AIMessage:
        episode = _episode_of(request.state)
        await asyncio.to_thread(self._observe, self._recorder.offer(request.tools))
        if self.inject_memories:
            packets = await asyncio.to_thread(self._memories, request, episode)
            request = self._with_memories(request, packets)
        response = await handler(request)
        await self._aperform(self._model_output(episode, response))
        return response

    def _observe(self, offered: dict[str, dict[str, Any]]) -> None:
        changed = self._offers.changed({**offered, **self._recorder.registry()})
        if changed:
            self.memory.observe_tools(changed, tenant=self.scope.tenant, source=self._recorder.source)

    def _model_output(self, episode: str, response: Any) -> list[Write]:
        response = getattr(response, "model_response", response)  # an ExtendedModelResponse
        messages = response.result if isinstance(response, ModelResponse) else [response]
        message = next((m for m in messages if isinstance(m, AIMessage)), None)
        if message is None:
            return []
        return self._recorder.model_output(episode, content_text(message.content), message.id)

    def _memories(self, request: ModelRequest, episode: str) -> list[MemoryPacket]:
        """The memories for this episode: retrieved (and recorded) once, at its first model call."""
        if episode in self._injected:
            return self._injected[episode]
        query = last_user_text(request.messages)
        packets: list[MemoryPacket] = []
        if query.strip():
            # This episode's own steps (its input, above all) are not memories of it.
            criteria = {"tenant": self.scope.tenant, **self.memory_query, "exclude_episode_id": episode}
            packets = self.memory.query(query, **criteria)
            if packets:
                self.memory.record_retrieval(
                    [packet.id for packet in packets], episode_id=episode, query=query, tenant=self.scope.tenant
                )
        if len(self._injected) >= MAX_OPEN_EPISODES:  # runs aborted before after_agent
            self._injected.pop(next(iter(self._injected)))
        self._injected[episode] = packets
        return packets

    @staticmethod
    def _with_memories(request: ModelRequest, packets: list[MemoryPacket]) -> ModelRequest:
        """The request with its system message carrying the memory block (replacing an older one)."""
        system = request.system_message
        content: Any = system.content if system is not None else ""
        if isinstance(content, str):
            base = without_memory_block(content)
            if not packets:
                unchanged = system is None or base == content
                return request if unchanged else request.override(system_message=SystemMessage(base))
            text = f"{base}\n\n{memory_block(packets)}" if base else memory_block(packets)
            return request.override(system_message=SystemMessage(text))
        blocks = [b for b in content if not (isinstance(b, Mapping) and MEMORY_OPEN in str(b.get("text", "")))]
        if packets:
            blocks.append({"type": "text", "text": memory_block(packets)})
        return request.override(system_message=SystemMessage(content=blocks))

    # ---- tool calls ------------------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command]
    ) -> ToolMessage | Command:
        episode, writes, call_id, name = self._call_writes(request)
        self._perform(writes, staged=self.staged_tool_steps)
        token = current_episode.set(episode)
        try:
            result = handler(request)
        except GraphBubbleUp:  # an interrupt, not a failure
            raise
        except Exception as exc:
            self._perform(self._recorder.tool_result(episode, call_id, name, str(exc), exc), staged=self.staged_tool_steps)
            raise
        finally:
            current_episode.reset(token)
        self._perform(self._result(episode, call_id, name, result), staged=self.staged_tool_steps)
        return result

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]
    ) -> ToolMessage | Command:
        episode, writes, call_id, name = self._call_writes(request)
        await self._aperform(writes, staged=self.staged_tool_steps)
        token = current_episode.set(episode)
        try:
            result = await handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            await self._aperform(self._recorder.tool_result(episode, call_id, name, str(exc), exc), staged=self.staged_tool_steps)
            raise
        finally:
            current_episode.reset(token)
        await self._aperform(self._result(episode, call_id, name, result), staged=self.staged_tool_steps)
        return result

    def _call_writes(self, request: ToolCallRequest) -> tuple[str, list[Write], str, str]:
        episode = _episode_of(request.state)
        call = request.tool_call
        name = call["name"]
        schema = self._recorder.schema_for(name, request.tool)
        writes, call_id = self._recorder.tool_call(
            episode, call.get("id"), name, call.get("args"), schema, meta={"tool_call_id": call.get("id")}
        )
        return episode, writes, call_id, name

    def _result(self, episode: str, call_id: str, name: str, result: Any) -> list[Write]:
        text, failed = tool_output_text(result)
        # The tool node already turned the exception into an error message: its type is gone.
        return self._recorder.tool_result(episode, call_id, name, text, "ToolError" if failed else None)

    # ---- writing -------------------------------------------------------------------------------

    def _perform(self, writes: list[Write], staged: bool = False) -> None:
        for events, channel in writes:
            raise_rejections(self.memory.ingest(events, channel=channel, staged=staged))

    async def _aperform(self, writes: list[Write], staged: bool = False) -> None:
        if writes:
            await asyncio.to_thread(self._perform, writes, staged)


def _episode_of(state: Any) -> str:
    episode = state.get(EPISODE_KEY) if isinstance(state, Mapping) else getattr(state, EPISODE_KEY, None)
    # A model or tool hook outside an agent run (no before_agent) still gets an episode.
    return episode or uuid.uuid4().hex


def _new_episode_id(runtime: Any) -> str:
    """The root run id when it can be known, else a fresh id."""
    info = getattr(runtime, "execution_info", None)
    if info is not None and info.run_id:
        return str(info.run_id)
    try:
        callbacks = get_config().get("callbacks")
    except RuntimeError:  # not inside a runnable
        callbacks = None
    handler = handler_in(callbacks)
    if handler is not None:
        episode = handler.episode_id(getattr(callbacks, "parent_run_id", None))
        if episode is not None:
            return episode
    return str(uuid.uuid4())
