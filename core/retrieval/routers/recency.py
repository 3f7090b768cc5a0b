"""Recency router: the newest memories in scope ("what happened last?").

With nothing else to go on (no text, or only this router) it finds the newest memories. A
question with content ("how does Rosa get to work now?") asks for the newest of the memories
*about that*: then it re-ranks what the content routers found by age (:meth:`rerank`),
instead of adding the store's newest memories, whatever they are about, to the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from deltacore.retrieval.routers.base import Ranked, SearchContext


class RecencyRouter:
    name = "recency"

    def search(self, context: SearchContext) -> Ranked:
        return _relative(context.sql.recent_event_ids(context.conn, context.filters, context.limit))

    def rerank(self, context: SearchContext, seeds: Sequence[str]) -> Ranked:
        """``seeds`` (stage one's candidates) newest first."""
        if not seeds:
            return []
        return _relative(context.sql.recent_event_ids(context.conn, context.filters, len(seeds), among=seeds))


def _relative(recent: Ranked) -> Ranked:
    # Seconds after the oldest candidate, not raw UNIX timestamps: fusion floors a list shorter
    # than the pool at 0, where timestamps (~1.7e9) would all normalise to ~1 and recency
    # would add the same weight to every memory of a small scope.
    if not recent:
        return recent
    oldest = recent[-1][1]
    return [(event_id, ts - oldest) for event_id, ts in recent]
