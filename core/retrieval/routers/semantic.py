"""Semantic router: nearest neighbours of the query in embedding space."""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement

from deltacore.model import QueryCriteria, ScopeFilter
from deltacore.retrieval.routers.base import Ranked, SearchContext, top_by_cosine
from deltacore.storage import chroma_where
from deltacore.storage.filters import SCOPE_METADATA, chroma_scope, scope_predicate
from deltacore.storage.fulltext import latest_about

# A router that narrows the search to an entity scans at most this many of its vectors in SQL
# (the most recent); older ones are reached through the plain neighbour pool (semantic_within).
SCAN_CAP = 1500
# Unfiltered neighbours asked for, at most, before a narrowed search falls back to Chroma's
# own filtered search (see semantic_where).
POST_FILTER_POOL = 1600
# Plain neighbours per result a narrowed search looks at first (``limit × POOL_FACTOR``).
POOL_FACTOR = 4


class SemanticRouter:
    """Chroma nearest neighbours, pre-filtered by scope.

    A process that does not own an embedded store's index scans the vectors kept in SQL instead:
    correct, slower, and a reason to use a Chroma server for many processes.
    """

    name = "semantic"

    def search(self, context: SearchContext) -> Ranked:
        if not context.criteria.text:
            return []
        return plain_neighbours(context, context.limit)


def plain_neighbours(context: SearchContext, n: int) -> Ranked:
    """The query's ``n`` nearest neighbours in its scope, best first.

    One search serves every router of a query: the first asks for ``context.neighbour_pool``
    (or ``n``, if more), the others read a prefix of it. The entity and temporal routers
    post-filter these neighbours, so the semantic router's own search already fetches their pool.
    """
    cached = context.shared.get("neighbours")
    if cached is not None:
        asked, found = cached  # type: ignore[misc]
        if n <= asked or len(found) < asked:  # a prefix, or the whole scope was already returned
            return found[:n]
    asked = max(n, context.neighbour_pool)
    found = semantic_search(context, asked)
    context.shared["neighbours"] = (asked, found)
    return found[:n]


def semantic_search(context: SearchContext, limit: int, extra_where: Sequence[dict[str, Any]] = ()) -> Ranked:
    vector = context.query_vector()
    hot_only = context.budget.hot_only
    if not extra_where:
        hot = _hot_search(context, vector, limit, load=not hot_only)
        if context.hot is not None:
            context.hot.record_search(context.criteria.tenant, hot is not None)
        if hot is not None:
            return hot
    if hot_only:
        return []  # degradation level 3+: no vector search beyond the HOT tier
    if context.index is not None:
        clauses = [*chroma_scope(context.scope), *extra_where]
        return context.index.query(context.criteria.tenant, vector, limit, chroma_where(clauses))
    return _brute_force(context, vector, limit, context.filters)


def semantic_where(
    context: SearchContext,
    limit: int,
    sql_filters: Sequence[ColumnElement[bool]],
    chroma: Sequence[dict[str, Any]] | None,
) -> Ranked:
    """Nearest neighbours that also meet a condition, given both as SQL and as Chroma metadata.

    Chroma's filtered search costs far more than its plain search when the condition is broad
    (~150 ms against ~3 ms on 100k vectors when 15% match): it ranks the allowed set instead of
    walking the graph. So keep those of the query's plain neighbours that meet the condition in
    SQL, widening the pool once to the size the pass rate says will hold ``limit`` of them; only a
    condition too rare for a pool of POST_FILTER_POOL falls back to the filtered search. Either
    way the answer is the nearest ``limit`` that meet it: every neighbour outside the pool is
    farther than every one in it.

    ``chroma`` must name only metadata the vector index keeps (``storage.outbox._META_COLUMNS``).
    ``chroma=None`` (a condition Chroma does not keep, or one that only re-weights what is near
    the query anyway) stops at the first pool: those of the query's nearest neighbours that meet
    it, however few (widening cost up to ~25 ms, the filtered search ~140 ms, on 100k memories).
    """
    pool = limit * POOL_FACTOR
    while True:
        ranked = plain_neighbours(context, pool)
        passing = context.sql.ids_passing(context.conn, [i for i, _ in ranked], [*context.filters, *sql_filters])
        hits = [(item, score) for item, score in ranked if item in passing]
        if len(hits) >= limit or len(ranked) < pool or chroma is None:
            return hits[:limit]  # enough, or the whole scope was searched
        if pool >= POST_FILTER_POOL:
            return semantic_search(context, limit, chroma)
        # A quarter more than the pass rate so far needs, and at least twice the pool.
        rate = max(len(hits), 1) / len(ranked)
        pool = min(max(pool * 2, math.ceil(limit / rate * 1.25)), POST_FILTER_POOL)


def semantic_within(
    context: SearchContext, extra_filters: Sequence[ColumnElement[bool]], limit: int, about: Sequence[str] = ()
) -> Ranked:
    """Nearest neighbours among the events matching SQL-only filters (an entity's events).

    First the query's plain nearest neighbours (a pool of ``POOL_FACTOR × limit``) that match:
    when at least ``limit`` do, they are the exact answer (an entity with many memories, the
    speaker of a conversation). Otherwise exact over the SCAN_CAP most recent matching events,
    plus those pool neighbours: in a large store an entity's old memories are still found when
    they are close to the query, without scanning all of them. Both scores are cosine
    similarities, so the two lists merge by score.

    ``about``: the same condition as ``extra_filters``, as full-text tokens
    (``deltacore.storage.fulltext``; a caller must pass tokens that select exactly those rows). On SQLite
    the scan then takes the entity's last-written memories from the full-text index's posting
    lists instead of sorting all of them by time (~1 ms for 1,500 of them), and an entity with
    no more than SCAN_CAP memories is scanned whole straight away: that is exact, and testing the
    pool first would only add its cost (~2 ms for 200 rows) to the scan.
    """
    filters = [*context.filters, *extra_filters]
    latest: list[int] | None = None
    if about and context.conn.dialect.name == "sqlite":
        latest = latest_about(context.conn, about, SCAN_CAP + 1)
        if len(latest) <= SCAN_CAP:
            return _scan(context, latest, limit)
        latest = latest[:SCAN_CAP]
    pool_size = limit * POOL_FACTOR
    pool = plain_neighbours(context, pool_size)
    passing = context.sql.ids_passing(context.conn, [item for item, _ in pool], filters)
    hits = [(item, score) for item, score in pool if item in passing]
    if len(hits) >= limit or len(pool) < pool_size:
        return hits[:limit]
    if latest is not None:
        scanned = _scan(context, latest, limit)
    else:
        ids, vectors = context.sql.embeddings_where(context.conn, filters, SCAN_CAP)
        scanned = top_by_cosine(ids, vectors, context.query_vector(), limit)
        if len(ids) < SCAN_CAP:
            return scanned  # every matching event was scanned: exact
    best = dict(scanned)
    for item, score in hits:
        best[item] = max(score, best.get(item, score))
    return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]


def _scan(context: SearchContext, seqs: list[int], limit: int) -> Ranked:
    """The ``limit`` rows of ``seqs`` nearest the query, testing only the query's own filters:
    the rows came from the condition's posting list, which *is* that condition (re-testing an
    entity's EXISTS for every row would be most of an entity question's cost).
    Equally similar memories rank in row order, as in the HOT tier and the plain search."""
    ids, vectors = context.sql.embeddings_of(context.conn, sorted(seqs), context.filters)
    return top_by_cosine(ids, vectors, context.query_vector(), limit)


def _hot_search(context: SearchContext, vector: np.ndarray, limit: int, load: bool = True) -> Ranked | None:
    """Exact search in the HOT tier when it holds the whole tenant; None = ask the warm tier."""
    hot = context.hot
    if hot is None or hot.capacity <= 0:
        return None
    tenant = context.criteria.tenant
    signature = context.sql.tenant_signature(context.conn, tenant)
    if signature[0] == 0 or signature[0] > hot.capacity:
        return None
    scope = hot.lookup(tenant, signature)
    if scope is None and load:
        ids, vectors, metadata = context.sql.tenant_vectors(context.conn, tenant, SCOPE_METADATA)
        hot.load(tenant, signature, ids, vectors, metadata)
        scope = hot.lookup(tenant, signature)
    if scope is None:
        return None
    return hot.retrieve(scope, vector, limit, scope_predicate(context.scope))


def chroma_clauses(criteria: QueryCriteria) -> list[dict[str, Any]]:
    """The query's scope as Chroma metadata conditions (the SQL fetch re-checks everything)."""
    return chroma_scope(ScopeFilter.of(criteria))


def _brute_force(context: SearchContext, vector: np.ndarray, limit: int, filters: list[ColumnElement[bool]]) -> Ranked:
    query = vector / (np.linalg.norm(vector) or 1.0)
    best: list[tuple[float, str]] = []
    for ids, matrix in context.sql.scan_embeddings(context.conn, filters):
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        scores = (matrix @ query) / norms
        for event_id, score in zip(ids, scores.tolist()):
            if len(best) < limit:
                heapq.heappush(best, (score, event_id))
            elif score > best[0][0]:
                heapq.heapreplace(best, (score, event_id))
    return [(event_id, score) for score, event_id in sorted(best, reverse=True)]
