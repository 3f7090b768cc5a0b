"""Belief router: what the store knows against a memory pushes it down.

It re-ranks stage one's candidates: memories flagged stale, contradicted, tainted, or stored
unverified go after the others (each keeps its order within its group), so fusion gives them
less weight without hiding them (the exclude_* filters hide them).
"""

from __future__ import annotations

from collections.abc import Sequence

from deltacore.retrieval.routers.base import Ranked, SearchContext

# How much each kind of doubt costs (the sort key: higher = further down).
PENALTY = {"tainted": 3, "contradicted": 2, "stale": 1}


class BeliefRouter:
    name = "belief"

    def expand(self, context: SearchContext, seeds: Sequence[str]) -> Ranked:
        signals = context.sql.trust_signals(context.conn, list(seeds))
        doubts = {
            event_id: sum(PENALTY.get(flag, 0) for flag in flags) + (namespace in ("unverified", "quarantine"))
            for event_id, (namespace, flags) in signals.items()
        }
        if not any(doubts.values()):
            return []  # nothing is doubted: no vote, rather than echoing stage one's order back
        order = sorted(range(len(seeds)), key=lambda i: (doubts.get(seeds[i], 0), i))
        return [(seeds[i], -float(doubts.get(seeds[i], 0))) for i in order]
