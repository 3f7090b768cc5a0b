"""Statements the read path builds on the tables, and the reads that run them.

The routers, the query analysis and the read-time defence ask for conditions and rows by
meaning ("memories about these entities", "memories of this period", "the trust of these
candidates"); the SQL behind each answer lives here, next to the tables it reads. These are
performance-tuned: each statement is built once where it can be (see
``deltacore.storage.event_statements``), and its shape is what the planner was measured on.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, Connection, bindparam, exists, literal, or_, select, union_all

from deltacore.storage.id_lists import in_list
from deltacore.storage.tables import event_entities, events, mentions, retrievals

# ---- query analysis -------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def known_names_statement(count: int) -> Any:
    """Per candidate name ``n<i>``: (i, a speaker?, mentioned at all?, listed as an entity?).

    Three index seeks per name (``EXISTS`` stops at the first row), whatever the number of
    memories that mention it; built once per number of names. Parameters: ``tenant``, ``n0``…
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


def known_names(conn: Connection, tenant: str, candidates: Sequence[str]) -> list[tuple[int, bool, bool, bool]]:
    """(index into ``candidates``, a speaker?, mentioned?, listed as an entity?) per candidate."""
    parameters = {"tenant": tenant, **{f"n{i}": name for i, name in enumerate(candidates)}}
    return [tuple(row) for row in conn.execute(known_names_statement(len(candidates)), parameters)]  # type: ignore[misc]


# ---- router conditions ------------------------------------------------------------------------


def about_entities(tenant: str, entities: Sequence[str]) -> ColumnElement[bool]:
    """Events spoken by, mentioning or listing one of ``entities``."""
    # Tested row by row (EXISTS: a primary-key seek per candidate row) rather than as IN a
    # list of the entities' events, which SQLite builds in full for every statement that
    # applies it: for a speaker of 12,000 memories in a 100k store, checking 200 neighbours
    # or 1,500 recent rows cost ~30% more (measured with benchmarks/read_path_profile.py).
    return or_(
        exists().where(mentions.c.event_id == events.c.id, mentions.c.tenant == tenant, mentions.c.name.in_(entities)),
        exists().where(
            event_entities.c.event_id == events.c.id, event_entities.c.tenant == tenant,
            event_entities.c.entity.in_(entities),
        ),
    )


def within_period(start: float, end: float) -> list[ColumnElement[bool]]:
    """Events whose time is in ``[start, end)`` (unix seconds)."""
    return [events.c.ts >= start, events.c.ts < end]


def says_when() -> list[ColumnElement[bool]]:
    """Events whose text carries a time expression."""
    return [events.c.has_time == 1]


# ---- read-time defence ------------------------------------------------------------------------

# Built once: the defence runs on every query.
_TRUST_INFO = select(
    events.c.id, events.c.namespace, events.c.trust, events.c.source, events.c.actor, events.c.text, events.c.channel,
    events.c.parent_ids,
).where(in_list(events.c.id))
_VECTORS = select(events.c.id, events.c.embedding).where(in_list(events.c.id), events.c.embedding.is_not(None))
_RETRIEVAL_QUERIES = (
    select(retrievals.c.event_id, retrievals.c.query)
    .where(in_list(retrievals.c.event_id), retrievals.c.query.is_not(None))
    .order_by(retrievals.c.id.desc())
)


def trust_rows(conn: Connection, ids: Sequence[str]) -> list[Any]:
    """(id, namespace, trust, source, actor, text, channel, parent_ids) of each of ``ids``."""
    return list(conn.execute(_TRUST_INFO, {"ids": list(ids)}).all())


def unit_vectors(conn: Connection, ids: Sequence[str]) -> dict[str, np.ndarray]:
    """Each event's vector scaled to length 1 (events without one are left out)."""
    rows = conn.execute(_VECTORS, {"ids": list(ids)}).all()
    if not rows:
        return {}
    matrix = np.frombuffer(b"".join(row.embedding for row in rows), dtype=np.float32).reshape(len(rows), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return dict(zip((row.id for row in rows), matrix / norms))


def retrieval_queries(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(event id, query text) of the logged retrievals of ``ids``, latest first."""
    return [tuple(row) for row in conn.execute(_RETRIEVAL_QUERIES, {"ids": list(ids)}).all()]  # type: ignore[misc]
