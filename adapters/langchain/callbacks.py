"""LangChain callback handlers that record a run tree as one DeltaCore episode.

>>> # handler = DeltaCoreCallbackHandler(memory, tools=[deploy], user_id="alice")
>>> # agent.invoke({"messages": [("user", "deploy api")]}, config={"callbacks": [handler]})

The root run (``parent_run_id is None``) is the episode and its run id the ``episode_id``:

* root chain start → the user's input; root chain end / error → the episode's outcome;
* chat model start → remembers the tool schemas the model was offered
  (``invocation_params["tools"]``), for the calls that follow, and hands new or changed ones to
  :meth:`DeltaCore.observe_tools` (tool-schema drift is detected before any call; the
  ``tools=[...]`` registry is observed when the first run starts);
* model end → the assistant's text, when there is some;
* tool start / end / error → ``tool_call`` and ``tool_result`` events with the tool's name,
  arguments, schema (from ``tools=[...]`` or the offered schemas), error and parent run, staged
  (``ingest(..., staged=True)``, unless ``staged_tool_steps=False``);
* retriever end → :meth:`DeltaCore.record_retrieval` with the documents' ids.

LangChain swallows (and logs) exceptions raised in handlers unless ``raise_error=True``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.outputs import ChatGeneration, LLMResult

from deltacore.adapters._shared import renamed_store, ToolOffers, adapter_scope, raise_rejections
from deltacore.adapters.langchain._engine import sync_memory
from deltacore.adapters.langchain._episode import EpisodeRecorder, Write
from deltacore.adapters.langchain._messages import (
    content_text,
    run_input_text,
    run_output_text,
    tool_output_text,
)
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.model import Scope

Action = Callable[[], Any]


class _RunTreeRecorder:
    """What both handlers share: the run tree → episode bookkeeping. Each ``_on_*`` method
    updates the bookkeeping and returns the store calls to make."""

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        tools: Iterable[Any] = (),
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        name: str | None = None,
        memory: DeltaCore | AsyncDeltaCore | None = None,
        staged_tool_steps: bool = True,
    ) -> None:
        memory = renamed_store(store, memory, type(self).__name__)  # `memory=` is the old name
        self.memory = sync_memory(memory)
        self.staged_tool_steps = staged_tool_steps
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        self._recorder = EpisodeRecorder(self.scope, name or "callbacks", tools)
        self._name = name
        self._lock = threading.Lock()
        self._root_of: dict[UUID, UUID] = {}
        self._source_of: dict[UUID, str] = {}
        self._tool_runs: dict[UUID, tuple[str, str, str]] = {}  # run -> (episode, call event id, tool)
        self._queries: dict[UUID, str] = {}
        self._offers = ToolOffers()

    # ---- run tree -------------------------------------------------------------------------------

    def episode_id(self, run_id: UUID | str | None) -> str | None:
        """The episode (root run id) of a run this handler has seen, else ``None``."""
        if run_id is None:
            return None
        key = run_id if isinstance(run_id, UUID) else UUID(str(run_id))
        root = self._root_of.get(key)
        return str(root) if root is not None else None

    def _enter(self, run_id: UUID, parent_run_id: UUID | None) -> UUID:
        with self._lock:
            root = run_id if parent_run_id is None else self._root_of.get(parent_run_id, parent_run_id)
            self._root_of[run_id] = root
            return root

    def _leave_tree(self, root: UUID) -> None:
        with self._lock:
            for run_id in [run for run, top in self._root_of.items() if top == root]:
                del self._root_of[run_id]
            self._source_of.pop(root, None)
        self._recorder.forget(str(root))

    def _source(self, root: UUID) -> str | None:
        return self._name or self._source_of.get(root)

    def _actions(self, writes: Sequence[Write], staged: bool = False) -> list[Action]:
        memory = self.memory
        return [
            lambda events=events, channel=channel: raise_rejections(memory.ingest(events, channel=channel, staged=staged))
            for events, channel in writes
        ]

    # ---- chains: the episode ---------------------------------------------------------------------

    def _on_chain_start(
        self, serialized: dict[str, Any] | None, inputs: Any, run_id: UUID, parent_run_id: UUID | None, **kwargs: Any
    ) -> list[Action]:
        root = self._enter(run_id, parent_run_id)
        if parent_run_id is not None:
            return []
        name = kwargs.get("name") or (serialized or {}).get("name")
        if name:
            self._source_of[root] = str(name)
        observe = self._observe(self._recorder.registry(), root)
        principal = run_user(kwargs.get("metadata")) or self.scope.user_id
        return observe + self._actions(
            self._recorder.start(str(root), run_input_text(inputs), self._source(root), principal=principal)
        )

    def _on_chain_end(self, outputs: Any, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        if parent_run_id is not None:
            return []
        actions = self._actions(
            self._recorder.finish(str(run_id), answer=run_output_text(outputs), source=self._source(run_id))
        )
        self._leave_tree(run_id)
        return actions

    def _on_chain_error(self, error: BaseException, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        if parent_run_id is not None:
            return []
        actions = self._actions(self._recorder.finish(str(run_id), error=error, source=self._source(run_id)))
        self._leave_tree(run_id)
        return actions

    # ---- models: offered tools, assistant text ---------------------------------------------------

    def _on_chat_model_start(self, run_id: UUID, parent_run_id: UUID | None, **kwargs: Any) -> list[Action]:
        root = self._enter(run_id, parent_run_id)
        offered = self._recorder.offer((kwargs.get("invocation_params") or {}).get("tools") or ())
        return self._observe(offered, root)

    def _observe(self, schemas: dict[str, dict[str, Any]], root: UUID) -> list[Action]:
        changed = self._offers.changed(schemas)
        if not changed:
            return []
        memory, tenant, source = self.memory, self.scope.tenant, self._source(root) or "langchain"
        return [lambda: memory.observe_tools(changed, tenant=tenant, source=source)]

    def _on_llm_end(self, response: LLMResult, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        root = self._enter(run_id, parent_run_id)
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        if generation is None:
            return []
        if isinstance(generation, ChatGeneration):
            text, message_id = content_text(generation.message.content), generation.message.id
        else:
            text, message_id = generation.text, None
        writes = self._recorder.model_output(str(root), text, message_id or f"{run_id}:reply", self._source(root))
        if root == run_id:  # a model called on its own is its own episode
            self._leave_tree(root)
        return self._actions(writes)

    # ---- tools -----------------------------------------------------------------------------------

    def _on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Action]:
        root = self._enter(run_id, parent_run_id)
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        args = inputs if isinstance(inputs, dict) else {"input": input_str}
        tool_call_id = kwargs.get("tool_call_id")
        writes, call_id = self._recorder.tool_call(
            str(root),
            tool_call_id or str(run_id),
            name,
            args,
            self._recorder.schema_for(name),
            self._source(root),
            meta={"run_id": str(run_id), "parent_run_id": _str(parent_run_id), "tool_call_id": tool_call_id},
        )
        with self._lock:
            self._tool_runs[run_id] = (str(root), call_id, name)
        return self._actions(writes, staged=self.staged_tool_steps)

    def _tool_finished(
        self, run_id: UUID, parent_run_id: UUID | None, text: str, error: BaseException | str | None
    ) -> list[Action]:
        with self._lock:
            started = self._tool_runs.pop(run_id, None)
        if started is None:
            return []
        episode, call_id, name = started
        root = UUID(episode)
        writes = self._recorder.tool_result(
            episode,
            call_id,
            name,
            text,
            error,
            self._source(root),
            meta={"run_id": str(run_id), "parent_run_id": _str(parent_run_id)},
        )
        if root == run_id:  # a tool run on its own is its own episode
            self._leave_tree(root)
        return self._actions(writes, staged=self.staged_tool_steps)

    def _on_tool_end(self, output: Any, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        text, failed = tool_output_text(output)
        # A ToolMessage(status="error") is a ToolException the tool itself turned into text.
        return self._tool_finished(run_id, parent_run_id, text, "ToolException" if failed else None)

    def _on_tool_error(self, error: BaseException, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        return self._tool_finished(run_id, parent_run_id, str(error), error)

    # ---- retrievers ------------------------------------------------------------------------------

    def _on_retriever_start(self, query: str, run_id: UUID, parent_run_id: UUID | None) -> list[Action]:
        self._enter(run_id, parent_run_id)
        with self._lock:
            self._queries[run_id] = query
        return []

    def _on_retriever_end(self, documents: Sequence[Document], run_id: UUID) -> list[Action]:
        with self._lock:
            query = self._queries.pop(run_id, None)
        episode = self.episode_id(run_id)
        ids = [str(doc.metadata.get("id") or doc.id) for doc in documents if doc.metadata.get("id") or doc.id]
        if episode is None or UUID(episode) == run_id:  # outside a run tree there is no episode
            self._leave_tree(run_id)
            return []
        if not ids:
            return []
        memory, tenant = self.memory, self.scope.tenant
        return [lambda: memory.record_retrieval(ids, episode_id=episode, query=query, tenant=tenant)]


def _str(value: UUID | None) -> str | None:
    return str(value) if value is not None else None


def _run_all(actions: list[Action]) -> None:
    for action in actions:
        action()


class DeltaCoreCallbackHandler(_RunTreeRecorder, BaseCallbackHandler):
    """Records every run it sees as a DeltaCore episode (see the module docstring).

    Args:
        memory: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        tools: tools whose schemas to record with their calls (else the offered schemas are used).
        tenant, agent_id, user_id, session_id: scope stamped on every event.
        name: the component name in ``source`` (default: the root run's name).
        staged_tool_steps: write tool calls and results with ``ingest(..., staged=True)`` (the
            default): the hook pays one durable inbox append, the write path runs in the
            background and before any read of the store. ``False``: each step is written in full.
    """

    def on_chain_start(self, serialized: dict[str, Any], inputs: dict[str, Any], *, run_id: UUID,
                       parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_chain_start(serialized, inputs, run_id, parent_run_id, **kwargs))

    def on_chain_end(self, outputs: dict[str, Any], *, run_id: UUID, parent_run_id: UUID | None = None,
                     **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_chain_end(outputs, run_id, parent_run_id))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_chain_error(error, run_id, parent_run_id))

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_chat_model_start(run_id, parent_run_id, **kwargs))

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID,
                     parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        self._enter(run_id, parent_run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, parent_run_id: UUID | None = None,
                   **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_llm_end(response, run_id, parent_run_id))

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, *, run_id: UUID,
                      parent_run_id: UUID | None = None, tags: list[str] | None = None,
                      metadata: dict[str, Any] | None = None, inputs: dict[str, Any] | None = None,
                      **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_tool_start(serialized, input_str, run_id, parent_run_id, inputs, **kwargs))

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                    **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_tool_end(output, run_id, parent_run_id))

    def on_tool_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                      **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_tool_error(error, run_id, parent_run_id))

    def on_retriever_start(self, serialized: dict[str, Any], query: str, *, run_id: UUID,
                           parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_retriever_start(query, run_id, parent_run_id))

    def on_retriever_end(self, documents: Sequence[Document], *, run_id: UUID,
                         parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        _run_all(self._on_retriever_end(documents, run_id))


class AsyncDeltaCoreCallbackHandler(_RunTreeRecorder, AsyncCallbackHandler):
    """The async twin of :class:`DeltaCoreCallbackHandler`: the same records, written from a
    worker thread so the event loop never blocks on the store."""

    async def _perform(self, actions: list[Action]) -> None:
        if actions:
            await asyncio.to_thread(_run_all, actions)

    async def on_chain_start(self, serialized: dict[str, Any], inputs: dict[str, Any], *, run_id: UUID,
                             parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_chain_start(serialized, inputs, run_id, parent_run_id, **kwargs))

    async def on_chain_end(self, outputs: dict[str, Any], *, run_id: UUID, parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_chain_end(outputs, run_id, parent_run_id))

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                             **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_chain_error(error, run_id, parent_run_id))

    async def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID,
                                  parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_chat_model_start(run_id, parent_run_id, **kwargs))

    async def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID,
                           parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        self._enter(run_id, parent_run_id)

    async def on_llm_end(self, response: LLMResult, *, run_id: UUID, parent_run_id: UUID | None = None,
                         **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_llm_end(response, run_id, parent_run_id))

    async def on_tool_start(self, serialized: dict[str, Any], input_str: str, *, run_id: UUID,
                            parent_run_id: UUID | None = None, tags: list[str] | None = None,
                            metadata: dict[str, Any] | None = None, inputs: dict[str, Any] | None = None,
                            **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_tool_start(serialized, input_str, run_id, parent_run_id, inputs, **kwargs))

    async def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                          **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_tool_end(output, run_id, parent_run_id))

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                            **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_tool_error(error, run_id, parent_run_id))

    async def on_retriever_start(self, serialized: dict[str, Any], query: str, *, run_id: UUID,
                                 parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_retriever_start(query, run_id, parent_run_id))

    async def on_retriever_end(self, documents: Sequence[Document], *, run_id: UUID,
                               parent_run_id: UUID | None = None, **kwargs: Any) -> None:  # fmt: skip
        await self._perform(self._on_retriever_end(documents, run_id))


def run_user(metadata: Any) -> str | None:
    """The user id of a run's config, ``config={"metadata": {"user_id": …}}`` (the part of the
    config LangChain hands to callbacks; ``configurable`` never reaches them)."""
    value = metadata.get("user_id") if isinstance(metadata, dict) else None
    return str(value) if value not in (None, "") else None


def handler_in(callbacks: Any) -> _RunTreeRecorder | None:
    """The DeltaCore handler among a callback manager's (or a list's) handlers, if any."""
    handlers = getattr(callbacks, "handlers", callbacks)
    if not isinstance(handlers, (list, tuple)):
        return None
    return next((handler for handler in handlers if isinstance(handler, _RunTreeRecorder)), None)
