"""DeltaCore as a LlamaIndex retriever (``llama_index.core.base.base_retriever.BaseRetriever``).

>>> # retriever = DeltaCoreRetriever(DeltaCore.open("./memory"), user_id="alice", top_k=5)
>>> # nodes = await retriever.aretrieve("what broke the deploy?")

Each memory is a ``NodeWithScore`` whose ``TextNode`` has the memory's id as ``id_`` and its id,
score, flags, token cost, provenance, kind, date and actor as metadata (the model sees the date,
kind, actor and flags; the rest is excluded from the LLM and embedding views). Retrievals made
inside an agent run are logged against that run (``record_retrieval``).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from deltacore.adapters._shared import (
    ScopedAdapter,
    adapter_scope,
    async_store,
    check_store,
    packet_metadata,
    query_fields,
    sync_store,
)
from deltacore.adapters.llamaindex._translate import current_run_id
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.model import MemoryPacket, Scope

_HIDDEN_FROM_MODEL = ["id", "score", "token_cost", "provenance", "episode_id", "tool_name"]


class DeltaCoreRetriever(ScopedAdapter, BaseRetriever):
    """Retrieve DeltaCore memories as LlamaIndex nodes.

    ``criteria`` are extra :class:`deltacore.QueryCriteria` fields applied to every query
    (e.g. ``kinds=("tool_result",)``, ``exclude_stale=True``).
    """

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        top_k: int = 5,
        max_tokens: int | None = None,
        record_retrievals: bool = True,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **criteria: Any,
    ) -> None:
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.store = check_store(store)
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id)
        self.record_retrievals = record_retrievals
        self.criteria = {
            **query_fields(
                tenant=self.tenant, agent_id=self.agent_id, user_id=self.user_id, top_k=top_k, max_tokens=max_tokens
            ),
            **criteria,
        }

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        store = sync_store(self.store)
        packets = store.query(query_bundle.query_str, **self.criteria)
        if packets and self.record_retrievals:
            store.record_retrieval(
                [p.id for p in packets], episode_id=current_run_id(), query=query_bundle.query_str, tenant=self.tenant
            )
        return [to_node(p) for p in packets]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        store = async_store(self.store)
        packets = await store.query(query_bundle.query_str, **self.criteria)
        if packets and self.record_retrievals:
            await store.record_retrieval(
                [p.id for p in packets], episode_id=current_run_id(), query=query_bundle.query_str, tenant=self.tenant
            )
        return [to_node(p) for p in packets]


def to_node(packet: MemoryPacket) -> NodeWithScore:
    """A memory as a scored ``TextNode`` (id = the memory's event id)."""
    node = TextNode(
        id_=packet.id,
        text=packet.text,
        metadata=packet_metadata(packet),
        excluded_llm_metadata_keys=list(_HIDDEN_FROM_MODEL),
        excluded_embed_metadata_keys=list(_HIDDEN_FROM_MODEL) + ["ts", "flags", "kind", "actor"],
    )
    return NodeWithScore(node=node, score=packet.score)
