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
   The same holds for any memory of a source without **standing** (``deltacore.gateway.standing``:
   enough memories, over days, and a reputation it has not lost — or trust earned from
   outcomes), with one exception so that a new user can find what they said: when nothing
   trusted answers the query and nothing trusted covers the memory's topic (no trusted
   candidate of a source with standing within ``answered_similarity`` of the query or of the
   memory), the newcomer's memory keeps its score. A planted answer that competes with true
   evidence therefore loses; one about a topic nothing trusted covers does not
   (docs/security.md says so).
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
from sqlalchemy import select

from deltacore.gateway.consistency import content_words
from deltacore.gateway.policy import TrustPolicy
from deltacore.gateway.standing import newcomer_sources
from deltacore.model import Namespace
from deltacore.storage.id_lists import in_list
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

    def rerank(
        self, conn: Any, fused: Fused, for_decision: bool, tenant: str = "default",
        semantic: Sequence[tuple[str, float]] | None = None,
    ) -> Fused:
        """The candidates re-weighted (and, for a decision, filtered), best first.

        ``semantic``: the semantic router's (id, cosine to the query), which tells whether a
        trusted memory answers the query (without it, one is assumed to)."""
        if not self.policy.enabled or not fused:
            return fused
        ids = [item_id for item_id, _, _ in fused]
        info = _trust_info(conn, ids)
        weights = self._corroboration(conn, info, for_decision, tenant, dict(semantic) if semantic is not None else None)
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
        self, conn: Any, info: dict[str, tuple[str, float, str | None]], for_decision: bool, tenant: str,
        cosines: dict[str, float] | None,
    ) -> dict[str, float]:
        policy = self.policy
        newcomers = newcomer_sources(conn, policy, tenant, {row[2] for row in info.values() if row[2]})
        doubts: dict[str, float] = {}
        only_new: set[str] = set()  # doubted for lacking standing alone (the gateway had no doubt)
        for event_id, (namespace, trust, source) in info.items():
            weight = 1.0
            if namespace == Namespace.TRUSTED.value and trust < policy.fast_path:
                weight = min(weight, policy.suspect_weight)
            elif namespace == Namespace.UNVERIFIED.value:
                weight = min(weight, policy.suspect_weight if trust < policy.fast_path else policy.unverified_weight)
            if source in newcomers:
                if weight == 1.0:
                    only_new.add(event_id)
                weight = min(weight, policy.newcomer_weight)
            if weight < 1.0:
                doubts[event_id] = weight
        if not doubts:
            return {}
        # Corroborators: trusted memories at fast-path trust from sources with standing (or unnamed).
        trusted = [
            i for i, (namespace, trust, source) in info.items()
            if i not in doubts and namespace == Namespace.TRUSTED.value and trust >= policy.fast_path
        ]
        # Does anything trusted answer the query? If not, a newcomer's memory may be the best there is.
        answered = cosines is None or any(cosines.get(i, 0.0) >= policy.answered_similarity for i in trusted)
        vectors = _vectors(conn, list(doubts) + trusted) if trusted else {}
        corroborated = self._corroborated(list(doubts), trusted, info, vectors)
        weights: dict[str, float] = {}
        for event_id, weight in doubts.items():
            if event_id in corroborated:
                continue
            if for_decision:
                weights[event_id] = 0.0
            elif event_id in only_new and not answered and not self._covered(event_id, trusted, vectors):
                continue  # a new user's own news: nothing trusted says anything about it
            else:
                weights[event_id] = weight
        return weights

    def _covered(self, event_id: str, trusted: Sequence[str], vectors: dict[str, np.ndarray]) -> bool:
        """Is a trusted candidate about the same thing as this memory (cosine ≥
        ``answered_similarity``, below corroboration)? A planted answer restates a topic the
        true evidence covers, even when the question itself is far from that evidence."""
        mine = vectors.get(event_id)
        if mine is None:
            return False
        return any(float(mine @ vectors[other]) >= self.policy.answered_similarity for other in trusted if other in vectors)

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
        for event_id, query in conn.execute(_RETRIEVAL_QUERIES, {"ids": list(ids)}):
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
_TRUST_INFO = select(events.c.id, events.c.namespace, events.c.trust, events.c.source).where(in_list(events.c.id))
_VECTORS = select(events.c.id, events.c.embedding).where(in_list(events.c.id), events.c.embedding.is_not(None))
_RETRIEVAL_QUERIES = (
    select(retrievals.c.event_id, retrievals.c.query)
    .where(in_list(retrievals.c.event_id), retrievals.c.query.is_not(None))
    .order_by(retrievals.c.id.desc())
)


def _trust_info(conn: Any, ids: Sequence[str]) -> dict[str, tuple[str, float, str | None]]:
    return {row.id: (row.namespace, float(row.trust), row.source) for row in conn.execute(_TRUST_INFO, {"ids": list(ids)})}


def _vectors(conn: Any, ids: Sequence[str]) -> dict[str, np.ndarray]:
    found = {}
    for row in conn.execute(_VECTORS, {"ids": list(ids)}):
        vector = np.frombuffer(row.embedding, dtype=np.float32)
        found[row.id] = vector / (np.linalg.norm(vector) or 1.0)
    return found
