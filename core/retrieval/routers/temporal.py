"""Temporal router: time named in the query, and "when" questions.

A query naming a date or month ("in June 2023") searches the memories of that period. A "when"
question searches the memories that say when something happened (their text carries a time
expression): the answer is that memory plus its own timestamp, which every packet carries.
"""

from __future__ import annotations

from deltacore.retrieval.routers.base import Ranked, SearchContext, rrf_merge
from deltacore.retrieval.routers.lexical import lexical_within
from deltacore.retrieval.routers.semantic import semantic_where
from deltacore.storage.tables import events


class TemporalRouter:
    name = "temporal"

    def search(self, context: SearchContext) -> Ranked:
        analysis = context.analysis
        if analysis.time_range is not None:
            start, end = analysis.time_range.start.timestamp(), analysis.time_range.end.timestamp()
            sql = [events.c.ts >= start, events.c.ts < end]
            chroma = [{"ts": {"$gte": start}}, {"ts": {"$lt": end}}]
        elif analysis.asks_when:
            sql = [events.c.has_time == 1]
            chroma = [{"has_time": 1}]
        else:
            return []
        lexical = lexical_within(context, analysis.terms, sql, context.limit)
        semantic = semantic_where(context, context.limit, sql, chroma)
        return rrf_merge(lexical, semantic)
