"""Retrieval-time defence: what reaches the agent must deserve to drive a decision.

Applied to the fused candidates before anything is fetched, so every router (and the HOT
tier) goes through it:

1. **Honeypots**: a query that would retrieve a canary raises ``HONEYPOT_TRIGGERED``
   (``deltacore.gateway.honeypots``); canaries are never returned.
2. **Trust or corroboration**: an UNVERIFIED memory (a document, a peer, a write the gateway
   sent down the slow path) counts only when a trusted memory from an *independent* source in
   the same candidate pool says nearly the same thing (cosine ≥
   ``corroboration_similarity``). Uncorroborated, its score is multiplied by
   ``suspect_weight`` (slow-path writes) or ``unverified_weight`` (unverified channels);
   with ``QueryCriteria.for_decision`` it is left out.
3. **Narrow cone**: a memory retrieved (``record_retrieval``) by at least
   ``cone_min_retrievals`` queries that are nearly all the same words is what a trigger
   backdoor looks like (it is built to answer one trigger); its score is multiplied by
   ``cone_weight``.

Quarantined memories never get here (every SQL filter and the HOT tier drop them), and
tainted ones are dropped at packet time (``exclude_tainted``). Nothing of this is visible in
the packets beyond their ordinary ``namespace``/``trust``/flags.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import bindparam, func, select

from deltacore.gateway.consistency import content_words
from deltacore.gateway.policy import TrustPolicy
from deltacore.model import Namespace
from deltacore.storage.sql_store import _chunks
from deltacore.storage.tables import events, retrievals

Fused = list[tuple[str, float, dict[str, int]]]


class RetrievalDefence:
    def __init__(self, policy: TrustPolicy, honeypots: Any = None) -> None:
        self.policy = policy
        self._honeypots = honeypots

    def honeypot_hits(self, context: Any, ranked: dict[str, list[tuple[str, float]]]) -> list[str]:
        criteria = context.criteria
        if self._honeypots is None or not criteria.text or not self.policy.enabled:
            return []
        semantic = ranked.get("semantic") or []
        best = semantic[0][1] if semantic else None
        vector = context.query_vector() if "semantic" in ranked else None
        return self._honeypots.reached(criteria.tenant, criteria.text, vector, best)

    def rerank(self, conn: Any, fused: Fused, for_decision: bool, tenant: str = "default") -> Fused:
        """The candidates re-weighted (and, for a decision, filtered), best first."""
        if not self.policy.enabled or not fused:
            return fused
        ids = [item_id for item_id, _, _ in fused]
        info = _trust_info(conn, ids)
        weights = self._corroboration(conn, info, for_decision, tenant)
        for event_id, weight in self._cones(conn, ids).items():
            weights[event_id] = weights.get(event_id, 1.0) * weight
        if not weights:
            return fused
        adjusted = [
            (item_id, score * weights.get(item_id, 1.0), ranks)
            for item_id, score, ranks in fused
            if weights.get(item_id, 1.0) > 0.0
        ]
        adjusted.sort(key=lambda item: (-item[1], item[0]))
        return adjusted

    def _corroboration(
        self, conn: Any, info: dict[str, tuple[str, float, str | None]], for_decision: bool, tenant: str
    ) -> dict[str, float]:
        policy = self.policy
        newcomers = self._newcomers(conn, tenant, {row[2] for row in info.values() if row[2]})
        doubts: dict[str, float] = {}
        for event_id, (namespace, trust, source) in info.items():
            weight = 1.0
            if namespace == Namespace.TRUSTED.value and trust < policy.fast_path:
                weight = min(weight, policy.suspect_weight)
            elif namespace == Namespace.UNVERIFIED.value:
                weight = min(weight, policy.suspect_weight if trust < policy.fast_path else policy.unverified_weight)
            if source in newcomers:
                weight = min(weight, policy.newcomer_weight)
            if weight < 1.0:
                doubts[event_id] = weight
        if not doubts:
            return {}
        # Corroborators: trusted memories at fast-path trust from established (or unnamed) sources.
        trusted = [
            i for i, (namespace, trust, source) in info.items()
            if i not in doubts and namespace == Namespace.TRUSTED.value and trust >= policy.fast_path
        ]
        vectors = _vectors(conn, list(doubts) + trusted) if trusted else {}
        corroborated = self._corroborated(list(doubts), trusted, info, vectors)
        weights: dict[str, float] = {}
        for event_id, weight in doubts.items():
            if event_id in corroborated:
                continue
            weights[event_id] = 0.0 if for_decision else weight
        return weights

    def _newcomers(self, conn: Any, tenant: str, sources: set[str]) -> set[str]:
        """Sources with fewer stored (not quarantined) memories than ``newcomer_events``."""
        if not self.policy.newcomer_events or not sources:
            return set()
        # Counting stops at the threshold: an established source may have millions of memories.
        counts: dict[str, int] = {}
        for source in sorted(sources):
            capped = (
                select(events.c.id)
                .where(events.c.tenant == tenant, events.c.source == source, events.c.namespace != Namespace.QUARANTINE.value)
                .limit(self.policy.newcomer_events)
                .subquery()
            )
            counts[source] = int(conn.execute(select(func.count()).select_from(capped)).scalar_one())
        return {s for s in sources if counts.get(s, 0) < self.policy.newcomer_events}

    def _corroborated(
        self, doubted: Sequence[str], trusted: Sequence[str], info: dict[str, Any], vectors: dict[str, np.ndarray]
    ) -> set[str]:
        """The doubted memories that a trusted memory of another source says nearly the same as.

        One matrix product for all pairs (the vectors are unit length, so it is their cosine);
        a source cannot corroborate itself, and a memory without a vector is never corroborated.
        """
        doubted = [i for i in doubted if i in vectors]
        trusted = [i for i in trusted if i in vectors]
        if not doubted or not trusted:
            return set()
        similarity = np.stack([vectors[i] for i in doubted]) @ np.stack([vectors[i] for i in trusted]).T
        sources = [info[i][2] for i in trusted]
        same_source = np.array([[s is not None and info[d][2] == s for s in sources] for d in doubted], dtype=bool)
        close = (similarity >= self.policy.corroboration_similarity) & ~same_source
        return {event_id for event_id, row in zip(doubted, close) if row.any()}

    def _cones(self, conn: Any, ids: Sequence[str]) -> dict[str, float]:
        policy = self.policy
        queries: dict[str, list[str]] = {}
        for chunk in _chunks(list(ids), 500):
            for event_id, query in conn.execute(_RETRIEVAL_QUERIES, {"ids": chunk}):
                if len(queries.setdefault(event_id, [])) < 20:
                    queries[event_id].append(query)
        weights = {}
        for event_id, texts in queries.items():
            if len(texts) < policy.cone_min_retrievals:
                continue
            sets = [content_words(t) for t in texts]
            pairs = list(itertools.combinations(sets, 2))
            overlap = sum(len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs) / len(pairs)
            if overlap >= policy.cone_similarity:
                weights[event_id] = policy.cone_weight
        return weights


# Built once: the defence runs on every query (see SQLStore's read statements for why).
_IDS = bindparam("ids", expanding=True)
_TRUST_INFO = select(events.c.id, events.c.namespace, events.c.trust, events.c.source).where(events.c.id.in_(_IDS))
_VECTORS = select(events.c.id, events.c.embedding).where(events.c.id.in_(_IDS), events.c.embedding.is_not(None))
_RETRIEVAL_QUERIES = (
    select(retrievals.c.event_id, retrievals.c.query)
    .where(retrievals.c.event_id.in_(_IDS), retrievals.c.query.is_not(None))
    .order_by(retrievals.c.id.desc())
)


def _trust_info(conn: Any, ids: Sequence[str]) -> dict[str, tuple[str, float, str | None]]:
    found = {}
    for chunk in _chunks(list(ids), 500):
        found.update({row.id: (row.namespace, float(row.trust), row.source) for row in conn.execute(_TRUST_INFO, {"ids": chunk})})
    return found


def _vectors(conn: Any, ids: Sequence[str]) -> dict[str, np.ndarray]:
    found = {}
    for chunk in _chunks(list(ids), 500):
        for row in conn.execute(_VECTORS, {"ids": chunk}):
            vector = np.frombuffer(row.embedding, dtype=np.float32)
            found[row.id] = vector / (np.linalg.norm(vector) or 1.0)
    return found
