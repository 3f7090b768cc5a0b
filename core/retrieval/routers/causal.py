"""Causal router: the neighbourhood of the best hits.

Multi-hop answers span several steps: the question before an answer, the tool call before its
result, the turns around a hit. Seeded with stage one's best results, it proposes each seed's
previous and next step in its episode and its causal parents and children, in seed order.
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
        neighbours = context.sql.episode_neighbours(context.conn, seeds, context.filters)
        linked = context.sql.linked_events(context.conn, seeds, context.filters)
        seen = set(seeds)
        ranked: Ranked = []
        for position, seed in enumerate(seeds):
            for event_id in [*neighbours.get(seed, ()), *linked.get(seed, ())]:
                if event_id not in seen:
                    seen.add(event_id)
                    ranked.append((event_id, 1.0 / (position + 1)))
        return ranked
