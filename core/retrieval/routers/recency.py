"""Recency router: the newest memories in scope ("what happened last?")."""

from __future__ import annotations

from deltacore.retrieval.routers.base import Ranked, SearchContext


class RecencyRouter:
    name = "recency"

    def search(self, context: SearchContext) -> Ranked:
        return context.sql.recent_event_ids(context.conn, context.filters, context.limit)
