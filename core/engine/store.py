"""The ``DeltaCore`` class: construction, the write and read paths, maintenance."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deltacore.config import DeltaCoreConfig
from deltacore.delta import DeltaExtractor, RuleBasedExtractor
from deltacore.delta.drift import DriftMonitor
from deltacore.delta.outcomes import Learner
from deltacore.delta.propagation import Propagator
from deltacore.embedding import default_embedder, embed_texts
from deltacore.embedding.guard import CheckedEmbedder
from deltacore.errors import (
    ConfigurationError,
    InvalidEventError,
    InvalidQueryError,
    NotFoundError,
    ReadOnlyStoreError,
    StoreClosedError,
    StoreLockedError,
    first_validation_error,
)
from deltacore.gateway.screen import TrustGateway
from deltacore.gateway.honeypots import Honeypots
from deltacore.gateway.quarantine import QuarantineDesk
from deltacore.governor import TokenCounter
from deltacore.delta.ids import delta_id_for
from deltacore.ingest.after_commit import AfterCommitSteps
from deltacore.ingest.batch import coerce_batch, coerce_channel, with_principal
from deltacore.ingest.pipeline import IngestPipeline
from deltacore.ingest.validation import FieldLimits
from deltacore.ingest.steps import BeliefStep, HoneypotStep, OutboxStep, SchemaDriftStep
from deltacore.ingest.trust_effects import TrustPlaybookStep
from deltacore.ingest.write_set import embedding_text
from deltacore.model import (
    CausalChain,
    Channel,
    DeleteResult,
    Event,
    IngestResult,
    MemoryPacket,
    QueryCriteria,
    StoreStats,
)
from deltacore.gateway.standing import newcomer_sources
from deltacore.retrieval import Retriever
from deltacore.retrieval.explain import explain_query
from deltacore.model.explain import QueryExplanation
from deltacore.retrieval.belief_ranking import BeliefRanking
from deltacore.retrieval.schema_packets import SchemaSource
from deltacore.retrieval.decisions import DecisionRecall
from deltacore.retrieval.causal import causal_chain
from deltacore.belief import BeliefLayer, FactExtractor, belief_extractor, fact_extractor_for, slot_matcher
from deltacore.engine.beliefs import BeliefMethods
from deltacore.engine.consolidation import ConsolidationMethods
from deltacore.engine.erasure_audit import ErasureAuditMethods
from deltacore.engine.forgetting import ForgettingMethods
from deltacore.engine.learning import LearningMethods
from deltacore.engine.plans import PlanMethods
from deltacore.learning import PlanRecall, SchemaBook
from deltacore.storage.plan_store import PlanRepository
from deltacore.engine.monitoring import MonitoringMethods, traced
from deltacore.engine.lifecycle import ClosedGuard
from deltacore.engine.trust import TrustMethods
from deltacore.engine.vector_writes import VectorWriteMethods
from deltacore.engine.staged_writes import StagedWriteMethods, read_your_writes
from deltacore.engine.arguments import check_keys
from deltacore.engine.health import HealthChecks, open_sql
from deltacore.storage import HotTier
from deltacore.engine.versions import VersionMethods
from deltacore.engine.backup import BackupMethods
from deltacore.storage.vector_access import VectorAccess
from deltacore.storage.filters import event_filters
from deltacore.storage.fact_store import FactStore
from deltacore.storage.journal import AfterCommitJournal
from deltacore.storage.records import event_from_row
from deltacore.storage.decision_store import DecisionRepository
from deltacore.storage.drift_store import DriftRepository
from deltacore.storage.learning_store import LearningRepository
from deltacore.storage.trust_store import TrustStore
from deltacore.storage.checkpoint_store import CheckpointRepository
from deltacore.storage.reindex import rebuild_index
from deltacore.storage.reindex import reembed as reembed_vectors

log = logging.getLogger(__name__)


@read_your_writes  # engine/staged_writes.py: every public call applies pending staged writes first
class DeltaCore(
    ClosedGuard,
    LearningMethods,
    PlanMethods,
    TrustMethods,
    BeliefMethods,
    HealthChecks,
    ForgettingMethods,
    ErasureAuditMethods,
    MonitoringMethods,
    VersionMethods,
    BackupMethods,
    ConsolidationMethods,
    VectorWriteMethods,
    StagedWriteMethods,
):
    """A memory store for agents. Open it with :meth:`open`; close it (or use ``with``)."""

    def __init__(self, config: DeltaCoreConfig, extractor: DeltaExtractor | None = None,
                 allow_embedder_change: bool = False, fact_extractor: FactExtractor | None = None) -> None:
        self._sql, config, read_only_because = open_sql(config)  # engine/health.py: a full disk opens read-only
        self.config = config
        self._tokens = TokenCounter()
        embedder = config.embedder if config.embedder is not None else default_embedder()
        check = (lambda name, dim: None) if allow_embedder_change else self._sql.check_embedder
        self._embedder = CheckedEmbedder(embedder, check)
        self._hot = HotTier(config.hot_capacity)
        try:
            self._vectors = VectorAccess(
                self._sql,
                chroma_url=config.chroma_url,
                folder=config.path.expanduser(),
                collection_prefix=config.collection_prefix,
                refuse_second_writer=config.multi_process == "refuse",
                read_only=config.read_only,
                embed=self._embed_pending,  # events committed without a vector (vector_writes="background")
            )
        except StoreLockedError:
            self._sql.close()
            raise
        self._trust = TrustStore(self._sql)
        self._honeypots = Honeypots(self._sql, self._trust, config.trust, self._embedder)
        self._quarantine = QuarantineDesk(self._sql, self._trust, config.trust)
        learning, drift = LearningRepository(self._sql), DriftRepository(self._sql)
        self._plan_repo = PlanRepository(self._sql)  # read-only tools demote their steps' credit (issue 17)
        self._learner = Learner(self._sql, learning, drift, config.decay_rate_per_hour, read_only=self._plan_repo.read_only_tools)
        self._drift = DriftMonitor(self._sql, drift, learning, config.decay_rate_per_hour)
        self._propagator = Propagator(self._sql)
        self._beliefs = BeliefLayer(
            FactStore(self._sql),
            config.belief,
            extractor=fact_extractor_for(fact_extractor, belief_extractor(config.belief, self._embedder)),
            newcomers=lambda conn, tenant, sources: newcomer_sources(conn, config.trust, tenant, sources),
            slots=slot_matcher(config.belief, self._embedder),
        )
        self._pipeline = IngestPipeline(
            self._sql,
            TrustGateway(config.trust, self._trust),
            extractor or RuleBasedExtractor(),
            self._embedder,
            self._tokens,
            FieldLimits.of(config),
            self._after_commit_steps(),
            dedupe=config.dedupe,
            embed_inline=self._embeds_inline,  # engine/vector_writes.py
            embed_ahead=self._embed_ahead,
        )
        self._init_staged_writes()  # engine/staged_writes.py: ingest(..., staged=True); first, as every public call reads it
        self._retriever = Retriever(
            self._sql,
            self._vectors.current,
            self._embedder.embed_one,
            candidate_pool=config.candidate_pool,
            rrf_k=config.rrf_k,
            fusion=config.fusion,
            decay_rate_per_hour=config.decay_rate_per_hour,
            hot=self._hot,
            router_threads=config.router_threads,
            reranker=config.reranker,
            rerank_depth=config.rerank_depth,
            trust=config.trust,
            honeypots=self._honeypots,
            on_alert=self._honeypot_alert,
            beliefs=BeliefRanking(self._beliefs),
        )
        self._decisions = DecisionRecall(
            self._sql, DecisionRepository(self._sql), drift, self._embedder.embed_one, config.decay_rate_per_hour
        )
        # Plans as schemas (issue 17): recall_plans, declare_failure, schema_* (engine/plans.py).
        self._plan_recall = PlanRecall(self._sql, self._plan_repo, drift, self._embedder)
        self._schemas = SchemaBook(self._sql, self._plan_repo, self._plan_recall)
        # The schema router (routers=["schema"]): a packet that is a schema with its support.
        self._retriever.schemas = SchemaSource(
            self._plan_repo, self._plan_recall, self._embedder, self._tokens, config.consolidation.fidelity_floor
        )
        self._init_vector_writes()  # engine/vector_writes.py
        self._init_governance()  # budgets, degradation levels, monitoring, telemetry (monitoring.py)
        self._init_consolidation()  # Layer 5: cycles, the COLD tier, the trigger thread (engine/consolidation.py)
        self._open_checks(read_only_because)  # crash recovery and the vector index checked against SQL (engine/health.py)
        if not self.config.read_only:
            self._resume_forgets()  # a forget interrupted by a crash finishes before any new call

    def _after_commit_steps(self) -> AfterCommitSteps:
        """What follows every committed write, in order (later layers register theirs)."""
        # SQLite serialises writers, so durable steps can share the write's one commit (fsync).
        steps = AfterCommitSteps(self._sql, AfterCommitJournal(), in_write_transaction=self._sql.dialect.is_sqlite)
        steps.register(TrustPlaybookStep(self.config.trust, self._trust, self._propagator))
        steps.register(BeliefStep(self._beliefs))
        steps.register(OutboxStep(self._vectors_after_write))
        steps.register(SchemaDriftStep(self._drift))
        steps.register(HoneypotStep(self._honeypots))
        return steps

    # ---- opening and closing --------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        location: str | Path | None = None,
        *,
        config: DeltaCoreConfig | None = None,
        extractor: DeltaExtractor | None = None,
        allow_embedder_change: bool = False,
        fact_extractor: FactExtractor | None = None,
        **settings: Any,
    ) -> DeltaCore:
        """Open (and set up) a store.

        ``location`` is a folder for the embedded default, or a database URL
        (``postgresql+psycopg://…``) for scale-out, usually with ``chroma_url=``. Other keyword
        arguments are :class:`DeltaCoreConfig` fields. ``fact_extractor``: what finds facts in events
        instead of the rules (``deltacore.belief.LLMFactExtractor`` adds a language model to them)."""
        if config is None:
            if location is not None:
                key = "database_url" if "://" in str(location) else "path"
                settings.setdefault(key, location)
            config = DeltaCoreConfig.build(**settings)
        elif location is not None or settings:
            raise ConfigurationError("config", "pass either a config object or settings, not both")
        return cls(config, extractor, allow_embedder_change, fact_extractor)

    def close(self) -> None:
        """Release connections, the vector index and worker threads; closing twice is a no-op.
        Every other call on a closed store raises :class:`~deltacore.errors.StoreClosedError`."""
        if self._closed:
            return
        self._stop_consolidation()  # a running cycle may still write vectors
        self._stop_staged_writes()  # applies the inbox: its events then reach the vector writes below
        self._stop_vector_writes()  # drains what is pending while the index is still open
        self._refuse_calls()  # engine/lifecycle.py: every later public call raises StoreClosedError
        self._retriever.close()
        self._vectors.close()
        self._sql.close()

    def __enter__(self) -> DeltaCore:
        if self._closed:
            raise StoreClosedError("this store is closed; open it again with DeltaCore.open(...)")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def owns_vector_index(self) -> bool:
        """False when another process owns this embedded store's index (its vector writes wait
        in the outbox for that process, and semantic search scans the vectors in SQL)."""
        return self._vectors.current() is not None

    # ---- write path -------------------------------------------------------------------------

    def ingest(self, events: Sequence[Event | dict[str, Any]], *, channel: Channel | str | None = None,
               principal: str | None = None, staged: bool = False) -> IngestResult:  # fmt: skip
        """Store a batch of events (the write primitive).

        Good events are stored even when others are rejected; ``IngestResult.rejected`` says
        which and why. ``channel`` is where the events really came from (user, tool, document…).
        ``principal`` is who is actually speaking as the host authenticated it (set on every
        event that names none): a ``source`` that claims another voice is then an impersonation.

        ``staged=True`` (per-step hooks): validated, given ids and acknowledged once durable in the
        inbox; the write path runs soon after in the background and before any other call of this
        store (``IngestResult.staged``: the ids, not what the write path decides)."""
        batch, channel_named = with_principal(coerce_batch(events), principal), coerce_channel(channel)
        if staged:
            return self._governed_ingest(batch, channel_named, write=self._stage)
        if self._staged.pending_here:
            self._apply_staged_for_call()  # a direct write after staged ones keeps their order
        return self._governed_ingest(batch, channel_named)

    def add(self, text: str | Event | dict[str, Any], *, channel: Channel | str | None = None, **fields: Any) -> str:
        """Store one event and return its id (the id of the stored copy for a duplicate)."""
        event = {"text": text, **fields} if isinstance(text, str) else text
        result = self.ingest([event], channel=channel)
        if result.rejected:
            rejection = result.rejected[0]
            raise InvalidEventError(rejection.field, rejection.reason)
        event_id = result.event_ids[0]
        assert event_id is not None
        return event_id

    def apply_outbox(self) -> int:
        """Apply pending vector writes; returns how many. Runs after every write and on open."""
        return self._vectors.drain()

    # ---- read path ----------------------------------------------------------------------------

    def query(
        self, criteria: QueryCriteria | str | None = None, /, *, explain: bool = False, **fields: Any
    ) -> list[MemoryPacket] | QueryExplanation:
        """Retrieve memories.

        ``query("what broke?", top_k=5, max_tokens=400)`` or ``query(QueryCriteria(...))``.
        ``explain=True`` returns a :class:`~deltacore.model.QueryExplanation`: the same packets,
        which routers ran and why, and each router's rank and score for each packet.
        """
        if isinstance(criteria, QueryCriteria):
            if fields:
                criteria = criteria.model_copy(update=fields)
        else:
            if criteria is not None:
                fields.setdefault("text", criteria)
            criteria = _build_criteria(fields)
        with self._query_activity.query():  # a consolidation cycle steps aside meanwhile (consolidation/pacing.py)
            if not explain:
                packets = self._governed_query(criteria)  # governor, outbox drain, telemetry: monitoring.py
                return self._with_cold(criteria, packets) if criteria.include_cold else packets
            trace: dict[str, Any] = {}
            return explain_query(criteria, trace, self._governed_query(criteria, trace=trace))

    def events(
        self, criteria: QueryCriteria | None = None, /, *, after: str | None = None, limit: int = 1000, **fields: Any
    ) -> list[Event]:
        """Stored events matching the criteria's filters (not its text), oldest first.

        Page with ``after=<last id of the previous page>``. Quarantined events are left out
        unless ``include_quarantined=True``."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidQueryError("limit", f"must be a positive integer, got {limit!r}")
        check_keys(after=after)
        if criteria is None:
            criteria = _build_criteria(fields)
        elif fields:
            criteria = criteria.model_copy(update=fields)
        with self._sql.reader() as conn:
            rows = self._sql.list_events(conn, event_filters(criteria), after, limit)
        return [event_from_row(row) for row in rows]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` from this store's embedder (for frameworks that pass vectors around)."""
        return self._embedder(list(texts))

    def get(self, event_id: str, *, latest: bool = False) -> Event:
        """The stored event ``event_id``; with ``latest=True``, the current version of the memory
        it belongs to (see :meth:`update`)."""
        check_keys(event_id=event_id)
        with self._sql.reader() as conn:
            if latest:
                event_id = self._sql.head_version(conn, event_id) or event_id
            row = self._sql.fetch_events(conn, [event_id]).get(event_id)
        if row is None:
            archived = self._cold_event(event_id)  # consolidation moved it to the COLD tier
            if archived is not None:
                return archived
            raise NotFoundError(f"no event with id {event_id!r}")
        return event_from_row(row)

    def query_causal(self, node_id: str, depth: int = 5, direction: str = "ancestors") -> CausalChain:
        """Walk provenance from a delta (or from an event's delta): ``ancestors`` (what caused
        it), ``descendants`` (what it caused) or ``both``, up to ``depth`` hops."""
        check_keys(node_id=node_id)
        return causal_chain(self._sql, node_id, delta_id_for(node_id), depth, direction, self.config.decay_rate_per_hour)

    def record_retrieval(
        self,
        event_ids: Sequence[str],
        *,
        episode_id: str | None = None,
        query: str | None = None,
        tenant: str = "default",
    ) -> int:
        """Record that these memories were handed to the agent (in rank order) during an episode.

        Adapters call it from retriever hooks; outcome-driven learning reads it. Unknown ids are
        ignored; returns how many were recorded."""
        check_keys(event_ids=list(event_ids), episode_id=episode_id, query=query, tenant=tenant)
        now = time.time()
        rows = [
            {"tenant": tenant, "episode_id": episode_id, "event_id": event_id, "rank": rank, "query": query, "ts": now}
            for rank, event_id in enumerate(event_ids, start=1)
        ]
        with self._sql.writer() as conn:
            return self._sql.record_retrievals(conn, rows)

    def retrievals(self, episode_id: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """What :meth:`record_retrieval` logged, oldest first."""
        check_keys(episode_id=episode_id, tenant=tenant)
        return self._sql.retrievals(tenant, episode_id)

    def tool_schemas(self, tool_name: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """Every schema each tool was seen with (called, or offered through ``observe_tools``), oldest first."""
        check_keys(tool_name=tool_name, tenant=tenant)
        return self._sql.tool_schemas(tenant, tool_name)

    # ---- delete and maintenance -------------------------------------------------------------

    @traced("delete_memory")
    def delete(
        self,
        event_ids: Sequence[str] | None = None,
        *,
        entity: str | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> DeleteResult:
        """Delete events with their deltas, links, full-text entries and vectors.

        By id, by ``entity`` (events listing it, spoken by it, or of that user), or by scope
        (``agent_id`` / ``user_id`` / ``session_id`` within ``tenant``). Selectors combine with AND.
        """
        if event_ids is None and entity is None and agent_id is None and user_id is None and session_id is None:
            raise InvalidQueryError("delete", "name what to delete: event_ids, entity, agent_id, user_id or session_id")
        check_keys(
            event_ids=list(event_ids or []), entity=entity, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id
        )
        if event_ids is not None:
            event_ids = self._all_versions(event_ids)  # a memory's every version goes with it
            event_ids = self._with_merged_sources(event_ids)  # and a merged memory's originals (consolidation)
        with self._sql.writer() as conn:
            ids = self._sql.select_event_ids(
                conn, tenant, event_ids, entity=entity, agent_id=agent_id, user_id=user_id, session_id=session_id
            )
            facts = self._fact_rederivation()
            touched = facts.touched(conn, ids)  # facts stated by these events are re-derived without them
            deleted, n_deltas, n_links = self._sql.delete_events(conn, ids)
            facts.rederive(conn, touched, deleted)
        self._hot.invalidate(tenant)
        self.apply_outbox()
        return DeleteResult(event_ids=deleted, deltas_removed=n_deltas, links_removed=n_links)

    def reindex(
        self, tenant: str | None = None, *, reembed: bool = False, batch_size: int = 512, progress: Any = None
    ) -> int:
        """Rebuild the vector index from SQL (all tenants, or one); returns vectors written.

        ``reembed=True`` first recomputes every vector with the embedder this store was opened
        with (after changing models; open with ``allow_embedder_change=True``). ``progress``:
        ``progress(phase, done, total)`` after each batch (phases ``"reembed"``, ``"index"``)."""
        if self.config.read_only:
            raise ReadOnlyStoreError("this store was opened with read_only=True (CLI: --read-only): reindex is refused")
        index = self._vectors.current()
        if index is None:
            raise StoreLockedError("another process owns this embedded store's vector index; reindex from that process")
        self.apply_outbox()
        tenants = [tenant] if tenant else self._sql.counts()["tenants"]
        if reembed:
            inner = self._embedder.inner
            reembed_vectors(self._sql, lambda texts: embed_texts(inner, texts), embedding_text, tenants, progress=progress)
            self._sql.set_embedder(self._embedder.name, int(embed_texts(inner, ["dimension"]).shape[1]))
        return rebuild_index(self._sql, index, tenants, batch_size, progress)

    def stats(self, tenant: str | None = None) -> StoreStats:
        """Counts and health of the store (all tenants, or one): events, deltas, links, pending
        vector writes, vectors, backends and embedder."""
        check_keys(tenant=tenant)
        self._drain_for_read()  # pending background vector writes count as written
        counts = self._sql.counts(tenant)
        index = self._vectors.current()
        vectors = None
        if index is not None:
            names = [tenant] if tenant else counts["tenants"]
            vectors = sum(index.count(name) for name in names)
        return StoreStats(
            events=counts["events"],
            deltas=counts["deltas"],
            links=counts["links"],
            outbox_pending=counts["outbox_pending"],
            vectors=vectors,
            tenants=counts["tenants"],
            backend=self._sql.dialect.name,
            vector_backend=self._vectors.kind,
            embedder=self._sql.stored_embedder() or self._embedder.name,
            problems=[*self._problems, *self._vector_write_problems(), *self._staged_write_problems()],
        )

    def checkpoints(self) -> CheckpointRepository:
        """The repository of LangGraph checkpoints kept in this store's database (what
        ``deltacore.adapters.langchain.DeltaCoreCheckpointSaver`` reads and writes)."""
        return CheckpointRepository(self._sql)

    def system_events(self, kind: str | None = None, tenant: str | None = None) -> list[dict[str, Any]]:
        """Logged system events (``CAUSAL_LOOP`` …), oldest first."""
        check_keys(kind=kind, tenant=tenant)
        return self._sql.system_events(kind, tenant)


def _build_criteria(fields: dict[str, Any]) -> QueryCriteria:
    from pydantic import ValidationError

    try:
        return QueryCriteria(**fields)
    except ValidationError as exc:
        raise InvalidQueryError(*first_validation_error(exc, "criteria")) from exc

