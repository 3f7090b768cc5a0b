"""What every router gets and returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from sqlalchemy import ColumnElement, Connection

from deltacore.model import QueryCriteria, ScopeFilter, SearchBudget
from deltacore.retrieval.query_analysis import QueryAnalysis
from deltacore.storage import ChromaIndex, HotTier, SQLStore

Ranked = list[tuple[str, float]]
"""Event ids, best first, with the router's own score (higher is better)."""


@dataclass
class SearchContext:
    """What a router may use for one query."""

    criteria: QueryCriteria
    analysis: QueryAnalysis
    conn: Connection
    sql: SQLStore
    filters: list[ColumnElement[bool]]
    """The query's SQL filters (scope, time, kinds…): every SQL a router runs must apply them."""
    limit: int
    """Candidates each router proposes (``budget.candidate_pool``)."""
    index: ChromaIndex | None
    embed_query: Callable[[str], np.ndarray]
    hot: HotTier | None = None
    neighbour_pool: int = 0
    """How many plain nearest neighbours the query's first vector search fetches: enough for the
    routers that post-filter them (``deltacore.retrieval.routers.semantic.plain_neighbours``)."""
    budget: SearchBudget = None  # type: ignore[assignment]
    """What this query may spend; None = ``SearchBudget(candidate_pool=limit)``."""
    scope: ScopeFilter = None  # type: ignore[assignment]
    """The query's scope filter, for the indexes that apply it themselves (Chroma, HOT tier);
    None = ``ScopeFilter.of(criteria)``."""
    schemas: Any = None
    """The schema router's source (``deltacore.retrieval.schema_packets.SchemaSource``); None =
    no schema router on this store."""
    _vector: np.ndarray | None = field(default=None, repr=False)
    # Shared by the copies a router on another thread works with (dataclasses.replace keeps the
    # same dict): what one router searched, the others reuse.
    shared: dict[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = SearchBudget(candidate_pool=self.limit, max_tokens=self.criteria.max_tokens)
        if self.scope is None:
            self.scope = ScopeFilter.of(self.criteria)

    def query_vector(self) -> np.ndarray:
        if self._vector is None:
            self._vector = self.embed_query(self.criteria.text or "")
        return self._vector


class Router(Protocol):
    """Stage one: finds candidates on its own."""

    name: str

    def search(self, context: SearchContext) -> Ranked: ...


class Expander(Protocol):
    """Stage two: finds candidates related to the best results of stage one."""

    name: str

    def expand(self, context: SearchContext, seeds: Sequence[str]) -> Ranked: ...


def rrf_merge(*lists: Ranked, k: int = 60) -> Ranked:
    """Merge a router's own sub-rankings (e.g. lexical and semantic within one entity)."""
    scores: dict[str, float] = {}
    for ranking in lists:
        for rank, (item, _score) in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def top_by_cosine(ids: Sequence[str], vectors: np.ndarray, query: np.ndarray, limit: int) -> Ranked:
    if not len(ids):
        return []
    norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(query) or 1.0)
    norms[norms == 0] = 1.0
    scores = (vectors @ query) / norms
    order = np.argsort(-scores, kind="stable")[:limit]
    return [(ids[i], float(scores[i])) for i in order]


