"""Lexical search inside the database: SQLite FTS5 (bm25) and PostgreSQL full text.

Both are queried with OR semantics over the query's content words so that a natural-language
question matches memories that share any of its terms, ranked by how many and how rare.

Ranking an OR query costs one score per matching row, so a common word ("service", "deploy" in
an ops agent's memory) makes every query rank tens of thousands of rows. As in Lucene's
common-terms query, a query only matches on its rarest terms, as many as fit a budget of
postings (matching rows); the words left out occur in so many memories that their inverse
document frequency — their weight in bm25 — is close to nothing. Document frequencies are
counted once per term and cached until the store has grown by a tenth.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, ColumnElement, column, func, literal_column, select, table

from deltacore.storage.id_lists import in_list
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
POSTINGS_BUDGET = 4000
"""Rows a lexical query may match and rank; the rarest term is always kept whatever its count."""


def query_terms(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word.isdigit() or (word not in STOPWORDS and len(word) > 1):
            seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]


_fts = table("dc_events_fts", column("rowid"))


def _fts5_phrase(term: str) -> str:
    return '"' + term.replace('"', "") + '"'


# ---- what a memory is about, as full-text tokens (SQLite) ---------------------------------------
#
# "The memories about Quentin that mention the licence checker" is a full-text query within a
# set the database knows from other tables (the entity and mention index). Joining every text
# match to those tables costs ~15 ms at 100k memories; FTS5 intersects two posting lists in ~2 ms.
# So SQLite's index has a second column, ``about``: one token per entity a memory is about and
# one if its text says when, both within its tenant. A token is a letter and digits from a hash
# of tenant and name, so that no name, whatever its characters, splits into several tokens or is
# changed by the stemmer, and one tenant's "priya" is not another's.


def about_token(tenant: str, name: str) -> str:
    """The ``about`` column's token for an entity (casefolded, as the entity index stores it)."""
    digest = hashlib.blake2b(f"{tenant}\x00{name}".encode("utf-8"), digest_size=8).digest()
    return "k" + str(int.from_bytes(digest, "big"))


def timed_token(tenant: str) -> str:
    """The token of a memory whose text says when (``has_time``)."""
    return about_token(tenant, "\x00has_time")


def latest_about(conn: Connection, about: Sequence[str], limit: int) -> list[int]:
    """Row numbers of the last ``limit`` memories written that carry one of the ``about`` tokens,
    newest first (SQLite: read backwards from the tokens' posting lists, no table row touched)."""
    statement = select(_fts.c.rowid).where(literal_column("dc_events_fts").op("MATCH")(_about_match(about)))
    return list(conn.execute(statement.order_by(_fts.c.rowid.desc()).limit(limit)).scalars().all())


def _about_match(about: Sequence[str]) -> str:
    return "about : (" + " OR ".join(_fts5_phrase(t) for t in about) + ")"


def about_text(tenant: str, names: Iterable[str], has_time: bool) -> str:
    tokens = dict.fromkeys(about_token(tenant, name) for name in names)
    if has_time:
        tokens[timed_token(tenant)] = None
    return " ".join(tokens)


class TermStatistics:
    """Document frequency per term across the whole store (all tenants), cached per process.

    Counts are exact when taken and may lag by up to ``refresh`` of the store's growth: they only
    decide which words are too common to be worth ranking, where a tenth either way does not
    change the choice.
    """

    def __init__(self, max_terms: int = 50_000, refresh: float = 0.1) -> None:
        self._counts: dict[str, tuple[int, int]] = {}  # term -> (documents, store size when counted)
        self._max_terms = max_terms
        self._refresh = refresh
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()

    def frequencies(self, conn: Connection, terms: list[str]) -> dict[str, int]:
        size = _store_size(conn)
        found: dict[str, int] = {}
        for term in terms:
            with self._lock:
                cached = self._counts.get(term)
            if cached is not None and abs(size - cached[1]) <= self._refresh * max(cached[1], 100):
                found[term] = cached[0]
                continue
            found[term] = count = _document_frequency(conn, term)
            with self._lock:
                if len(self._counts) >= self._max_terms:
                    self._counts.clear()  # rare; a cold cache only costs a few counts
                self._counts[term] = (count, size)
        return found


def _store_size(conn: Connection) -> int:
    # The highest row number is read from the primary key's b-tree end: constant time, and an
    # upper bound of the row count that only drifts after deletes.
    return int(conn.execute(select(func.max(events.c.seq))).scalar() or 0)


def _document_frequency(conn: Connection, term: str) -> int:
    if conn.dialect.name == "sqlite":
        statement = select(func.count()).select_from(_fts).where(
            literal_column("dc_events_fts").op("MATCH")(_fts5_phrase(term))
        )
    else:
        statement = select(func.count()).select_from(events).where(
            literal_column("dc_events.tsv").op("@@")(func.to_tsquery("english", term))
        )
    return int(conn.execute(statement).scalar() or 0)


def affordable_terms(terms: list[str], frequencies: dict[str, int], budget: int | None = None) -> list[str]:
    """The rarest of ``terms`` whose matches fit ``budget`` (default :data:`POSTINGS_BUDGET`),
    in query order; the rarest present term is always kept."""
    budget = POSTINGS_BUDGET if budget is None else budget
    present = [t for t in terms if frequencies.get(t, 0) > 0]
    kept: set[str] = set()
    spent = 0
    for term in sorted(present, key=lambda t: (frequencies[t], terms.index(t))):
        if kept and spent + frequencies[term] > budget:
            break
        kept.add(term)
        spent += frequencies[term]
    return [t for t in terms if t in kept]


def lexical_search(
    conn: Connection,
    terms: list[str],
    filters: list[ColumnElement[bool]],
    limit: int,
    statistics: TermStatistics | None = None,
    about: Sequence[str] = (),
) -> list[tuple[str, float]]:
    """Ids of the best matches for any of ``terms`` (see :func:`query_terms`), best first.

    With ``statistics``, only the rarest terms that fit :data:`POSTINGS_BUDGET` are matched.
    ``about``: :func:`about_token` s of which a match must carry one, a narrowing the SQLite
    index applies itself; it must be implied by ``filters``, which decide on every backend.
    """
    if statistics is not None and terms:
        terms = affordable_terms(terms, statistics.frequencies(conn, terms))
    if not terms:
        return []
    if conn.dialect.name == "sqlite":
        match = " OR ".join(_fts5_phrase(term) for term in terms)
        if about:
            match = f"{_about_match(about)} AND text : ({match})"
        return _fts5_search(conn, match, filters, limit)
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


# How many of the full-text index's best matches are checked against the query's filters before
# the search falls back to ranking only the rows that pass them.
_PREFILTER_FACTOR = 4


def _fts5_search(conn: Connection, match: str, filters: list[ColumnElement[bool]], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best bm25 matches that pass ``filters``, ties in row order.

    Ranking inside the full-text index alone is cheap; joining every match to its row to test
    the filters is what costs (thousands of row reads for a common term). Most memories pass a
    query's filters, so rank in the index first and read only the best ``4 × limit`` rows;
    when fewer than ``limit`` of them pass (a narrow scope), rank the passing rows instead.
    Either way the answer is the best ``limit`` that pass.
    """
    # The ``about`` column only narrows (weight 0): the score is the text's bm25 alone.
    rank = func.bm25(literal_column("dc_events_fts"), 1.0, 0.0)
    matches = literal_column("dc_events_fts").op("MATCH")(match)
    pool = limit * _PREFILTER_FACTOR
    best = conn.execute(
        select(_fts.c.rowid, rank.label("rank")).where(matches).order_by(rank, _fts.c.rowid).limit(pool)
    ).all()
    ids = {}
    if best:
        statement = select(events.c.seq, events.c.id).where(in_list(events.c.seq, "seqs", integers=True), *filters)
        ids = dict(conn.execute(statement, {"seqs": [r.rowid for r in best]}).all())
    passing = [(ids[r.rowid], r.rank) for r in best if r.rowid in ids]
    if len(passing) < limit and len(best) == pool:
        statement = (
            select(events.c.id, rank.label("rank"))
            .select_from(_fts.join(events, events.c.seq == _fts.c.rowid))
            .where(matches, *filters)
            .order_by(rank, events.c.seq)
            .limit(limit)
        )
        passing = [(row.id, row.rank) for row in conn.execute(statement)]
    # bm25() is lower-is-better; flip it so every router reports higher-is-better.
    return [(event_id, -float(value)) for event_id, value in passing[:limit]]
