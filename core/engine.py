"""The ``DeltaCore`` facade: wires the layers together and holds no business logic.

>>> from deltacore import DeltaCore
>>> from deltacore.testing import FakeEmbedder
>>> import tempfile
>>> with DeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
...     _ = memory.ingest([{"text": "the api service runs on port 8080", "kind": "fact"}])
...     memory.query("which port does the api use?", top_k=1)[0].text
'the api service runs on port 8080'
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from deltacore.belief import BeliefLayer, BeliefState, ConflictRecord, Fact
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
    StoreLockedError,
    first_validation_error,
)
from deltacore.gateway import Gateway
from deltacore.gateway.honeypots import Honeypots
from deltacore.gateway.quarantine import QuarantineDesk
from deltacore.gateway.scoring import TrustScorer
from deltacore.gateway.standing import newcomer_sources
from deltacore.governor import TokenCounter
from deltacore.ingest.pipeline import IngestPipeline, delta_id_for, embedding_text
from deltacore.ingest.tool_specs import read_tool_specs
from deltacore.model import (
    CausalChain,
    Channel,
    Decision,
    DeleteResult,
    DriftReport,
    Event,
    IngestResult,
    MemoryPacket,
    OutcomeReport,
    PropagationReport,
    QueryCriteria,
    QuarantineReview,
    ReviewItem,
    SecurityEvent,
    StoreStats,
)
from deltacore.retrieval import Retriever
from deltacore.retrieval.decisions import DecisionRecall
from deltacore.retrieval.belief_ranking import BeliefRanking
from deltacore.retrieval.causal import causal_chain
from deltacore.storage import ChromaIndex, HotTier, OutboxApplier, SQLStore, VectorOwnership
from deltacore.storage.fact_store import FactStore
from deltacore.storage.filters import event_filters
from deltacore.storage.records import event_from_row
from deltacore.storage.trust_store import TrustStore
from deltacore.storage.reindex import rebuild_index
from deltacore.storage.reindex import reembed as reembed_vectors

log = logging.getLogger(__name__)


class DeltaCore:
    """A memory store for agents. Open it with :meth:`open`; close it (or use ``with``)."""

    def __init__(
        self, config: DeltaCoreConfig, extractor: DeltaExtractor | None = None, allow_embedder_change: bool = False
    ) -> None:
        self.config = config
        self._sql = SQLStore(config)
        self._sql.setup()
        self._tokens = TokenCounter()
        embedder = config.embedder if config.embedder is not None else default_embedder()
        check = (lambda name, dim: None) if allow_embedder_change else self._sql.check_embedder
        self._embedder = CheckedEmbedder(embedder, check)
        self._index: ChromaIndex | None = None
        self._applier: OutboxApplier | None = None
        self._ownership: VectorOwnership | None = None
        self._index_lock = threading.Lock()
        self._hot = HotTier(config.hot_capacity)
        self._open_vector_index()
        self._trust = TrustStore(self._sql)
        self._honeypots = Honeypots(self._trust, config.trust, self._embedder)
        self._quarantine = QuarantineDesk(self._trust, config.trust)
        self._pipeline = IngestPipeline(
            self._sql,
            Gateway(),
            extractor or RuleBasedExtractor(),
            self._embedder,
            self._tokens,
            config.max_text_chars,
            scorer=TrustScorer(config.trust, self._trust),
            trust_store=self._trust,
        )
        self._retriever = Retriever(
            self._sql,
            self._current_index,
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
        )
        self._learner = Learner(self._sql, config.decay_rate_per_hour)
        self._drift = DriftMonitor(self._sql, config.decay_rate_per_hour)
        self._propagator = Propagator(self._sql)
        self._decisions = DecisionRecall(self._sql, self._embedder.embed_one, config.decay_rate_per_hour)
        # ---- beliefs (Layer 3): runs after each write commits; moves onto the pipeline's after-commit seam.
        self._beliefs = BeliefLayer(
            FactStore(self._sql),
            getattr(config, "belief", None),
            newcomers=lambda conn, tenant, sources: newcomer_sources(conn, config.trust, tenant, sources),
        )
        self._retriever.beliefs = BeliefRanking(self._beliefs)
        # Crash recovery: vector writes committed to the outbox but never applied are replayed now.
        self.apply_outbox()

    # ---- opening and closing --------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        location: str | Path | None = None,
        *,
        config: DeltaCoreConfig | None = None,
        extractor: DeltaExtractor | None = None,
        allow_embedder_change: bool = False,
        **settings: Any,
    ) -> DeltaCore:
        """Open (and set up) a store.

        ``location`` is a folder for the embedded default, or a database URL
        (``postgresql+psycopg://…``) for scale-out, usually with ``chroma_url=``. Other keyword
        arguments are :class:`DeltaCoreConfig` fields.
        """
        if config is None:
            if location is not None:
                key = "database_url" if "://" in str(location) else "path"
                settings.setdefault(key, location)
            config = DeltaCoreConfig.build(**settings)
        elif location is not None or settings:
            raise ConfigurationError("config", "pass either a config object or settings, not both")
        return cls(config, extractor, allow_embedder_change)

    def close(self) -> None:
        self._retriever.close()
        if self._index is not None:
            self._index.close()
        if self._ownership is not None:
            self._ownership.release()
            # A closed store must never take the lock back (it would hold it until exit).
            self._ownership = None
        self._index = None
        self._applier = None
        self._sql.close()

    def __enter__(self) -> DeltaCore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open_vector_index(self) -> None:
        if self.config.chroma_url:
            self._index = ChromaIndex.server(self.config.chroma_url, self.config.collection_prefix)
            self._applier = OutboxApplier(self._sql, self._index)
            return
        folder = self.config.path.expanduser()
        self._ownership = VectorOwnership(folder)
        if not self._try_own_embedded_index() and self.config.multi_process == "refuse":
            self._sql.close()
            raise StoreLockedError(
                f"another process owns the vector index of {folder}; use a Chroma server "
                "(chroma_url=...) for several writing processes, or multi_process='coordinate'"
            )

    def _try_own_embedded_index(self) -> bool:
        with self._index_lock:
            if self._index is not None:
                return True
            assert self._ownership is not None
            if not self._ownership.try_acquire():
                return False
            self._index = ChromaIndex.embedded(self.config.path.expanduser() / "chroma", self.config.collection_prefix)
            self._applier = OutboxApplier(self._sql, self._index)
            log.debug("this process owns the embedded vector index of %s", self.config.path)
            return True

    def _current_index(self) -> ChromaIndex | None:
        if self._index is None and self._ownership is not None:
            # The owner may have exited since: take over, and replay what it left in the outbox.
            if self._try_own_embedded_index():
                self.apply_outbox()
        return self._index

    @property
    def owns_vector_index(self) -> bool:
        """False when another process owns this embedded store's index (its vector writes wait
        in the outbox for that process, and semantic search scans the vectors in SQL)."""
        return self._current_index() is not None

    # ---- write path -------------------------------------------------------------------------

    def ingest(self, events: Sequence[Event | dict[str, Any]], *, channel: Channel | str | None = None) -> IngestResult:
        """Store a batch of events (the write primitive).

        Good events are stored even when others are rejected; ``IngestResult.rejected`` says
        which and why. ``channel`` is where the events really came from (user, tool, document…).
        """
        if isinstance(events, (Event, dict)):
            events = [events]
        events = list(events)
        result = self._pipeline.run(events, Channel(channel) if channel else None)
        self._beliefs.after_commit(result.stored)  # beliefs: after the write transaction commits
        if result.stored:
            self.apply_outbox()
            if any(_carries_schema(event) for event in events):
                # A call under a changed tool schema (E04): demote, migrate, queue for review.
                drifts = self._drift.after_ingest(result.stored)
                if drifts:
                    result = result.model_copy(update={"schema_drifts": drifts})
            self._honeypots.ensure({_tenant_of(event) for event in events})
        return result

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
        if self._current_index() is None or self._applier is None:
            return 0
        return self._applier.drain()

    # ---- read path ----------------------------------------------------------------------------

    def query(self, criteria: QueryCriteria | str | None = None, /, **fields: Any) -> list[MemoryPacket]:
        """Retrieve memories.

        ``query("what broke?", top_k=5, max_tokens=400)`` or ``query(QueryCriteria(...))``.
        """
        if isinstance(criteria, QueryCriteria):
            if fields:
                criteria = criteria.model_copy(update=fields)
        else:
            if criteria is not None:
                fields.setdefault("text", criteria)
            criteria = _build_criteria(fields)
        self.apply_outbox()  # read-your-writes across processes
        return self._retriever.query(criteria)

    def events(
        self, criteria: QueryCriteria | None = None, /, *, after: str | None = None, limit: int = 1000, **fields: Any
    ) -> list[Event]:
        """Stored events matching the criteria's filters (not its text), oldest first.

        Page with ``after=<last id of the previous page>``. Quarantined events are left out
        unless ``include_quarantined=True``."""
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

    def get(self, event_id: str) -> Event:
        """The stored event ``event_id``."""
        with self._sql.reader() as conn:
            row = self._sql.fetch_events(conn, [event_id]).get(event_id)
        if row is None:
            raise NotFoundError(f"no event with id {event_id!r}")
        return event_from_row(row)

    def query_causal(self, node_id: str, depth: int = 5, direction: str = "ancestors") -> CausalChain:
        """Walk provenance from a delta (or from an event's delta): ``ancestors`` (what caused
        it), ``descendants`` (what it caused) or ``both``, up to ``depth`` hops."""
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
        now = time.time()
        rows = [
            {"tenant": tenant, "episode_id": episode_id, "event_id": event_id, "rank": rank, "query": query, "ts": now}
            for rank, event_id in enumerate(event_ids, start=1)
        ]
        with self._sql.writer() as conn:
            return self._sql.record_retrievals(conn, rows)

    def retrievals(self, episode_id: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """What :meth:`record_retrieval` logged, oldest first."""
        return self._sql.retrievals(tenant, episode_id)

    def tool_schemas(self, tool_name: str | None = None, *, tenant: str = "default") -> list[dict[str, Any]]:
        """Every schema each tool was seen with (called, or offered through ``observe_tools``), oldest first."""
        return self._sql.tool_schemas(tenant, tool_name)

    def observe_tools(
        self, tools: Mapping[str, Any] | Sequence[Any], *, tenant: str = "default", source: str | None = None
    ) -> DriftReport:
        """Register the tools an agent is offered, without a call (adapters call it with the
        framework's tool list).

        ``tools`` is ``{name: JSON schema}`` or a list of specs (OpenAI / Anthropic / plain
        ``{"name", "parameters"}``). A schema other than the one a tool's earlier deltas were
        learned under is a drift (E04): ``SCHEMA_DRIFT`` is logged, those deltas are demoted
        and flagged ``schema_drift``, their arguments migrated to the new schema where the
        parameter mapping rules allow, and queued for review where they do not."""
        try:
            specs, rejected = read_tool_specs(tools)
        except TypeError as exc:
            raise InvalidQueryError("tools", str(exc)) from exc
        return self._drift.observe(specs, tenant, source, rejected)

    def recall_decisions(
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
        """What was done before in situations like ``context``, and how it went.

        Tool calls with the same tool and arguments are one :class:`Decision`, judged on all
        its calls: feedback, failed tool results, the credit each call earned from its
        episode's outcome, weighted by how similar each call's situation is and how recent it
        is. Decisions that worked (or are unknown) come first, best first; then, with
        ``include_failed``, those that failed, flagged ``failed`` (``top_k`` each). Each carries
        the schema it was learned under, whether it is still current, and migrated arguments
        after a schema change. Deterministic; no LLM."""
        if not isinstance(context, str) or not context.strip():
            raise InvalidQueryError("context", "describe the situation to recall decisions for (a non-empty string)")
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InvalidQueryError("top_k", f"must be a positive integer, got {top_k!r}")
        if not 0.0 <= min_confidence <= 1.0:
            raise InvalidQueryError("min_confidence", f"must be in [0, 1], got {min_confidence!r}")
        return self._decisions.recall(
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

    def propagate(self, node_id: str, exception: str, *, reason: str | None = None) -> PropagationReport:
        """Propagate an exception at a delta (or event) through provenance.

        ``"poison"`` taints the whole downstream chain (flag ``tainted``, utility 0: left out
        of queries with ``exclude_tainted``); ``"contradiction"`` marks only what was derived
        from it (``contradicted``); ``"drift"`` marks only the chain's deltas of the same tool
        (``schema_drift``). Logged as ``<EXCEPTION>_PROPAGATED``."""
        delta_id = node_id
        with self._sql.reader() as conn:
            if not self._sql.fetch_deltas(conn, [node_id]):
                delta_id = delta_id_for(node_id)
        return self._propagator.propagate(delta_id, exception, reason)

    # ---- learning from outcomes ---------------------------------------------------------------

    def record_outcome(
        self,
        episode_id: str,
        reward: float,
        *,
        tenant: str = "default",
        necessary: Collection[str] | None = None,
    ) -> OutcomeReport:
        """Learn from how an episode ended: ``reward`` in [-1, 1] (-1 failure, +1 success).

        Credit goes to each step (temporal decay, more for the steps the outcome causally
        depended on, a floor for ``necessary`` ones — event or delta ids, or events with
        ``meta["necessary"] = True``) and to the memories retrieved during the episode; each
        delta's utility moves toward the outcome, with the update kept in its history. A delta
        whose utility oscillates is flagged ``unstable`` and queued for review."""
        report = self._learner.record_outcome(episode_id, reward, tenant, necessary)
        self._quarantine.learn_from_outcome(report)
        return report

    def feedback(self, event_id: str, reward: float, *, tenant: str | None = None) -> OutcomeReport:
        """Feedback on one step (``reward`` in [-1, 1]): its delta learns with full weight."""
        report = self._learner.feedback(event_id, reward, tenant)
        self._quarantine.learn_from_outcome(report)
        return report

    def review_queue(self, *, tenant: str | None = "default", include_resolved: bool = False) -> list[ReviewItem]:
        """Items waiting for a person (UNSTABLE utilities …), oldest first; ``tenant=None``
        lists every tenant's."""
        return self._learner.review_queue(tenant, include_resolved)

    def resolve_review(self, item_id: int, resolution: str, *, args: dict[str, Any] | None = None) -> ReviewItem:
        """Close a review item. ``"accept"`` keeps the memory and clears the flag that queued it
        (``unstable``, ``migration_failed``); ``"reject"`` sets its utility to 0 and keeps it out
        of ``recall_decisions``; any other note just closes it (an UNSTABLE item's flag is
        cleared all the same). Text after a colon is kept as the reason (``"reject: gone"``).

        ``args``: for a SCHEMA_DRIFT item, the call's arguments migrated by hand to the tool's
        new schema (every required parameter present); recalled like an automatic migration."""
        return self._learner.resolve(item_id, resolution, args)

    # ---- trust gateway --------------------------------------------------------------------------

    def _honeypot_alert(self, tenant: str, query: str, canaries: list[str]) -> None:
        log.warning("HONEYPOT_TRIGGERED in tenant %s", tenant)
        with self._sql.writer() as conn:
            self._trust.log(
                conn, [{"tenant": tenant, "kind": "HONEYPOT_TRIGGERED", "payload": {"query": query[:1000], "canaries": canaries}}]
            )

    def quarantined(self, *, tenant: str = "default", limit: int = 1000) -> list[Event]:
        """Events waiting in QUARANTINE for review, oldest first (never returned by ``query``)."""
        return self._quarantine.pending(tenant, limit)

    def quarantine_review(self, event_ids: Sequence[str], verdict: str, *, tenant: str = "default") -> QuarantineReview:
        """Apply a reviewer's verdict to quarantined events.

        ``verdict``: ``"release"`` (back to the namespace their channel gets: TRUSTED, or
        UNVERIFIED for documents and peers; the source regains reputation),
        ``"release_unverified"`` (to UNVERIFIED), ``"confirm"`` (poison confirmed: they stay
        quarantined and the source loses reputation) or ``"delete"`` (poison confirmed and
        erased, with deltas, links, full-text entries and vectors)."""
        review = self._quarantine.review(list(event_ids), verdict, tenant)
        if verdict == "delete" and review.event_ids:
            self.delete(review.event_ids, tenant=tenant)
        return review

    def security_events(
        self, since: Any = None, *, kind: str | None = None, tenant: str | None = "default", limit: int = 10_000
    ) -> list[SecurityEvent]:
        """The security log, oldest first: trust decisions other than the fast path,
        ``POISON_DETECTED`` (E01), ``SOURCE_BLACKLISTED``, ``HONEYPOT_TRIGGERED``,
        ``QUARANTINE_REVIEW``. ``since`` is a datetime or unix seconds; ``tenant=None`` = all."""
        return self._quarantine.security_events(since, kind, tenant, limit)

    def trust_score(self, source: str, *, tenant: str = "default") -> float:
        """The learned reputation of a writer (``TrustPolicy.initial_reputation`` if never
        seen); below 0 the source is blacklisted."""
        return self._quarantine.reputation(source, tenant)

    # ---- delete and maintenance -------------------------------------------------------------

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
        with self._sql.writer() as conn:
            ids = self._sql.select_event_ids(
                conn, tenant, event_ids, entity=entity, agent_id=agent_id, user_id=user_id, session_id=session_id
            )
            deleted, n_deltas, n_links = self._sql.delete_events(conn, ids)
        self.apply_outbox()
        return DeleteResult(event_ids=deleted, deltas_removed=n_deltas, links_removed=n_links)

    def reindex(self, tenant: str | None = None, *, reembed: bool = False, batch_size: int = 512) -> int:
        """Rebuild the vector index from SQL (all tenants, or one); returns vectors written.

        ``reembed=True`` first recomputes every vector with the embedder this store was opened
        with (after changing models; open with ``allow_embedder_change=True``)."""
        index = self._current_index()
        if index is None:
            raise StoreLockedError("another process owns this embedded store's vector index; reindex from that process")
        self.apply_outbox()
        tenants = [tenant] if tenant else self._sql.counts()["tenants"]
        if reembed:
            inner = self._embedder.inner
            reembed_vectors(self._sql, lambda texts: embed_texts(inner, texts), embedding_text, tenants)
            self._sql.set_embedder(self._embedder.name, int(embed_texts(inner, ["dimension"]).shape[1]))
        return rebuild_index(self._sql, index, tenants, batch_size)

    def stats(self, tenant: str | None = None) -> StoreStats:
        counts = self._sql.counts(tenant)
        index = self._current_index()
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
            backend=self._sql.dialect,
            vector_backend=f"chroma-{self._index.kind}" if self._index is not None else "chroma-embedded (not owner)",
            embedder=self._sql.stored_embedder() or self._embedder.name,
        )

    def system_events(self, kind: str | None = None, tenant: str | None = None) -> list[dict[str, Any]]:
        """Logged system events (``CAUSAL_LOOP`` …), oldest first."""
        return self._sql.system_events(kind, tenant)

    # ---- beliefs (Layer 3: deltacore.belief) ---------------------------------------------------

    def facts(self, subject: str | None = None, attribute: str | None = None, at: Any = None, *, tenant: str = "default") -> list[Fact]:
        """Facts valid at ``at`` (a datetime, unix seconds or ISO date; default: what is believed
        now), optionally of one subject and attribute (``facts("user", "preferred language")``)."""
        return self._beliefs.facts(subject, attribute, at, tenant=tenant)

    def history(self, subject: str, attribute: str, *, tenant: str = "default") -> list[Fact]:
        """Every value a slot ever had, oldest valid time first, superseded ones included."""
        return self._beliefs.history(subject, attribute, tenant=tenant)

    def query_belief(self, entity: str, at_time: Any = None, *, tenant: str = "default") -> BeliefState:
        """What is believed about ``entity`` at ``at_time`` (default now): per attribute, a
        distribution over values plus UNKNOWN, its confidence and whether it is STALE."""
        return self._beliefs.query_belief(entity, at_time, tenant=tenant)

    def conflicts(self, *, tenant: str = "default", include_resolved: bool = False) -> list[ConflictRecord]:
        """Contradictions (E03) the policy could not settle, oldest first."""
        return self._beliefs.conflicts(tenant=tenant, include_resolved=include_resolved)

    def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Settle a conflict: ``"old"``, ``"new"``, a fact id or a value (``"new: confirmed by HR"``)."""
        return self._beliefs.resolve_conflict(conflict_id, resolution)


def _carries_schema(event: Event | dict[str, Any]) -> bool:
    if isinstance(event, Event):
        return event.tool_schema is not None or event.tool_schema_hash is not None
    return isinstance(event, dict) and (event.get("tool_schema") is not None or event.get("tool_schema_hash") is not None)


def _tenant_of(event: Any) -> str:
    value = event.get("tenant") if isinstance(event, dict) else getattr(event, "tenant", None)
    return value if isinstance(value, str) and value else "default"


def _build_criteria(fields: dict[str, Any]) -> QueryCriteria:
    from pydantic import ValidationError

    try:
        return QueryCriteria(**fields)
    except ValidationError as exc:
        raise InvalidQueryError(*first_validation_error(exc, "criteria")) from exc


class AsyncDeltaCore:
    """The async twin of :class:`DeltaCore`: same methods, awaited; blocking work runs in a
    worker thread so the event loop is never blocked.

    >>> # memory = await AsyncDeltaCore.open(path, embedder=...)
    >>> # packets = await memory.query("what broke?")
    """

    def __init__(self, sync: DeltaCore) -> None:
        self.sync = sync
        """The underlying synchronous store."""

    @classmethod
    async def open(cls, location: str | Path | None = None, **settings: Any) -> AsyncDeltaCore:
        return cls(await asyncio.to_thread(functools.partial(DeltaCore.open, location, **settings)))

    async def _run(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(functools.partial(getattr(self.sync, method), *args, **kwargs))

    async def ingest(self, events: Sequence[Event | dict[str, Any]], *, channel: Channel | str | None = None) -> IngestResult:
        return await self._run("ingest", events, channel=channel)

    async def add(self, text: str | Event | dict[str, Any], **fields: Any) -> str:
        return await self._run("add", text, **fields)

    async def query(self, criteria: QueryCriteria | str | None = None, /, **fields: Any) -> list[MemoryPacket]:
        return await self._run("query", criteria, **fields)

    async def record_retrieval(self, event_ids: Sequence[str], **fields: Any) -> int:
        return await self._run("record_retrieval", event_ids, **fields)

    async def retrievals(self, episode_id: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        return await self._run("retrievals", episode_id, **fields)

    async def tool_schemas(self, tool_name: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        return await self._run("tool_schemas", tool_name, **fields)

    async def events(self, criteria: QueryCriteria | None = None, /, **fields: Any) -> list[Event]:
        return await self._run("events", criteria, **fields)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return await self._run("embed", texts)

    async def get(self, event_id: str) -> Event:
        return await self._run("get", event_id)

    async def query_causal(self, node_id: str, depth: int = 5, direction: str = "ancestors") -> CausalChain:
        return await self._run("query_causal", node_id, depth, direction)

    async def observe_tools(self, tools: Mapping[str, Any] | Sequence[Any], **fields: Any) -> DriftReport:
        return await self._run("observe_tools", tools, **fields)

    async def recall_decisions(self, context: str, **fields: Any) -> list[Decision]:
        return await self._run("recall_decisions", context, **fields)

    async def propagate(self, node_id: str, exception: str, **fields: Any) -> PropagationReport:
        return await self._run("propagate", node_id, exception, **fields)

    async def record_outcome(self, episode_id: str, reward: float, **fields: Any) -> OutcomeReport:
        return await self._run("record_outcome", episode_id, reward, **fields)

    async def feedback(self, event_id: str, reward: float, **fields: Any) -> OutcomeReport:
        return await self._run("feedback", event_id, reward, **fields)

    async def review_queue(self, **fields: Any) -> list[ReviewItem]:
        return await self._run("review_queue", **fields)

    async def resolve_review(self, item_id: int, resolution: str, **fields: Any) -> ReviewItem:
        return await self._run("resolve_review", item_id, resolution, **fields)

    async def quarantined(self, **fields: Any) -> list[Event]:
        return await self._run("quarantined", **fields)

    async def quarantine_review(self, event_ids: Sequence[str], verdict: str, **fields: Any) -> QuarantineReview:
        return await self._run("quarantine_review", event_ids, verdict, **fields)

    async def security_events(self, since: Any = None, **fields: Any) -> list[SecurityEvent]:
        return await self._run("security_events", since, **fields)

    async def trust_score(self, source: str, **fields: Any) -> float:
        return await self._run("trust_score", source, **fields)

    async def delete(self, event_ids: Sequence[str] | None = None, **selectors: Any) -> DeleteResult:
        return await self._run("delete", event_ids, **selectors)

    async def reindex(self, tenant: str | None = None, *, reembed: bool = False) -> int:
        return await self._run("reindex", tenant, reembed=reembed)

    async def stats(self, tenant: str | None = None) -> StoreStats:
        return await self._run("stats", tenant)

    async def apply_outbox(self) -> int:
        return await self._run("apply_outbox")

    # ---- beliefs

    async def facts(self, subject: str | None = None, attribute: str | None = None, at: Any = None, **fields: Any) -> list[Fact]:
        return await self._run("facts", subject, attribute, at, **fields)

    async def history(self, subject: str, attribute: str, **fields: Any) -> list[Fact]:
        return await self._run("history", subject, attribute, **fields)

    async def query_belief(self, entity: str, at_time: Any = None, **fields: Any) -> BeliefState:
        return await self._run("query_belief", entity, at_time, **fields)

    async def conflicts(self, **fields: Any) -> list[ConflictRecord]:
        return await self._run("conflicts", **fields)

    async def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        return await self._run("resolve_conflict", conflict_id, resolution)

    async def close(self) -> None:
        await self._run("close")

    async def __aenter__(self) -> AsyncDeltaCore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
