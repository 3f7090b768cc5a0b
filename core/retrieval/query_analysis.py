"""Reading a query before routing it: which entities it names, which time, what it asks for.

Entities are only those the store knows (speakers and names mentioned in memories of this
tenant), so a capitalised word that names nothing stored never narrows a search.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, exists, literal, select, union_all

from deltacore.delta.mentions import TimeRange, asks_when, explicit_time_range, mentioned_names, wants_recent
from deltacore.storage.fulltext import query_terms
from deltacore.storage.tables import event_entities, mentions


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
    parameters = {"tenant": tenant, **{f"n{i}": name for i, name in enumerate(candidates)}}
    found = set()
    for i, speaker, mentioned, listed in conn.execute(_known_names_statement(len(candidates)), parameters):
        name = candidates[i]
        if listed or speaker or (mentioned and name in capitalised_set):
            found.add(name)
    return tuple(name for name in candidates if name in found)


@functools.lru_cache(maxsize=None)
def _known_names_statement(count: int) -> Any:
    """Per candidate name ``n<i>``: (i, a speaker?, mentioned at all?, listed as an entity?).

    Three index seeks per name (``EXISTS`` stops at the first row), whatever the number of
    memories that mention it; built once per number of names.
    """
    tenant = bindparam("tenant")
    rows = []
    for i in range(count):
        name = bindparam(f"n{i}")
        rows.append(
            select(
                literal(i).label("i"),
                exists().where(mentions.c.tenant == tenant, mentions.c.name == name, mentions.c.role == "actor").label("speaker"),
                exists().where(mentions.c.tenant == tenant, mentions.c.name == name).label("mentioned"),
                exists().where(event_entities.c.tenant == tenant, event_entities.c.entity == name).label("listed"),
            )
        )
    return rows[0] if count == 1 else union_all(*rows)
