"""Lexical router: full-text match in the database (FTS5 bm25 / PostgreSQL ts_rank_cd)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement

from deltacore.retrieval.routers.base import Ranked, SearchContext
from deltacore.storage.fulltext import lexical_search


class LexicalRouter:
    name = "lexical"

    def search(self, context: SearchContext) -> Ranked:
        if not context.criteria.text:
            return []
        return lexical_search(
            context.conn, list(context.analysis.terms), context.filters, context.limit, context.sql.term_statistics
        )


def lexical_within(
    context: SearchContext,
    terms: Sequence[str],
    extra_filters: Sequence[ColumnElement[bool]],
    limit: int,
    about: Sequence[str] = (),
) -> Ranked:
    """Lexical matches among the events ``extra_filters`` select; ``about``: the same condition
    as full-text tokens (``deltacore.storage.fulltext.about_token``), when it has one."""
    return lexical_search(
        context.conn, list(terms), [*context.filters, *extra_filters], limit, context.sql.term_statistics, about
    )
