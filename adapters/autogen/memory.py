"""DeltaCore as AutoGen's ``autogen_core.memory.Memory``.

>>> # memory = DeltaCoreMemory(DeltaCore.open("./memory"), user_id="alice")
>>> # agent = AssistantAgent("assistant", model_client, memory=[memory])   # a list, not a tuple

What AutoGen does with a ``Memory`` (autogen-agentchat 0.7.5): ``AssistantAgent`` calls
``update_context(model_context)`` once per turn and never calls ``add``. So this class
retrieves for the last user message and keeps **one** DeltaCore system message in the model
context (replacing the previous turn's instead of piling up a copy each turn); recording what
happened in a run is the job of :mod:`.episodes` and :mod:`.workbench`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autogen_core import TRACE_LOGGER_NAME, CancellationToken, Component
from autogen_core.memory import Memory, MemoryContent, MemoryMimeType, MemoryQueryResult, UpdateContextResult
from autogen_core.model_context import ChatCompletionContext, ChatCompletionContextState
from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import BaseModel, Field
from typing_extensions import Self

from deltacore.adapters._shared import (
    ScopedAdapter,
    adapter_scope,
    gateway_notes,
    MEMORY_HEADER,
    packet_metadata,
    query_fields,
    scope_of,
    scoped_event,
)
from deltacore.adapters._shared import memory_line as format_memory
from deltacore.adapters._shared import memory_text as format_memories
from deltacore.embedding import MiniLMEmbedder, default_embedder, embedder_name
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.errors import ConfigurationError, InvalidEventError, InvalidQueryError
from deltacore.model import Channel, EventKind, MemoryPacket, Scope
from deltacore.testing import FakeEmbedder

FRAMEWORK = "autogen"

_TEXT_TYPES = {MemoryMimeType.TEXT.value, MemoryMimeType.MARKDOWN.value, MemoryMimeType.JSON.value}


class DeltaCoreMemoryConfig(BaseModel):
    """Declarative config of :class:`DeltaCoreMemory` (``dump_component`` / ``load_component``)."""

    name: str = "deltacore"
    """Component name; also the ``source`` of events when no agent name is known."""
    path: str | None = None
    """Folder of an embedded store (``None`` with ``database_url`` for PostgreSQL)."""
    database_url: str | None = None
    """SQLAlchemy URL of a PostgreSQL store."""
    chroma_url: str | None = None
    """Chroma server URL (``None`` = embedded Chroma in ``path``)."""
    collection_prefix: str = "deltacore"
    """Prefix of the store's Chroma collections."""
    embedder: str | None = "minilm"
    """Embedder to open the store with: ``"minilm"`` (the local default) or ``"fake"``
    (:class:`deltacore.testing.FakeEmbedder`, tests only). Any other value names a custom
    embedder that cannot be serialised: pass it to :meth:`DeltaCoreMemory.from_config`."""
    tenant: str = "default"
    """Tenant every event and query is scoped to."""
    agent_id: str | None = None
    """Recorded on every event; retrieval only returns this agent's memories when set."""
    user_id: str | None = None
    """Recorded on every event; retrieval only returns this user's memories when set."""
    session_id: str | None = None
    """Recorded on every event (retrieval is not limited to the session: memory spans sessions)."""
    top_k: int = Field(default=5, ge=1)
    """How many memories ``update_context`` injects at most."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Token budget of the injected memories (``None`` = only ``top_k`` limits them)."""


class DeltaCoreMemory(ScopedAdapter, Memory, Component[DeltaCoreMemoryConfig]):
    """A DeltaCore store as AutoGen memory, scoped to a tenant / agent / user / session.

    ``store`` is an open :class:`DeltaCore` or :class:`AsyncDeltaCore` (the caller keeps
    ownership and closes it), or a folder / database URL to open (then :meth:`close` closes it).
    """

    component_type = "memory"
    component_config_schema = DeltaCoreMemoryConfig
    component_provider_override = "deltacore.adapters.autogen.DeltaCoreMemory"

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | str | Path,
        *,
        name: str = "deltacore",
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        top_k: int = 5,
        max_tokens: int | None = None,
        embedder: Any = None,
    ) -> None:
        self._owns_store = not isinstance(store, (DeltaCore, AsyncDeltaCore))
        if isinstance(store, DeltaCore):
            store = AsyncDeltaCore(store)
        elif not isinstance(store, AsyncDeltaCore):
            store = AsyncDeltaCore(DeltaCore.open(store, embedder=embedder))
        self.store: AsyncDeltaCore = store
        self.name = name
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        self.top_k = top_k
        self.max_tokens = max_tokens
        self._active_episode: Any = None  # set by episodes.record_stream; see episodes.current_episode

    # ---- declarative config -------------------------------------------------------------------

    def _to_config(self) -> DeltaCoreMemoryConfig:
        config = self.store.sync.config
        return DeltaCoreMemoryConfig(
            name=self.name,
            path=None if config.database_url else str(config.path),
            database_url=config.database_url,
            chroma_url=config.chroma_url,
            collection_prefix=config.collection_prefix,
            embedder=_embedder_label(config.embedder),
            tenant=self.tenant,
            agent_id=self.agent_id,
            user_id=self.user_id,
            session_id=self.session_id,
            top_k=self.top_k,
            max_tokens=self.max_tokens,
        )

    @classmethod
    def _from_config(cls, config: DeltaCoreMemoryConfig) -> Self:
        return cls.from_config(config)

    @classmethod
    def from_config(cls, config: DeltaCoreMemoryConfig, *, embedder: Any = None) -> Self:
        """Open the store the config names; ``embedder`` overrides ``config.embedder``."""
        if embedder is None:
            if config.embedder in (None, "minilm"):
                embedder = default_embedder()
            elif config.embedder == "fake":
                embedder = FakeEmbedder()
            else:
                raise ConfigurationError(
                    "embedder",
                    f"the store was dumped with a custom embedder ({config.embedder!r}) that cannot be "
                    "serialised; load it with DeltaCoreMemory.from_config(config, embedder=...)",
                )
        location = config.database_url or config.path
        if location is None:
            raise ConfigurationError("path", "give the store's folder (path) or database_url")
        store = DeltaCore.open(
            location, embedder=embedder, chroma_url=config.chroma_url, collection_prefix=config.collection_prefix
        )
        memory = cls(
            store,
            name=config.name,
            tenant=config.tenant,
            agent_id=config.agent_id,
            user_id=config.user_id,
            session_id=config.session_id,
            top_k=config.top_k,
            max_tokens=config.max_tokens,
        )
        memory._owns_store = True
        return memory

    # ---- the Memory protocol ------------------------------------------------------------------

    async def add(self, content: MemoryContent, cancellation_token: CancellationToken | None = None) -> None:
        """Store text, markdown or JSON content as a ``fact`` event (``metadata`` goes to ``meta``).

        ``metadata["kind"]`` and ``metadata["channel"]`` override the kind and the channel
        (default ``user``: content the application adds on the user's behalf; use ``document``
        for indexed documents, which are then stored as unverified)."""
        mime = content.mime_type.value if isinstance(content.mime_type, MemoryMimeType) else str(content.mime_type)
        if mime not in _TEXT_TYPES:
            raise InvalidEventError("mime_type", f"DeltaCore stores text, markdown and JSON, not {mime!r}")
        if isinstance(content.content, (dict, list)):
            text = json.dumps(content.content, sort_keys=True, default=str)
        elif isinstance(content.content, str):
            text = content.content
        else:
            raise InvalidEventError("content", f"expected text or a JSON object, got {type(content.content).__name__}")
        metadata = dict(content.metadata or {})
        event = self.event(
            kind=metadata.get("kind", EventKind.FACT.value), text=text, meta={"mime_type": mime, **metadata}
        )
        result = await self.store.ingest([event], channel=metadata.get("channel", Channel.USER.value))
        # A quarantined write is kept out of ``query``: say so on the content and in AutoGen's log.
        for note in gateway_notes(result, logging.getLogger(TRACE_LOGGER_NAME), "memory").values():
            content.metadata = {**(content.metadata or {}), "deltacore": note}

    async def query(
        self, query: str | MemoryContent, cancellation_token: CancellationToken | None = None, **kwargs: Any
    ) -> MemoryQueryResult:
        """Memories for ``query``; keyword arguments are :class:`deltacore.QueryCriteria` fields."""
        packets = await self._packets(_query_text(query), **kwargs)
        return MemoryQueryResult(results=[_memory_content(p) for p in packets])

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Retrieve for the last user message and put the result in ONE system message at the end
        of the context, replacing the one a previous turn added."""
        # Imported here: episodes imports this module.
        from deltacore.adapters.autogen.episodes import current_episode

        # The saved state is the whole history; get_messages() is only the window a buffered or
        # head-and-tail context shows the model, so rewriting from it would lose messages.
        state = dict(await model_context.save_state())
        history = ChatCompletionContextState.model_validate(state).messages
        keep = [not is_memory_message(m) for m in history]
        if not all(keep):
            state["messages"] = [raw for raw, kept in zip(state["messages"], keep, strict=True) if kept]
            await model_context.load_state(state)
        query_text = next((_message_text(m) for m in reversed(history) if isinstance(m, UserMessage)), "")
        episode = current_episode(self)
        packets: list[MemoryPacket] = []
        if query_text.strip():
            # Skip the current run's own steps (its user message is already in the context).
            packets = await self._packets(query_text, exclude_episode_id=episode.id if episode is not None else None)
        if packets:
            await model_context.add_message(SystemMessage(content=format_memories(packets)))
            await self.store.record_retrieval(
                [p.id for p in packets],
                episode_id=episode.id if episode is not None else None,
                query=query_text,
                tenant=self.tenant,
            )
        return UpdateContextResult(memories=MemoryQueryResult(results=[_memory_content(p) for p in packets]))

    async def clear(self) -> None:
        """Forget every event of this memory's scope (its agent_id, user_id and session_id together)."""
        if self.agent_id is None and self.user_id is None and self.session_id is None:
            raise InvalidQueryError(
                "clear", "this memory has no agent_id, user_id or session_id, so clear() would not know what to delete"
            )
        scope = {"agent_id": self.agent_id, "user_id": self.user_id, "session_id": self.session_id}
        within = {name: value for name, value in scope.items() if value is not None}
        await self.store.forget(within=within, tenant=self.tenant, reason="autogen memory cleared")

    async def close(self) -> None:
        """Close the store if this memory opened it."""
        if self._owns_store:
            await self.store.close()

    # ---- shared with the workbench and the run recorder -------------------------------------

    def event(self, **fields: Any) -> dict[str, Any]:
        """An event dict carrying this memory's scope and the framework marker."""
        return scoped_event(FRAMEWORK, self.name, scope_of(self), **fields)

    async def record(self, events: Sequence[dict[str, Any]], channel: Channel | str, staged: bool = False) -> None:
        """``staged``: tool steps, acknowledged once durable (``ingest(..., staged=True)``)."""
        if events:
            await self.store.ingest(list(events), channel=channel, staged=staged)

    async def _packets(self, text: str, **criteria: Any) -> list[MemoryPacket]:
        fields = query_fields(
            tenant=self.tenant,
            agent_id=self.agent_id,
            user_id=self.user_id,
            top_k=self.top_k,
            max_tokens=self.max_tokens,
        )
        return await self.store.query(text or None, **{**fields, **criteria})


# ---- translation helpers ---------------------------------------------------------------------


def is_memory_message(message: LLMMessage) -> bool:
    """Whether ``message`` is the system message :class:`DeltaCoreMemory` injected."""
    return isinstance(message, SystemMessage) and message.content.startswith(MEMORY_HEADER)


def _memory_content(packet: MemoryPacket) -> MemoryContent:
    return MemoryContent(content=format_memory(packet), mime_type=MemoryMimeType.TEXT, metadata=packet_metadata(packet))


def _query_text(query: str | MemoryContent) -> str:
    if isinstance(query, MemoryContent):
        content = query.content
        return content if isinstance(content, str) else json.dumps(content, sort_keys=True, default=str)
    return query


def _message_text(message: LLMMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(part for part in content if isinstance(part, str))  # type: ignore[union-attr]


def _embedder_label(embedder: Any) -> str | None:
    if embedder is None or isinstance(embedder, MiniLMEmbedder):
        return "minilm"
    if isinstance(embedder, FakeEmbedder) and embedder.dimension == FakeEmbedder().dimension:
        return "fake"
    return embedder_name(embedder)
