"""Schema router: learned plan schemas whose trigger matches the query.

Its candidates are not events but schemas (``schema:<id>``, ``deltacore.retrieval.
schema_packets``): the orchestrator builds their packets from what this search found, kept in
the query's shared context. It runs only when a query names it (``routers=["schema", …]``):
a schema is advice about what to do, not a memory of what happened, so a plain question does
not get one in place of the memories it asked for.
"""

from __future__ import annotations

from deltacore.retrieval.routers.base import Ranked, SearchContext

SHARED_KEY = "schema_candidates"


class SchemaRouter:
    name = "schema"

    def search(self, context: SearchContext) -> Ranked:
        source = context.schemas
        if source is None or not context.criteria.text or context.budget.hot_only:
            return []
        found = source.search(context.conn, context.criteria, context.scope, context.query_vector(), context.limit)
        context.shared[SHARED_KEY] = {f"schema:{c.schema_id}": c for c in found}
        return [(f"schema:{c.schema_id}", c.similarity) for c in found]
