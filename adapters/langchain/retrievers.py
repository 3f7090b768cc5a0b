"""``DeltaCoreRetriever``: DeltaCore memories as a LangChain retriever.

>>> # retriever = DeltaCoreRetriever(store=memory, top_k=5, max_tokens=400, user_id="alice")
>>> # docs = retriever.invoke("what broke the deploy?")       # or: await retriever.ainvoke(...)
>>> # docs[0].metadata["score"], docs[0].metadata["flags"], docs[0].metadata["provenance"]

Each :class:`~langchain_core.documents.Document` is one memory: ``page_content`` is its text,
``id`` and ``metadata["id"]`` its event id, and the metadata carries score, flags, provenance,
token cost, kind, time, actor, trust and the routers that found it. Any ``QueryCriteria`` field
can also be passed per call: ``retriever.invoke("…", top_k=3, kinds=["tool_result"])``.

Inside a run tree (the retriever called from a chain, a tool or an agent), the documents handed
over are recorded with :meth:`DeltaCore.record_retrieval` under the episode: the one the
:class:`~deltacore.adapters.langchain.DeltaCoreMiddleware` is running, else the calling run.
When a :class:`~deltacore.adapters.langchain.DeltaCoreCallbackHandler` is attached, the handler
records it instead (under the root run), so nothing is recorded twice.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, model_validator

from deltacore.adapters._shared import renamed_store, unfold_scope
from deltacore.adapters.langchain._engine import sync_memory
from deltacore.adapters.langchain._episode import current_episode
from deltacore.adapters.langchain._messages import packet_document
from deltacore.adapters.langchain.callbacks import handler_in
from deltacore import AsyncDeltaCore
from deltacore.model import MemoryPacket, Scope


class DeltaCoreRetriever(BaseRetriever):
    """Retrieve DeltaCore memories as Documents (sync ``invoke`` and async ``ainvoke``)."""

    store: Any = Field(exclude=True)
    """The store: a ``DeltaCore`` or an ``AsyncDeltaCore`` (``memory=`` is the deprecated name)."""
    top_k: int = 4
    """How many memories to return at most."""
    max_tokens: int | None = None
    """Token budget: the best memories that fit (``None`` = no budget)."""
    routers: list[str] = Field(default_factory=list)
    """Routers to use (``semantic``, ``lexical``, ``recency``); empty = the engine's default."""
    tenant: str = "default"
    user_id: str | None = None
    """Only this user's memories."""
    session_id: str | None = None
    """Only this session's memories."""
    episode_id: str | None = None
    """Only this episode's memories."""
    agent_ids: list[str] = Field(default_factory=list)
    """Only memories of these agents."""
    kinds: list[str] = Field(default_factory=list)
    """Only these event kinds (``message``, ``tool_call``, ``tool_result``, ``fact``…)."""
    entity: str | None = None
    """Only memories about this entity."""
    exclude_stale: bool = False
    exclude_tainted: bool = True
    min_trust: float | None = None
    criteria: dict[str, Any] = Field(default_factory=dict)
    """Any other ``QueryCriteria`` fields, applied to every call."""
    record_retrievals: bool = True
    """Record the documents handed over inside a run tree (see the module docstring)."""

    @model_validator(mode="before")
    @classmethod
    def _old_store_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "memory" in data:
            data = dict(data)
            data["store"] = renamed_store(data.get("store"), data.pop("memory"), cls.__name__)
        return data

    @property
    def memory(self) -> Any:
        """The store (the old name of :attr:`store`)."""
        return self.store

    @model_validator(mode="before")
    @classmethod
    def _unfold_scope(cls, data: Any) -> Any:
        # scope=Scope(...) in place of the fields; its agent_id means agent_ids=[agent_id].
        return unfold_scope(data, agents_field="agent_ids")

    @property
    def scope(self) -> Scope:
        """The tenant, user and session searched (one agent when ``agent_ids`` names one)."""
        agent = self.agent_ids[0] if len(self.agent_ids) == 1 else None
        return Scope(tenant=self.tenant, agent_id=agent, user_id=self.user_id, session_id=self.session_id)

    def _query_fields(self, overrides: dict[str, Any]) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "routers": tuple(self.routers),
            "tenant": self.tenant,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "episode_id": self.episode_id,
            "agent_filter": tuple(self.agent_ids),
            "kinds": tuple(self.kinds),
            "entity": self.entity,
            "exclude_stale": self.exclude_stale,
            "exclude_tainted": self.exclude_tainted,
            "min_trust": self.min_trust,
        }
        return {**fields, **self.criteria, **overrides}

    def _episode(self, run_manager: Any) -> str | None:
        if not self.record_retrievals or run_manager is None or handler_in(run_manager.handlers) is not None:
            return None
        episode = current_episode.get()
        if episode is not None:
            return episode
        parent = run_manager.parent_run_id
        return str(parent) if parent is not None else None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        memory = sync_memory(self.memory)
        packets = memory.query(query, **self._query_fields(kwargs))
        episode = self._episode(run_manager)
        if episode is not None and packets:
            memory.record_retrieval([p.id for p in packets], episode_id=episode, query=query, tenant=self.tenant)
        return [packet_document(packet) for packet in packets]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        packets: list[MemoryPacket]
        fields = self._query_fields(kwargs)
        if isinstance(self.memory, AsyncDeltaCore):
            packets = await self.memory.query(query, **fields)
        else:
            packets = await asyncio.to_thread(sync_memory(self.memory).query, query, **fields)
        episode = self._episode(run_manager)
        if episode is not None and packets:
            await asyncio.to_thread(
                sync_memory(self.memory).record_retrieval,
                [p.id for p in packets],
                episode_id=episode,
                query=query,
                tenant=self.tenant,
            )
        return [packet_document(packet) for packet in packets]
