"""The HOT tier: an in-process cache of the most used scopes' vectors, searched by modern
Hopfield retrieval.

Retrieval is one step of a modern (continuous) Hopfield network, ``softmax(β · X q)`` over the
stored patterns ``X`` (Ramsauer et al., 2021): the attention each cached memory gets from the
query. For unit vectors it orders memories exactly as cosine similarity does, so it is an
*exact* nearest-neighbour search where Chroma's HNSW index is approximate.

It never lowers recall because it only answers for a scope it holds *completely*: a tenant is
cached whole (when it fits), and the cache is used only while the tenant's row count and
newest row in SQL are what they were when it was loaded — a write from any process, or a
delete, makes the next query go to the warm tier (and reload). Otherwise the warm tier answers.
Tenants are evicted least recently used first so the cache stays within ``capacity`` vectors.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

Signature = tuple[int, int]
"""(row count, newest seq) of a tenant when its vectors were loaded."""


@dataclass
class CachedTenant:
    """One tenant's vectors, whole, with the metadata its queries' scope is tested on."""

    ids: list[str]
    vectors: np.ndarray  # unit rows
    metadata: list[dict[str, Any]]
    signature: Signature


class HotTier:
    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        """Most vectors held, over all tenants; 0 disables the tier."""
        self._scopes: OrderedDict[str, CachedTenant] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self._searches: dict[str, list[int]] = {}  # tenant -> [answered here, all vector searches]

    def __len__(self) -> int:
        return sum(len(scope.ids) for scope in self._scopes.values())

    def lookup(self, tenant: str, signature: Signature) -> CachedTenant | None:
        """The cached scope if it is still complete for ``signature``, else None (a miss)."""
        with self._lock:
            scope = self._scopes.get(tenant)
            if scope is None or scope.signature != signature:
                self.misses += 1
                return None
            self._scopes.move_to_end(tenant)
            self.hits += 1
            return scope

    def load(
        self, tenant: str, signature: Signature, ids: list[str], vectors: np.ndarray, metadata: list[dict[str, Any]]
    ) -> None:
        """Cache a tenant whole; a tenant larger than the capacity is not cached."""
        if not ids or len(ids) > self.capacity:
            return
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        with self._lock:
            self._scopes.pop(tenant, None)
            self._scopes[tenant] = CachedTenant(list(ids), (vectors / norms).astype(np.float32), metadata, signature)
            while len(self) > self.capacity:
                self._scopes.popitem(last=False)

    def record_search(self, tenant: str, answered: bool) -> None:
        """Count a query's vector search, and whether this tier answered it (monitoring)."""
        with self._lock:
            counts = self._searches.setdefault(tenant, [0, 0])
            counts[0] += answered
            counts[1] += 1

    def hit_rate(self, tenant: str | None = None) -> float | None:
        """Vector searches this tier answered, of all (of one tenant, or all); None before any."""
        with self._lock:
            rows = [self._searches.get(tenant, [0, 0])] if tenant is not None else list(self._searches.values())
        answered, total = sum(r[0] for r in rows), sum(r[1] for r in rows)
        return round(answered / total, 4) if total else None

    def held(self, tenant: str | None = None) -> tuple[int, int]:
        """(vectors, bytes) cached for one tenant or all."""
        with self._lock:
            scopes = [self._scopes[tenant]] if tenant in self._scopes else [] if tenant is not None else list(self._scopes.values())
            return sum(len(s.ids) for s in scopes), sum(int(s.vectors.nbytes) for s in scopes)

    def invalidate(self, tenant: str | None = None) -> None:
        with self._lock:
            if tenant is None:
                self._scopes.clear()
            else:
                self._scopes.pop(tenant, None)

    def retrieve(
        self, scope: CachedTenant, query: np.ndarray, limit: int, keep: Callable[[Mapping[str, Any]], bool]
    ) -> list[tuple[str, float]]:
        """The ``limit`` memories the query attends to most (ids with cosine similarity), among the
        rows ``keep`` accepts (``deltacore.storage.filters.scope_predicate``)."""
        rows = [i for i, meta in enumerate(scope.metadata) if keep(meta)]
        if not rows:
            return []
        similarity = scope.vectors[rows] @ (query / (np.linalg.norm(query) or 1.0))
        # One Hopfield step attends with softmax(β·Xq), which is monotonic in Xq: ranking by the
        # attention is ranking by similarity. Scores stay cosine, as the warm tier reports them,
        # so fusion treats both tiers the same.
        order = np.argsort(-similarity, kind="stable")[:limit]
        return [(scope.ids[rows[i]], float(similarity[i])) for i in order]
