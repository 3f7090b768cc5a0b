"""Causal router: the neighbourhood of the best hits.

Multi-hop answers span several steps: the question before an answer, the tool call before its
result, the turns around a hit. Seeded with stage one's best results, it proposes each seed's
causal parents and children, in seed order. Steps of an episode are chained to the previous
step when they are stored, so these include the previous and next step of the episode.
"""

from __future__ import annotations

from collections.abc import Sequence

from deltacore.retrieval.routers.base import Ranked, SearchContext

SEEDS = 10


class CausalRouter:
    name = "causal"

    def expand(self, context: SearchContext, seeds: Sequence[str]) -> Ranked:
        seeds = list(seeds[:SEEDS])
        if not seeds:
            return []
        linked = context.sql.linked_events(context.conn, seeds, context.filters)
        seen = set(seeds)
        ranked: Ranked = []
        for position, seed in enumerate(seeds):
            for event_id in linked.get(seed, ()):
                if event_id not in seen:
                    seen.add(event_id)
                    ranked.append((event_id, 1.0 / (position + 1)))
        return ranked
