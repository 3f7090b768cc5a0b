"""Reading a query before routing it: which entities it names, which time, what it asks for.

Entities are only those the store knows (speakers and names mentioned in memories of this
tenant), so a capitalised word that names nothing stored never narrows a search.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from deltacore.delta.mentions import TimeRange, asks_when, explicit_time_range, mentioned_names, wants_recent
from deltacore.storage.fulltext import query_terms
from deltacore.storage.retrieval_reads import known_names


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    terms: tuple[str, ...]
    """Content words (lower-cased, stop words removed)."""
    entities: tuple[str, ...] = ()
    """Known entities the query names (casefolded)."""
    time_range: TimeRange | None = None
    """A calendar range named in the query ("in June 2023")."""
    asks_when: bool = False
    wants_recent: bool = False

    def terms_without(self, words: set[str]) -> list[str]:
        return [t for t in self.terms if t not in words]


def analyze(text: str | None, conn: Connection | None = None, tenant: str | None = None) -> QueryAnalysis:
    if not text:
        return QueryAnalysis(text="", terms=())
    terms = tuple(query_terms(text))
    entities: tuple[str, ...] = ()
    if conn is not None and tenant is not None:
        entities = known_entities(conn, tenant, text, terms)
    return QueryAnalysis(
        text=text,
        terms=terms,
        entities=entities,
        time_range=explicit_time_range(text),
        asks_when=asks_when(text),
        wants_recent=wants_recent(text),
    )


def known_entities(conn: Connection, tenant: str, text: str, terms: tuple[str, ...]) -> tuple[str, ...]:
    """Names in the query that the store knows: any capitalised name, or a lower-case word that
    is a speaker's name ("what did caroline say")."""
    capitalised = mentioned_names(text)
    candidates = list(dict.fromkeys([*capitalised, *terms]))[:64]
    if not candidates:
        return ()
    capitalised_set = set(capitalised)
    found = set()
    for i, speaker, mentioned, listed in known_names(conn, tenant, candidates):
        name = candidates[i]
        if listed or speaker or (mentioned and name in capitalised_set):
            found.add(name)
    return tuple(name for name in candidates if name in found)
