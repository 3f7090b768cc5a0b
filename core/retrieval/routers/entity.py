"""Entity router: memories spoken by or mentioning the people, tools and services a query names.

"What did Caroline research?" is about Caroline even when her own words say "I": the speaker
index links the question to them. Within the named entities' memories, the rest of the query
ranks them, lexically and semantically.
"""

from __future__ import annotations

from deltacore.retrieval.routers.base import Ranked, SearchContext, rrf_merge
from deltacore.retrieval.routers.lexical import lexical_within
from deltacore.retrieval.routers.semantic import semantic_within
from deltacore.storage.fulltext import about_token
from deltacore.storage.retrieval_reads import about_entities


class EntityRouter:
    name = "entity"

    def search(self, context: SearchContext) -> Ranked:
        entities = list(context.analysis.entities)
        if not entities:
            return []
        tenant = context.criteria.tenant
        about = about_entities(tenant, entities)
        rest = context.analysis.terms_without(set(entities))
        tokens = [about_token(tenant, entity) for entity in entities]
        lexical = lexical_within(context, rest, [about], context.limit, tokens) if rest else []
        semantic = semantic_within(context, [about], context.limit, tokens)
        return rrf_merge(lexical, semantic)
