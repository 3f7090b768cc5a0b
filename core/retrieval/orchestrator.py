"""The read path: routers → fusion → fetch with every filter → packets → budget."""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from deltacore.delta.utility import decayed_utility
from deltacore.model import Delta, EventKind, MemoryFlag, MemoryPacket, Namespace, PresetName, QueryCriteria, RouterName, SearchBudget
from deltacore.retrieval.defence import RetrievalDefence
from deltacore.retrieval.belief_ranking import BeliefRanking
from deltacore.retrieval.fusion import normalized_score_fusion, reciprocal_rank_fusion
from deltacore.retrieval.packing import pack
from deltacore.retrieval.presets import allowed_routers, choose_routers, recency_reranks
from deltacore.retrieval.query_analysis import analyze
from deltacore.retrieval.rerank import Reranker, apply_reranker
from deltacore.retrieval.routers import Ranked, SearchContext, build_routers
from deltacore.retrieval.routers.registry import STAGE_ONE, STAGE_TWO, VECTOR_ROUTERS
from deltacore.retrieval.routers.schema import SHARED_KEY as SCHEMA_CANDIDATES
from deltacore.retrieval.schema_packets import SchemaSource, is_schema_id
from deltacore.retrieval.routers.semantic import POOL_FACTOR
from deltacore.storage import ChromaIndex, HotTier, SQLStore
from deltacore.storage.filters import event_filters
from deltacore.storage.records import delta_from_row

PROVENANCE_DEPTH = 3
_FLAG_OF_CONFLICT = {
    "tainted": MemoryFlag.TAINTED,
    "contradicted": MemoryFlag.CONTRADICTED,
    "stale": MemoryFlag.STALE,
    "schema_drift": MemoryFlag.SCHEMA_DRIFT,
    "unstable": MemoryFlag.UNSTABLE,
}


# Kinds whose repeated words say nothing new: a chat line pasted by several people, a notice
# posted every week. A tool call, its result or an outcome in the same words as another is
# another experience (another result, another reward): each copy stays.
_DISTINCT_KINDS = frozenset({EventKind.MESSAGE.value, EventKind.OBSERVATION.value})


def _rrf_ignoring_depth(ranked: Any, weights: Any, depth: int | None = None, k: int = 60) -> Any:
    return reciprocal_rank_fusion(ranked, weights, k)


def _timed(
    search: Callable[[SearchContext], Ranked], name: str, report: Callable[[str, str, float], None]
) -> Callable[[SearchContext], Ranked]:
    def timed(context: SearchContext) -> Ranked:
        start = time.perf_counter()
        try:
            return search(context)
        finally:
            report(context.criteria.tenant, name, (time.perf_counter() - start) * 1000.0)

    return timed


class Retriever:
    def __init__(
        self,
        sql: SQLStore,
        index: Callable[[], ChromaIndex | None],
        embed_query: Callable[[str], np.ndarray],
        *,
        candidate_pool: int,
        rrf_k: int,
        fusion: str,
        decay_rate_per_hour: float,
        hot: HotTier | None = None,
        router_threads: int = 0,
        reranker: Reranker | None = None,
        rerank_depth: int = 50,
        trust: Any = None,
        honeypots: Any = None,
        on_alert: Callable[[str, str, list[str]], None] | None = None,
        beliefs: BeliefRanking | None = None,
        schemas: SchemaSource | None = None,
    ) -> None:
        # The schema router's candidates and packets (schema_packets.py); None = no schemas.
        self.schemas = schemas
        # What the belief layer knows reorders each fact slot after fusion (belief_ranking.py).
        self.beliefs = beliefs
        self._defence = RetrievalDefence(trust, honeypots) if trust is not None else None
        self._on_alert = on_alert
        self._sql = sql
        self._index = index
        self._embed_query = embed_query
        self._pool = candidate_pool
        if fusion == "rrf":
            self._fuse = functools.partial(_rrf_ignoring_depth, k=rrf_k)
        else:
            self._fuse = normalized_score_fusion
        self._decay = decay_rate_per_hour
        self._hot = hot
        self._reranker = reranker
        self._rerank_depth = rerank_depth
        self._routers, self._expanders = build_routers(decay_rate_per_hour)
        # Workers for the routers of a stage (see _concurrently). Created on first use, shut down
        # by close().
        self._router_threads = router_threads
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()
        self._free_workers = threading.Semaphore(max(router_threads - 1, 0))
        self.on_router_time: Callable[[str, str, float], None] | None = None
        """Called with (tenant, router, milliseconds) after each router's search (monitoring)."""

    def budget(self, criteria: QueryCriteria) -> SearchBudget:
        """What a query may spend when nobody says otherwise: the configured candidate pool, or
        three times ``top_k`` so that post-filters and the token budget still leave ``top_k`` to
        choose from; the query's own token budget."""
        return SearchBudget(candidate_pool=max(self._pool, criteria.top_k * 3), max_tokens=criteria.max_tokens)

    def query(
        self, criteria: QueryCriteria, budget: SearchBudget | None = None, trace: dict[str, Any] | None = None,
        embed_query: Callable[[str], np.ndarray] | None = None,
    ) -> list[MemoryPacket]:
        """The memories that answer ``criteria``, best first, within ``budget`` (default:
        :meth:`budget`). ``trace``, when given, receives the analysis, the router weights and
        every router's ranked list (``deltacore.retrieval.explain``). ``embed_query`` replaces
        the store's embedder for the query text (the consolidation gate replays a probe after
        the apply with the vector it embedded before)."""
        budget = budget or self.budget(criteria)
        limit = budget.candidate_pool
        now = time.time()
        with self._sql.reader() as conn:
            # The store lookup of named entities only matters when the routers are chosen from the
            # query or the entity router was asked for.
            needs_entities = (not criteria.routers or any(
                r in (RouterName.ENTITY, PresetName.ENTITY) for r in criteria.routers
            )) and (budget.routers is None or RouterName.ENTITY in budget.routers)
            analysis = analyze(criteria.text, conn if needs_entities else None, criteria.tenant)
            weights = choose_routers(criteria, analysis)
            if budget.routers is not None:  # a degradation plan (deltacore.governor.levels)
                weights = allowed_routers(weights, budget.routers, criteria)
            context = SearchContext(
                criteria=criteria,
                analysis=analysis,
                conn=conn,
                sql=self._sql,
                filters=event_filters(criteria),
                limit=limit,
                budget=budget,
                index=self._index(),
                embed_query=embed_query or self._embed_query,
                hot=self._hot,
                schemas=self.schemas,
                # The entity and temporal routers post-filter the query's plain neighbours: the
                # semantic router's search fetches their pool too (one vector search per query).
                neighbour_pool=limit * POOL_FACTOR if RouterName.ENTITY in weights or RouterName.TEMPORAL in weights else limit,
            )
            reranks_by_age = recency_reranks(weights, analysis)
            searches = {
                name: self._routers[name].search
                for name in weights
                if name in STAGE_ONE and not (reranks_by_age and name == RouterName.RECENCY)
            }
            ranked = self._concurrently(context, searches)
            stage_one = self._fuse(ranked, weights, depth=limit)
            seeds = [item_id for item_id, _, _ in stage_one[:limit]]
            expansions = {
                name: functools.partial(self._expanders[name].expand, seeds=seeds) for name in weights if name in STAGE_TWO
            }
            if reranks_by_age:
                expansions[RouterName.RECENCY] = functools.partial(self._routers[RouterName.RECENCY].rerank, seeds=seeds)
            ranked.update(self._concurrently(context, expansions))
            if trace is not None:
                trace.update(analysis=analysis, weights=weights, ranked=ranked)
            fused = self._fuse(ranked, weights, depth=limit)
            if analysis.time_range is not None and ranked.get(RouterName.TEMPORAL):
                # The query names a period: its memories come first. The bonus is the most any
                # memory can get from fusion, so scores stay in the order of the answer.
                in_range = {item_id for item_id, _ in ranked[RouterName.TEMPORAL]}
                bonus = sum(w for w in weights.values() if w > 0)
                fused = sorted(
                    ((i, s + bonus if i in in_range else s, r) for i, s, r in fused), key=lambda f: (-f[1], f[0])
                )
            alerts: list[str] = []
            if self._defence is not None:
                alerts = self._defence.honeypot_hits(context, ranked)
                fused = self._defence.rerank(
                    conn, fused, criteria.for_decision, criteria.tenant, ranked.get(RouterName.SEMANTIC), criteria.text
                )
            fused, belief_view = self.beliefs.rerank(conn, fused, criteria) if self.beliefs else (fused, {})
            # Build packets best first, only as many as the answer can use: all top_k when there
            # is no budget, else the pool the budget chooses from.
            wanted = criteria.top_k if budget.max_tokens is None and self._reranker is None else limit * 2
            packets: list[MemoryPacket] = []
            seen: set[str] | None = set() if criteria.distinct else None
            position = 0
            while len(packets) < wanted and position < len(fused):
                # A few more than needed: the rows' own filters rarely drop any, and every
                # packet costs its deltas and provenance.
                chunk = fused[position : position + wanted + 4]
                position += len(chunk)
                packets.extend(self._packets(conn, chunk, context, criteria, now, wanted - len(packets), seen))
        packets = self.beliefs.annotate(packets, belief_view) if self.beliefs else packets
        if alerts and self._on_alert is not None:
            self._on_alert(criteria.tenant, criteria.text or "", alerts)
        if self._reranker is not None and criteria.text:
            packets = apply_reranker(self._reranker, criteria.text, packets, self._rerank_depth)
            return pack(packets, budget.max_tokens, criteria.top_k, by_value_per_token=False)
        return pack(packets, budget.max_tokens, criteria.top_k)

    def close(self) -> None:
        with self._executor_lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    def _concurrently(self, context: SearchContext, searches: dict[str, Callable[[SearchContext], Ranked]]) -> dict[str, Ranked]:
        """Each router's candidates, in ``searches`` order (fusion ignores the order).

        Routers of one stage are independent reads, so they run concurrently: a query costs
        about its slowest router instead of their sum.
        """
        names = list(searches)
        if self.on_router_time is not None:
            searches = {name: _timed(search, name, self.on_router_time) for name, search in searches.items()}
        executor = self._router_executor() if len(names) > 1 else None
        if executor is None:
            return {name: searches[name](context) for name in names}
        if context.criteria.text and any(name in VECTOR_ROUTERS for name in names):
            context.query_vector()  # embed once, before the routers that share the vector start
        # The first router runs on this thread and the query's connection; the others each on a
        # worker with a connection of its own from a separate pool (a connection is not shared
        # between threads, and the query's thread holds its own while it waits). A router that
        # finds every worker busy (many queries at once) runs here instead of queueing, so no
        # query waits for another query's routers.
        futures = {}
        for name in names[1:]:
            if self._free_workers.acquire(blocking=False):
                futures[name] = executor.submit(self._search_alone, searches[name], context)
        ranked = {name: searches[name](context) for name in names if name not in futures}
        for name, future in futures.items():
            ranked[name] = future.result()
        return {name: ranked[name] for name in names}

    def _search_alone(self, search: Callable[[SearchContext], Ranked], context: SearchContext) -> Ranked:
        try:
            with self._sql.side_reader() as conn:
                return search(dataclasses.replace(context, conn=conn))
        finally:
            self._free_workers.release()

    def _router_executor(self) -> ThreadPoolExecutor | None:
        if self._router_threads <= 1:
            return None
        with self._executor_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self._router_threads - 1, thread_name_prefix="deltacore-router")
            return self._executor

    def _packets(
        self,
        conn: Any,
        chunk: list[tuple[str, float, dict[str, int]]],
        context: SearchContext,
        criteria: QueryCriteria,
        now: float,
        needed: int,
        seen: set[str] | None = None,
    ) -> list[MemoryPacket]:
        """The first ``needed`` packets of ``chunk`` that pass the query's filters, in order;
        with ``seen`` (the texts already returned, updated), each text once."""
        schemas = {item[0]: p for item in chunk if is_schema_id(item[0]) and (p := self._schema_packet(conn, item, context, criteria, now))}
        rows = self._sql.fetch_events(conn, [item_id for item_id, _, _ in chunk if not is_schema_id(item_id)], context.filters)
        wants_deltas = criteria.include_deltas or criteria.min_utility is not None or criteria.exclude_tainted or criteria.exclude_stale
        delta_rows = self._sql.deltas_for_events(conn, list(rows)) if rows and wants_deltas else {}
        # Which rows survive is decided by the rows and their deltas alone, so provenance (the
        # costliest part of a packet) is read only for the packets that will be returned.
        kept: list[tuple[str, float, dict[str, int]]] = []
        for item in chunk:
            row = rows.get(item[0])
            if item[0] in schemas or row is not None and self._keep(delta_rows.get(item[0], ()), criteria, now):
                if seen is not None and row is not None and row.kind in _DISTINCT_KINDS:
                    key = " ".join((row.text or "").casefold().split())
                    if key and key in seen:
                        continue
                    seen.add(key)
                kept.append(item)
                if len(kept) == needed:
                    break
        wanted_deltas = [d.id for item_id, _, _ in kept for d in delta_rows.get(item_id, ())]
        provenance = self._provenance(conn, wanted_deltas) if criteria.include_deltas and wanted_deltas else {}
        packets = []
        for item_id, score, router_ranks in kept:
            if item_id in schemas:
                packets.append(schemas[item_id])
                continue
            deltas = tuple(self._delta(d, provenance, now) for d in delta_rows.get(item_id, ()))
            packets.append(self._packet(rows[item_id], score, router_ranks, deltas, provenance, criteria))
        return packets

    def _schema_packet(
        self, conn: Any, item: tuple[str, float, dict[str, int]], context: SearchContext, criteria: QueryCriteria, now: float
    ) -> MemoryPacket | None:
        """The packet of a schema the schema router found (None: the query's filters drop it)."""
        candidate = context.shared.get(SCHEMA_CANDIDATES, {}).get(item[0])  # type: ignore[union-attr]
        if candidate is None or self.schemas is None:
            return None
        calls = [c.event_id for t in candidate.traces for c in t.plan]
        delta_rows = self._sql.deltas_for_events(conn, calls) if calls else {}
        return self.schemas.packet(
            candidate, item[1], item[2], criteria, delta_rows, lambda row: self._delta(row, {}, now), now
        )

    def _provenance(self, conn: Any, delta_ids: list[str]) -> dict[str, list[str]]:
        """child -> parents for the deltas and their ancestors up to PROVENANCE_DEPTH."""
        return self._sql.ancestry(conn, delta_ids, PROVENANCE_DEPTH)

    def _delta(self, row: Any, parents: Mapping[str, list[str]], now: float) -> Delta:
        return delta_from_row(row, parents, decayed_utility(row.utility, row.utility_ts, now, self._decay))

    def _packet(
        self,
        row: Any,
        score: float,
        router_ranks: dict[str, int],
        deltas: tuple[Delta, ...],
        parents: Mapping[str, list[str]],
        criteria: QueryCriteria,
    ) -> MemoryPacket:
        namespace = Namespace(row.namespace)
        flags: set[MemoryFlag] = set()
        if namespace is Namespace.SYNTHETIC:
            flags.add(MemoryFlag.SYNTHETIC)
        if namespace in (Namespace.UNVERIFIED, Namespace.QUARANTINE):
            flags.add(MemoryFlag.UNVERIFIED)
        for delta in deltas:
            flags.update(_FLAG_OF_CONFLICT[f] for f in delta.conflict_flags if f in _FLAG_OF_CONFLICT)
        ancestry: list[str] = []
        frontier = [d.id for d in deltas]
        # PROVENANCE_DEPTH levels, whatever else ``parents`` holds: a packet's provenance must
        # not depend on which other packets were fetched with it.
        for _level in range(PROVENANCE_DEPTH):
            if not frontier or len(ancestry) >= 50:
                break
            nxt = []
            for node in frontier:
                for parent in parents.get(node, ()):
                    if parent not in ancestry:
                        ancestry.append(parent)
                        nxt.append(parent)
            frontier = nxt
        return MemoryPacket(
            id=row.id,
            text=row.text,
            kind=EventKind(row.kind),
            ts=datetime.fromtimestamp(row.ts, timezone.utc),
            score=score,
            routers=router_ranks,
            actor=row.actor,
            role=row.role,
            tenant=row.tenant,
            agent_id=row.agent_id,
            user_id=row.user_id,
            session_id=row.session_id,
            episode_id=row.episode_id,
            tool_name=row.tool_name,
            entities=tuple(row.entities or ()),
            deltas=deltas if criteria.include_deltas else (),
            provenance=tuple(ancestry),
            confidence=row.confidence,
            trust=row.trust,
            utility=max((d.utility for d in deltas), default=0.0),
            namespace=namespace,
            flags=frozenset(flags),
            token_cost=row.token_count,
            meta=row.meta or {},
        )

    def _keep(self, delta_rows: Sequence[Any], criteria: QueryCriteria, now: float) -> bool:
        """The post-filters, from the deltas' rows: a packet's utility is its best decayed delta
        utility and its tainted / stale flags come from its deltas' conflict flags."""
        if criteria.min_utility is not None:
            utility = max((decayed_utility(d.utility, d.utility_ts, now, self._decay) for d in delta_rows), default=0.0)
            if utility < criteria.min_utility:
                return False
        if criteria.exclude_tainted or criteria.exclude_stale:
            flags = {flag for d in delta_rows for flag in (d.conflict_flags or ())}
            if criteria.exclude_tainted and "tainted" in flags:
                return False
            if criteria.exclude_stale and "stale" in flags:
                return False
        return True
