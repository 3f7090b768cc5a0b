"""Recency router: the newest memories in scope ("what happened last?")."""

from __future__ import annotations

from deltacore.retrieval.routers.base import Ranked, SearchContext


class RecencyRouter:
    name = "recency"

    def search(self, context: SearchContext) -> Ranked:
        recent = context.sql.recent_event_ids(context.conn, context.filters, context.limit)
        if not recent:
            return recent
        # Seconds after the oldest candidate, not raw UNIX timestamps: fusion floors a list shorter
        # than the pool at 0, where timestamps (~1.7e9) would all normalise to ~1 and recency
        # would add the same weight to every memory of a small scope.
        oldest = recent[-1][1]
        return [(event_id, ts - oldest) for event_id, ts in recent]
