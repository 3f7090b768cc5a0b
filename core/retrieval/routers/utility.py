"""Utility router: memories that proved useful (learned from outcomes) first.

It re-ranks stage one's candidates by decayed utility; ties keep stage one's order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from deltacore.delta.utility import decayed_utility
from deltacore.retrieval.routers.base import Ranked, SearchContext


class UtilityRouter:
    name = "utility"

    def __init__(self, decay_rate_per_hour: float = 0.0) -> None:
        self.decay_rate_per_hour = decay_rate_per_hour

    def expand(self, context: SearchContext, seeds: Sequence[str]) -> Ranked:
        now = time.time()
        raw = context.sql.utilities(context.conn, list(seeds))
        utility = {
            event_id: decayed_utility(value, set_at, now, self.decay_rate_per_hour) for event_id, (value, set_at) in raw.items()
        }
        if len(set(utility.values())) <= 1:
            return []  # nothing learned yet: no vote
        order = sorted(range(len(seeds)), key=lambda i: (-utility.get(seeds[i], 0.0), i))
        return [(seeds[i], utility.get(seeds[i], 0.0)) for i in order]
