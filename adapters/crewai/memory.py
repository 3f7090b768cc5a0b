"""DeltaCore as CrewAI's memory: ``Crew(memory=DeltaCoreMemory(store))``, no LLM key needed.

CrewAI's ``Memory`` asks an LLM for a record's scope, categories and importance when they are
missing, for consolidation of near-duplicates, and to split a task's result into facts; its
deep recall asks it to plan sub-queries. :class:`DeltaCoreMemory` keeps CrewAI's own flows but
supplies every one of those answers, so no LLM is ever called:

* ``remember``/``remember_many``: scope ``"/"`` (under ``root_scope``), categories ``[]`` and
  ``default_importance`` unless given; consolidation is off (``consolidation_threshold=1.0``).
* ``extract_memories``: the task's result block is kept whole, as one memory.
* ``recall``: one DeltaCore query (hybrid semantic + lexical + recency, whatever ``depth``);
  CrewAI's composite re-scoring is neutral (``semantic_weight=1``, recency and importance 0),
  so DeltaCore's ranking is what the agent sees; the ids handed to the agent are logged with
  ``record_retrieval`` under the current crew kickoff.

The embedder is the store's own (:class:`DeltaCoreEmbedder`): one embedder per store.

>>> # store = DeltaCore.open("./memory")
>>> # crew = Crew(agents=[...], tasks=[...], memory=DeltaCoreMemory(store))
"""

from __future__ import annotations

from typing import Any, Literal

from crewai.llms.base_llm import BaseLLM
from crewai.memory.types import MemoryMatch, MemoryRecord
from crewai.memory.unified_memory import Memory
from pydantic import PrivateAttr

from deltacore import DeltaCore
from deltacore.adapters._shared import best_plan, plan_context
from deltacore.adapters.crewai.storage import DeltaCoreStorage
from deltacore.model import Channel, Scope

LLM_FREE_SETTINGS: dict[str, Any] = {
    # Never ask an LLM to merge near-duplicates: the storage reports scores below 1.
    "consolidation_threshold": 1.0,
    "exploration_budget": 0,  # never ask an LLM to explore deeper during recall
    "query_analysis_threshold": 10**9,  # never ask an LLM to plan sub-queries
    "semantic_weight": 1.0,  # DeltaCore's fused score is the ranking...
    "recency_weight": 0.0,  # ...it already weighs recency
    "importance_weight": 0.0,
}
"""``Memory`` settings :class:`DeltaCoreMemory` uses unless you pass your own."""


class NoAnalysisLLM(BaseLLM):
    """Stands in for CrewAI's analysis LLM, which DeltaCoreMemory never needs.

    If CrewAI still calls it (a path this adapter does not cover), CrewAI's analysis helpers
    catch the error and fall back to their defaults instead of failing the task.
    """

    def __init__(self, **fields: Any) -> None:
        fields.setdefault("model", "deltacore-no-llm")
        super().__init__(**fields)

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        raise RuntimeError("DeltaCoreMemory asks no LLM: scope, categories and importance are always supplied")


class DeltaCoreMemory(Memory):
    """A CrewAI ``Memory`` stored in and recalled from DeltaCore (accepted by ``Crew``/``Agent``).

    ``tenant``/``agent_id``/``user_id``/``session_id`` scope what it stores and recalls; give the
    :class:`~deltacore.adapters.crewai.listeners.DeltaCoreListener` the same values so recalls
    include its recorded episodes. ``offer_plans=True``: every recall (CrewAI recalls with the
    task's description) starts with the engine's best plan for that task, with its probability.
    Other keyword arguments are ``Memory`` fields.
    """

    _store: DeltaCore = PrivateAttr()
    _offer_plans: bool = PrivateAttr(default=False)

    def __init__(
        self,
        store: DeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        channel: Channel | str = Channel.AGENT,
        offer_plans: bool = False,
        **fields: Any,
    ) -> None:
        storage = DeltaCoreStorage(
            store, scope=scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id, channel=channel
        )
        # One embedder per store: CrewAI embeds with the store's own model, which is also what
        # lets the storage turn CrewAI's query vectors back into DeltaCore queries.
        fields["storage"] = storage
        fields["embedder"] = storage.embedder
        fields.setdefault("llm", NoAnalysisLLM())
        for name, value in LLM_FREE_SETTINGS.items():
            fields.setdefault(name, value)
        super().__init__(**fields)
        self._store = store
        self._offer_plans = offer_plans

    @property
    def store(self) -> DeltaCore:
        return self._store

    def extract_memories(self, content: str) -> list[str]:
        return [content] if content.strip() else []

    def remember(
        self,
        content: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> MemoryRecord | None:
        return super().remember(
            content, **self._supplied(scope, categories, metadata, importance, agent_role),
            source=source, private=private, agent_role=agent_role, root_scope=root_scope,
        )

    def remember_many(
        self,
        contents: list[str],
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> list[MemoryRecord]:
        return super().remember_many(
            contents, **self._supplied(scope, categories, metadata, importance, agent_role),
            source=source, private=private, agent_role=agent_role, root_scope=root_scope,
        )

    def _supplied(
        self,
        scope: str | None,
        categories: list[str] | None,
        metadata: dict[str, Any] | None,
        importance: float | None,
        agent_role: str | None,
    ) -> dict[str, Any]:
        """The fields CrewAI would otherwise ask its LLM for."""
        if agent_role:
            metadata = {"agent_role": agent_role, **(metadata or {})}
        return {
            "scope": scope or "/",
            "categories": list(categories) if categories is not None else [],
            "metadata": metadata,
            "importance": self.default_importance if importance is None else importance,
        }

    def recall(
        self,
        query: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        limit: int = 10,
        depth: Literal["shallow", "deep"] = "deep",
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryMatch]:
        # "deep" would plan sub-queries with an LLM; DeltaCore's one hybrid query replaces it.
        matches = super().recall(
            query, scope=scope, categories=categories, limit=limit, depth="shallow",
            source=source, include_private=include_private,
        )
        if matches:
            self._storage.record_retrieval([match.record.id for match in matches], query)  # type: ignore[attr-defined]
        if self._offer_plans:
            plan = self._best_plan(query)
            if plan is not None:
                matches = [plan, *matches][: max(limit, 1)]
        return matches

    def _best_plan(self, task: str) -> MemoryMatch | None:
        """The engine's best plan for the task (CrewAI recalls with the task's description), as
        the first match: CrewAI puts the matches in the task prompt."""
        storage: DeltaCoreStorage = self._storage  # type: ignore[assignment]
        plan = best_plan(self._store, task, tenant=storage.tenant, agent_id=storage.agent_id)
        if plan is None:
            return None
        record = MemoryRecord(
            id=f"plan:{plan.schema_id}",
            content=plan_context(plan),
            scope="/",
            categories=["plan"],
            metadata={"probability": round(plan.probability, 3)},
            importance=1.0,
        )
        return MemoryMatch(record=record, score=plan.probability, match_reasons=["plan"])
