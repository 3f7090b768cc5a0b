"""Entity router: memories spoken by or mentioning the people, tools and services a query names.

"What did Caroline research?" is about Caroline even when her own words say "I": the speaker
index links the question to them. Within the named entities' memories, the rest of the query
ranks them, lexically and semantically.
"""

from __future__ import annotations

from sqlalchemy import exists, or_

from deltacore.retrieval.routers.base import Ranked, SearchContext, rrf_merge
from deltacore.retrieval.routers.lexical import lexical_within
from deltacore.retrieval.routers.semantic import semantic_within
from deltacore.storage.fulltext import about_token
from deltacore.storage.tables import event_entities, events, mentions


class EntityRouter:
    name = "entity"

    def search(self, context: SearchContext) -> Ranked:
        entities = list(context.analysis.entities)
        if not entities:
            return []
        tenant = context.criteria.tenant
        # Tested row by row (EXISTS: a primary-key seek per candidate row) rather than as IN a
        # list of the entities' events, which SQLite builds in full for every statement that
        # applies it: for a speaker of 12,000 memories in a 100k store, checking 200 neighbours
        # or 1,500 recent rows cost ~30% more (measured with benchmarks/read_path_profile.py).
        about = or_(
            exists().where(mentions.c.event_id == events.c.id, mentions.c.tenant == tenant, mentions.c.name.in_(entities)),
            exists().where(
                event_entities.c.event_id == events.c.id, event_entities.c.tenant == tenant,
                event_entities.c.entity.in_(entities),
            ),
        )
        rest = context.analysis.terms_without(set(entities))
        tokens = [about_token(tenant, entity) for entity in entities]
        lexical = lexical_within(context, rest, [about], context.limit, tokens) if rest else []
        semantic = semantic_within(context, [about], context.limit, tokens)
        return rrf_merge(lexical, semantic)
