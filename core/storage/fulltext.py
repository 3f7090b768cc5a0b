"""Lexical search inside the database: SQLite FTS5 (bm25) and PostgreSQL full text.

Both are queried with OR semantics over the query's content words so that a natural-language
question matches memories that share any of its terms, ranked by how many and how rare.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, ColumnElement, func, literal_column, select, table, column

from deltacore.storage.tables import events

_WORD = re.compile(r"\w+", re.UNICODE)
# Function words carry no lexical signal and make OR queries slow; keep the list short so
# that content words are never dropped.
STOPWORDS = frozenset(
    """a an and are as at be been but by did do does for from had has have he her hers him his how i
    if in into is it its me my of on or our she so than that the their them then there these they
    this to was we were what when where which who whom why will with would you your""".split()
)
MAX_TERMS = 32


def query_terms(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word.isdigit() or (word not in STOPWORDS and len(word) > 1):
            seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]


_fts = table("dc_events_fts", column("rowid"))


def lexical_search(
    conn: Connection, terms: list[str], filters: list[ColumnElement[bool]], limit: int
) -> list[tuple[str, float]]:
    """Ids of the best matches for any of ``terms`` (see :func:`query_terms`), best first."""
    if not terms:
        return []
    if conn.dialect.name == "sqlite":
        match = " OR ".join('"' + term.replace('"', "") + '"' for term in terms)
        rank = func.bm25(literal_column("dc_events_fts"))
        statement = (
            select(events.c.id, rank.label("rank"))
            .select_from(_fts.join(events, events.c.seq == _fts.c.rowid))
            .where(literal_column("dc_events_fts").op("MATCH")(match), *filters)
            .order_by(rank)
            .limit(limit)
        )
        # bm25() is lower-is-better; flip it so every router reports higher-is-better.
        return [(row.id, -float(row.rank)) for row in conn.execute(statement)]
    query = func.to_tsquery("english", " | ".join(terms))
    tsv = literal_column("dc_events.tsv")
    rank = func.ts_rank_cd(tsv, query)
    statement = (
        select(events.c.id, rank.label("rank"))
        .where(tsv.op("@@")(query), *filters)
        .order_by(rank.desc(), events.c.seq)
        .limit(limit)
    )
    return [(row.id, float(row.rank)) for row in conn.execute(statement)]
