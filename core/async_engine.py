"""``AsyncDeltaCore``: the async twin of :class:`~deltacore.engine.DeltaCore`.

Every method has the parameters of its sync twin (``tests/test_async_twins.py`` checks it) and
runs the sync call in a worker thread (``asyncio.to_thread``), so the event loop never waits on
SQLite, PostgreSQL, Chroma or the embedding model.

>>> import asyncio, tempfile
>>> from deltacore import AsyncDeltaCore
>>> from deltacore.testing import FakeEmbedder
>>> async def main():
...     async with await AsyncDeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
...         _ = await memory.ingest([{"text": "the api service runs on port 8080", "kind": "fact"}])
...         return (await memory.query("which port does the api use?", top_k=1))[0].text
>>> asyncio.run(main())
'the api service runs on port 8080'
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deltacore.belief import BeliefState, ConflictRecord, Fact, FactExtractor
from deltacore.compliance import ForgetCertificate, ForgetStatus
from deltacore.compliance.audit import AuditResult
from deltacore.config import DeltaCoreConfig
from deltacore.delta import DeltaExtractor
from deltacore.governor_policy import MemoryBudget
from deltacore.model.economy import MemoryEconomy
from deltacore.engine import DeltaCore
from deltacore.engine.forgetting import RequestLike
from deltacore.model.backup import DumpManifest, RestoreReport
from deltacore.model.plans import Plan, Schema
from deltacore.storage.checkpoint_store import CheckpointRepository
from deltacore.model.explain import QueryExplanation
from deltacore.model.versions import MemoryVersion, UpdateResult
from deltacore.model.consolidation import ConsolidationPhase, ConsolidationReport, ConsolidationStatus
from deltacore.model import (
    CausalChain,
    Channel,
    Decision,
    DeleteResult,
    DriftReport,
    Event,
    IngestResult,
    MemoryPacket,
    Namespace,
    OutcomeReport,
    PropagationReport,
    QuarantineReview,
    QueryCriteria,
    ReviewItem,
    SecurityEvent,
    StoreStats,
)


class AsyncDeltaCore:
    """A :class:`DeltaCore` for asyncio code: the same methods, awaited.

    Open it with :meth:`open` and close it (or use ``async with``). Each call runs in a worker
    thread, so calls awaited together run concurrently, as calls from several threads would.
    """

    def __init__(self, sync: DeltaCore) -> None:
        self.sync = sync
        """The underlying synchronous store (for what has no async twin, such as
        ``owns_vector_index``)."""

    # ---- opening and closing --------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        location: str | Path | None = None,
        *,
        config: DeltaCoreConfig | None = None,
        extractor: DeltaExtractor | None = None,
        allow_embedder_change: bool = False,
        fact_extractor: FactExtractor | None = None,
        **settings: Any,
    ) -> AsyncDeltaCore:
        """Open (and set up) a store; see :meth:`DeltaCore.open`."""
        sync = await asyncio.to_thread(
            DeltaCore.open,
            location,
            config=config,
            extractor=extractor,
            allow_embedder_change=allow_embedder_change,
            fact_extractor=fact_extractor,
            **settings,
        )
        return cls(sync)

    async def close(self) -> None:
        """Close the store; see :meth:`DeltaCore.close`."""
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> AsyncDeltaCore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---- write path -------------------------------------------------------------------------

    async def ingest(
        self,
        events: Sequence[Event | dict[str, Any]],
        *,
        channel: Channel | str | None = None,
        principal: str | None = None,
        staged: bool = False,
    ) -> IngestResult:
        """Store a batch of events; see :meth:`DeltaCore.ingest` (``staged=True``: acknowledged
        once durable in the inbox, applied shortly after)."""
        return await asyncio.to_thread(self.sync.ingest, events, channel=channel, principal=principal, staged=staged)

    async def add(self, text: str | Event | dict[str, Any], *, channel: Channel | str | None = None, **fields: Any) -> str:
        """Store one event and return its id; see :meth:`DeltaCore.add`."""
        return await asyncio.to_thread(self.sync.add, text, channel=channel, **fields)

    async def apply_outbox(self) -> int:
        """Apply pending vector writes; see :meth:`DeltaCore.apply_outbox`."""
        return await asyncio.to_thread(self.sync.apply_outbox)

    # ---- read path ----------------------------------------------------------------------------

    async def query(
        self, criteria: QueryCriteria | str | None = None, /, *, explain: bool = False, **fields: Any
    ) -> list[MemoryPacket] | QueryExplanation:
        """Retrieve memories; see :meth:`DeltaCore.query`."""
        return await asyncio.to_thread(self.sync.query, criteria, explain=explain, **fields)

    async def events(
        self, criteria: QueryCriteria | None = None, /, *, after: str | None = None, limit: int = 1000, **fields: Any
    ) -> list[Event]:
        """Stored events matching the criteria's filters; see :meth:`DeltaCore.events`."""
        return await asyncio.to_thread(self.sync.events, criteria, after=after, limit=limit, **fields)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` from this store's embedder; see :meth:`DeltaCore.embed`."""
        return await asyncio.to_thread(self.sync.embed, texts)

    async def get(self, event_id: str, *, latest: bool = False) -> Event:
        """The stored event ``event_id``; see :meth:`DeltaCore.get`."""
        return await asyncio.to_thread(self.sync.get, event_id, latest=latest)

    async def query_causal(self, node_id: str, depth: int = 5, direction: str = "ancestors") -> CausalChain:
        """Walk provenance from a delta or event; see :meth:`DeltaCore.query_causal`."""
        return await asyncio.to_thread(self.sync.query_causal, node_id, depth, direction)

    async def record_retrieval(
        self,
        event_ids: Sequence[str],
        *,
        episode_id: str | None = None,
        query: str | None = None,
        tenant: str = "default",
    ) -> int:
        """Record the memories handed to the agent; see :meth:`DeltaCore.record_retrieval`."""
        return await asyncio.to_thread(
            self.sync.record_retrieval, event_ids, episode_id=episode_id, query=query, tenant=tenant
        )

    async def retrievals(self, episode_id: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """What :meth:`record_retrieval` logged; see :meth:`DeltaCore.retrievals`."""
        return await asyncio.to_thread(self.sync.retrievals, episode_id, tenant=tenant)

    async def tool_schemas(self, tool_name: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """Every schema each tool was seen with; see :meth:`DeltaCore.tool_schemas`."""
        return await asyncio.to_thread(self.sync.tool_schemas, tool_name, tenant=tenant)

    async def observe_tools(
        self, tools: Mapping[str, Any] | Sequence[Any], *, tenant: str = "default", source: str | None = None
    ) -> DriftReport:
        """Register the tools an agent is offered; see :meth:`DeltaCore.observe_tools`."""
        return await asyncio.to_thread(self.sync.observe_tools, tools, tenant=tenant, source=source)

    async def recall_decisions(
        self,
        context: str,
        *,
        tool: str | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        top_k: int = 5,
        include_failed: bool = True,
        min_confidence: float = 0.0,
        min_similarity: float = 0.0,
        exclude_tainted: bool = True,
    ) -> list[Decision]:
        """What was done before in situations like ``context``; see :meth:`DeltaCore.recall_decisions`."""
        return await asyncio.to_thread(
            self.sync.recall_decisions,
            context,
            tool=tool,
            tenant=tenant,
            agent_id=agent_id,
            top_k=top_k,
            include_failed=include_failed,
            min_confidence=min_confidence,
            min_similarity=min_similarity,
            exclude_tainted=exclude_tainted,
        )

    async def propagate(self, node_id: str, exception: str, *, reason: str | None = None) -> PropagationReport:
        """Propagate an exception through provenance; see :meth:`DeltaCore.propagate`."""
        return await asyncio.to_thread(self.sync.propagate, node_id, exception, reason=reason)

    # ---- learning from outcomes ---------------------------------------------------------------

    async def record_outcome(
        self,
        episode_id: str,
        reward: float,
        *,
        tenant: str = "default",
        necessary: Collection[str] | None = None,
    ) -> OutcomeReport:
        """Learn from how an episode ended; see :meth:`DeltaCore.record_outcome`."""
        return await asyncio.to_thread(self.sync.record_outcome, episode_id, reward, tenant=tenant, necessary=necessary)

    async def feedback(self, event_id: str, reward: float, *, tenant: str | None = None) -> OutcomeReport:
        """Feedback on one step; see :meth:`DeltaCore.feedback`."""
        return await asyncio.to_thread(self.sync.feedback, event_id, reward, tenant=tenant)

    async def review_queue(self, *, tenant: str | None = "default", include_resolved: bool = False) -> list[ReviewItem]:
        """Items waiting for a person; see :meth:`DeltaCore.review_queue`."""
        return await asyncio.to_thread(self.sync.review_queue, tenant=tenant, include_resolved=include_resolved)

    async def resolve_review(self, item_id: int, resolution: str, *, args: dict[str, Any] | None = None) -> ReviewItem:
        """Close a review item; see :meth:`DeltaCore.resolve_review`."""
        return await asyncio.to_thread(self.sync.resolve_review, item_id, resolution, args=args)

    # ---- plans as schemas (issue 17) -------------------------------------------------------------

    async def recall_plans(
        self,
        task: str | Mapping[str, Any],
        tools: Mapping[str, Any] | Sequence[Any] | None = None,
        *,
        tenant: str = "default",
        agent_id: str | None = None,
        top_k: int = 3,
    ) -> list[Plan]:
        """Plans for tasks like ``task``, ready to run; see :meth:`DeltaCore.recall_plans`."""
        return await asyncio.to_thread(self.sync.recall_plans, task, tools, tenant=tenant, agent_id=agent_id, top_k=top_k)

    async def declare_failure(self, event_id: str, kind: str, *, tenant: str = "default") -> None:
        """Declare a tool failure transient or permanent; see :meth:`DeltaCore.declare_failure`."""
        return await asyncio.to_thread(self.sync.declare_failure, event_id, kind, tenant=tenant)

    async def schema_get(self, schema_id: str, *, tenant: str = "default") -> Schema:
        """One plan schema; see :meth:`DeltaCore.schema_get`."""
        return await asyncio.to_thread(self.sync.schema_get, schema_id, tenant=tenant)

    async def schema_update(self, schema_id: str, *, tenant: str = "default", **changes: Any) -> Schema:
        """Change a schema (a new version); see :meth:`DeltaCore.schema_update`."""
        return await asyncio.to_thread(functools.partial(self.sync.schema_update, schema_id, tenant=tenant, **changes))

    async def schema_rollback(self, schema_id: str, version: int, *, tenant: str = "default") -> Schema:
        """Make an earlier version current; see :meth:`DeltaCore.schema_rollback`."""
        return await asyncio.to_thread(self.sync.schema_rollback, schema_id, version, tenant=tenant)

    async def schema_export(self, *, tenant: str = "default") -> dict[str, Any]:
        """Every schema as a versioned bundle; see :meth:`DeltaCore.schema_export`."""
        return await asyncio.to_thread(self.sync.schema_export, tenant=tenant)

    async def schema_import(self, bundle: Mapping[str, Any] | str, *, tenant: str = "default", provenance: str = "PRIOR") -> int:
        """Import a schema bundle (cold-start priors); see :meth:`DeltaCore.schema_import`."""
        return await asyncio.to_thread(self.sync.schema_import, bundle, tenant=tenant, provenance=provenance)

    # ---- trust gateway --------------------------------------------------------------------------

    async def quarantined(self, *, tenant: str = "default", limit: int = 1000) -> list[Event]:
        """Events waiting in QUARANTINE for review; see :meth:`DeltaCore.quarantined`."""
        return await asyncio.to_thread(self.sync.quarantined, tenant=tenant, limit=limit)

    async def quarantine_review(self, event_ids: Sequence[str], verdict: str, *, tenant: str = "default") -> QuarantineReview:
        """Apply a reviewer's verdict to quarantined events; see :meth:`DeltaCore.quarantine_review`."""
        return await asyncio.to_thread(self.sync.quarantine_review, event_ids, verdict, tenant=tenant)

    async def security_events(
        self, since: Any = None, *, kind: str | None = None, tenant: str | None = "default", limit: int = 10_000
    ) -> list[SecurityEvent]:
        """The security log; see :meth:`DeltaCore.security_events`."""
        return await asyncio.to_thread(self.sync.security_events, since, kind=kind, tenant=tenant, limit=limit)

    async def trust_score(self, source: str, *, tenant: str = "default") -> float:
        """The learned reputation of a writer; see :meth:`DeltaCore.trust_score`."""
        return await asyncio.to_thread(self.sync.trust_score, source, tenant=tenant)

    async def namespaces(self, event_ids: Sequence[str], *, tenant: str = "default") -> dict[str, Namespace]:
        """The trust namespace of each stored event; see :meth:`DeltaCore.namespaces`."""
        return await asyncio.to_thread(self.sync.namespaces, event_ids, tenant=tenant)

    # ---- delete and maintenance -------------------------------------------------------------

    async def delete(
        self,
        event_ids: Sequence[str] | None = None,
        *,
        entity: str | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> DeleteResult:
        """Delete events with everything derived from them; see :meth:`DeltaCore.delete`."""
        return await asyncio.to_thread(
            self.sync.delete,
            event_ids,
            entity=entity,
            tenant=tenant,
            agent_id=agent_id,
            user_id=user_id,
            session_id=session_id,
        )

    async def reindex(
        self, tenant: str | None = None, *, reembed: bool = False, batch_size: int = 512, progress: Any = None
    ) -> int:
        """Rebuild the vector index from SQL; see :meth:`DeltaCore.reindex` (``progress`` runs in the worker thread)."""
        return await asyncio.to_thread(self.sync.reindex, tenant, reembed=reembed, batch_size=batch_size, progress=progress)

    async def stats(self, tenant: str | None = None) -> StoreStats:
        """Counts and health of the store; see :meth:`DeltaCore.stats`."""
        return await asyncio.to_thread(self.sync.stats, tenant)

    async def system_events(self, kind: str | None = None, tenant: str | None = None) -> list[dict[str, Any]]:
        """Logged system events; see :meth:`DeltaCore.system_events`."""
        return await asyncio.to_thread(self.sync.system_events, kind, tenant)

    # ---- beliefs --------------------------------------------------------------------------------

    async def facts(
        self, subject: str | None = None, attribute: str | None = None, at: Any = None, *, tenant: str = "default"
    ) -> list[Fact]:
        """Facts valid at ``at``; see :meth:`DeltaCore.facts`."""
        return await asyncio.to_thread(self.sync.facts, subject, attribute, at, tenant=tenant)

    async def history(self, subject: str, attribute: str, *, tenant: str = "default") -> list[Fact]:
        """Every value a slot ever had; see :meth:`DeltaCore.history`."""
        return await asyncio.to_thread(self.sync.history, subject, attribute, tenant=tenant)

    async def query_belief(self, entity: str, at_time: Any = None, *, tenant: str = "default") -> BeliefState:
        """What is believed about an entity; see :meth:`DeltaCore.query_belief`."""
        return await asyncio.to_thread(self.sync.query_belief, entity, at_time, tenant=tenant)

    async def conflicts(self, *, tenant: str = "default", include_resolved: bool = False) -> list[ConflictRecord]:
        """Unsettled contradictions; see :meth:`DeltaCore.conflicts`."""
        return await asyncio.to_thread(self.sync.conflicts, tenant=tenant, include_resolved=include_resolved)

    async def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Settle a conflict; see :meth:`DeltaCore.resolve_conflict`."""
        return await asyncio.to_thread(self.sync.resolve_conflict, conflict_id, resolution)

    # ---- forgetting -----------------------------------------------------------------------------

    async def forget(self, request: RequestLike | None = None, /, *, dry_run: bool = False, **fields: Any) -> ForgetCertificate:
        """Erase a subject everywhere; see :meth:`DeltaCore.forget` (returns a ``ForgetCertificate``)."""
        return await asyncio.to_thread(functools.partial(self.sync.forget, request, dry_run=dry_run, **fields))

    async def forget_many(self, requests: Sequence[RequestLike], *, dry_run: bool = False) -> list[ForgetCertificate]:
        """Several forget requests sharing one physical pass; see :meth:`DeltaCore.forget_many`."""
        return await asyncio.to_thread(self.sync.forget_many, requests, dry_run=dry_run)

    async def forget_status(self, request_id: str) -> ForgetStatus:
        """Where a forget request stands; see :meth:`DeltaCore.forget_status`."""
        return await asyncio.to_thread(self.sync.forget_status, request_id)

    # ---- erasure audit ----------------------------------------------------------------------------

    async def verify_erasure(
        self,
        subject: Any = None,
        *,
        identifiers: Sequence[str] = (),
        vectors: Sequence[Sequence[float]] | np.ndarray = (),
        controls: Sequence[str] | None = None,
        questions: Sequence[str] = (),
        baseline: Sequence[str] = (),
        erased_event_ids: Sequence[str] = (),
        tenant: str = "default",
        top_k: int = 10,
        alpha: float = 0.05,
        scan_files: bool = True,
        extra_folders: Sequence[Path | str] = (),
    ) -> AuditResult:
        """Audit that a subject is gone; see :meth:`DeltaCore.verify_erasure`."""
        return await asyncio.to_thread(
            self.sync.verify_erasure,
            subject,
            identifiers=identifiers,
            vectors=vectors,
            controls=controls,
            questions=questions,
            baseline=baseline,
            erased_event_ids=erased_event_ids,
            tenant=tenant,
            top_k=top_k,
            alpha=alpha,
            scan_files=scan_files,
            extra_folders=extra_folders,
        )
    # ---- operating (core/engine/monitoring.py) ----

    async def monitor(self, tenant: str | None = None) -> MemoryEconomy:
        """The memory economy; see :meth:`DeltaCore.monitor`."""
        return await asyncio.to_thread(self.sync.monitor, tenant)

    async def set_budget(
        self, tenant: str, budget: MemoryBudget | dict[str, Any] | None = None, **limits: Any
    ) -> MemoryBudget | None:
        """Set or remove a tenant's budget; see :meth:`DeltaCore.set_budget`."""
        return await asyncio.to_thread(functools.partial(self.sync.set_budget, tenant, budget, **limits))
    # ---- versions -------------------------------------------------------------------------------

    async def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        meta: dict[str, Any] | None = None,
        channel: Channel | str | None = None,
        tenant: str = "default",
        **fields: Any,
    ) -> UpdateResult:
        """Write a new version of a memory; see :meth:`DeltaCore.update`."""
        return await asyncio.to_thread(
            self.sync.update, memory_id, text=text, meta=meta, channel=channel, tenant=tenant, **fields
        )

    async def versions(self, memory_id: str, *, tenant: str = "default") -> list[MemoryVersion]:
        """Every version of a memory, oldest first; see :meth:`DeltaCore.versions`."""
        return await asyncio.to_thread(self.sync.versions, memory_id, tenant=tenant)

    # ---- backup ---------------------------------------------------------------------------------

    async def export(
        self, path: str | Path, tenant: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> DumpManifest:
        """Write a versioned dump of a tenant or the store; see :meth:`DeltaCore.export`."""
        return await asyncio.to_thread(self.sync.export, path, tenant, progress=progress)

    async def restore(self, path: str | Path, *, progress: Callable[[int, int], None] | None = None) -> RestoreReport:
        """Restore a dump; see :meth:`DeltaCore.restore`."""
        return await asyncio.to_thread(self.sync.restore, path, progress=progress)

    # ---- LangGraph checkpoints ------------------------------------------------------------------

    async def checkpoints(self) -> CheckpointRepository:
        """The checkpoint repository; see :meth:`DeltaCore.checkpoints` (its calls are sync: the
        LangGraph saver's async methods run them in worker threads)."""
        return self.sync.checkpoints()

    # ---- consolidation ----------------------------------------------------------------------------

    async def consolidate(
        self,
        phase: ConsolidationPhase | str | Sequence[ConsolidationPhase | str] | None = None,
        *,
        budget: float | None = None,
        tenant: str = "default",
        progress: Callable[[str, int, int], None] | None = None,
    ) -> ConsolidationReport:
        """Run one sleep cycle; see :meth:`DeltaCore.consolidate`."""
        return await asyncio.to_thread(self.sync.consolidate, phase, budget=budget, tenant=tenant, progress=progress)

    async def consolidate_status(self, *, tenant: str = "default") -> ConsolidationStatus:
        """Where consolidation stands; see :meth:`DeltaCore.consolidate_status`."""
        return await asyncio.to_thread(self.sync.consolidate_status, tenant=tenant)

    async def register_probes(
        self, probes: Sequence[str | dict[str, Any]], *, tenant: str = "default", replace: bool = False
    ) -> int:
        """Add probe queries to the shadow evaluation; see :meth:`DeltaCore.register_probes`."""
        return await asyncio.to_thread(self.sync.register_probes, probes, tenant=tenant, replace=replace)
