"""Routers: each finds candidate memories its own way and ranks them (best first).

A router only proposes; the final fetch applies every filter of the query, so routers may
over-fetch and pre-filter with whatever their index supports.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from sqlalchemy import ColumnElement, Connection

from deltacore.model import Namespace, QueryCriteria
from deltacore.storage import ChromaIndex, SQLStore, chroma_where
from deltacore.storage.fulltext import lexical_search

Ranked = list[tuple[str, float]]


@dataclass
class SearchContext:
    """What a router may use for one query."""

    criteria: QueryCriteria
    conn: Connection
    sql: SQLStore
    filters: list[ColumnElement[bool]]
    limit: int
    index: ChromaIndex | None
    embed_query: Callable[[str], np.ndarray]
    _vector: np.ndarray | None = field(default=None, repr=False)

    def query_vector(self) -> np.ndarray:
        if self._vector is None:
            self._vector = self.embed_query(self.criteria.text or "")
        return self._vector


class Router(Protocol):
    name: str

    def search(self, context: SearchContext) -> Ranked: ...


class SemanticRouter:
    """Nearest neighbours of the query text in embedding space (Chroma).

    A process that does not own an embedded store's index searches the vectors kept in SQL by
    brute force instead: correct, slower, and a reason to use a Chroma server for many processes.
    """

    name = "semantic"

    def search(self, context: SearchContext) -> Ranked:
        if not context.criteria.text:
            return []
        vector = context.query_vector()
        if context.index is not None:
            return context.index.query(
                context.criteria.tenant, vector, context.limit, chroma_where(_chroma_clauses(context.criteria))
            )
        return _brute_force(context, vector)


class LexicalRouter:
    """Full-text match in the database (SQLite FTS5 bm25 / PostgreSQL ts_rank_cd)."""

    name = "lexical"

    def search(self, context: SearchContext) -> Ranked:
        if not context.criteria.text:
            return []
        return lexical_search(context.conn, context.criteria.text, context.filters, context.limit)


class RecencyRouter:
    """The newest memories in scope: what just happened is often what is asked about."""

    name = "recency"

    def search(self, context: SearchContext) -> Ranked:
        return context.sql.recent_event_ids(context.conn, context.filters, context.limit)


ROUTERS: dict[str, Router] = {r.name: r for r in (SemanticRouter(), LexicalRouter(), RecencyRouter())}
DEFAULT_ROUTERS: dict[str, float] = {"semantic": 1.0, "lexical": 1.0, "recency": 0.2}
"""Router -> fusion weight used when a query names no routers. Recency is a light tie-breaker."""


def _chroma_clauses(criteria: QueryCriteria) -> list[dict[str, Any]]:
    clauses: list[dict[str, Any]] = []
    if criteria.agent_filter:
        clauses.append({"agent_id": {"$in": list(criteria.agent_filter)}})
    for name in ("user_id", "session_id", "episode_id"):
        value = getattr(criteria, name)
        if value is not None:
            clauses.append({name: value})
    if criteria.exclude_episode_id is not None:
        # Chroma cannot say "missing or different" in one clause; the final SQL fetch filters
        # exactly, this only keeps the run's own events from crowding out the candidates.
        clauses.append({"episode_id": {"$ne": criteria.exclude_episode_id}})
    if criteria.kinds:
        clauses.append({"kind": {"$in": [k.value for k in criteria.kinds]}})
    if not criteria.include_quarantined:
        clauses.append({"namespace": {"$ne": Namespace.QUARANTINE.value}})
    if criteria.time_range is not None:
        start, end = criteria.time_range
        if start is not None:
            clauses.append({"ts": {"$gte": start.timestamp()}})
        if end is not None:
            clauses.append({"ts": {"$lte": end.timestamp()}})
    return clauses


def _brute_force(context: SearchContext, vector: np.ndarray) -> Ranked:
    query = vector / (np.linalg.norm(vector) or 1.0)
    best: list[tuple[float, str]] = []
    for ids, matrix in context.sql.scan_embeddings(context.conn, context.filters):
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        scores = (matrix @ query) / norms
        for event_id, score in zip(ids, scores.tolist()):
            if len(best) < context.limit:
                heapq.heappush(best, (score, event_id))
            elif score > best[0][0]:
                heapq.heapreplace(best, (score, event_id))
    return [(event_id, score) for score, event_id in sorted(best, reverse=True)]
