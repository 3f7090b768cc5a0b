"""Temporal router: time named in the query, and "when" questions.

A query naming a date or month ("in June 2023") searches the memories of that period. A "when"
question searches the memories that say when something happened (their text carries a time
expression): the answer is that memory plus its own timestamp, which every packet carries.

A period is searched exactly (its nearest memories, however far from the query's other
neighbours). A "when" question only prefers, among the memories near the question, those that
say when: a memory that says when but is not near the question answers another question.
"""

from __future__ import annotations

from typing import Any

from deltacore.retrieval.routers.base import Ranked, SearchContext, rrf_merge
from deltacore.retrieval.routers.lexical import lexical_within
from deltacore.retrieval.routers.semantic import semantic_where
from deltacore.storage.fulltext import timed_token
from deltacore.storage.retrieval_reads import says_when, within_period


class TemporalRouter:
    name = "temporal"

    def search(self, context: SearchContext) -> Ranked:
        analysis = context.analysis
        if analysis.time_range is not None:
            start, end = analysis.time_range.start.timestamp(), analysis.time_range.end.timestamp()
            sql = within_period(start, end)
            chroma: list[dict[str, Any]] | None = [{"ts": {"$gte": start}}, {"ts": {"$lt": end}}]
            about: list[str] = []
        elif analysis.asks_when:
            sql = says_when()
            # Only the timed memories among the question's neighbours (no widening, no Chroma
            # filter: the vector index does not keep has_time).
            chroma, about = None, [timed_token(context.criteria.tenant)]
        else:
            return []
        lexical = lexical_within(context, analysis.terms, sql, context.limit, about)
        semantic = semantic_where(context, context.limit, sql, chroma)
        return rrf_merge(lexical, semantic)
