"""SQL filters built from QueryCriteria: the one place scope and quality filters are defined.

Routers may pre-filter with what their index supports; the final fetch always applies these, so
every router and every backend filters the same way.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, and_, exists, func, or_, select

from deltacore.model import Namespace, QueryCriteria
from deltacore.storage.tables import deltas, event_entities, events


def event_filters(criteria: QueryCriteria) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = [events.c.tenant == criteria.tenant]
    if criteria.agent_filter:
        clauses.append(events.c.agent_id.in_(criteria.agent_filter))
    if criteria.user_id is not None:
        clauses.append(events.c.user_id == criteria.user_id)
    if criteria.session_id is not None:
        clauses.append(events.c.session_id == criteria.session_id)
    if criteria.episode_id is not None:
        clauses.append(events.c.episode_id == criteria.episode_id)
    if criteria.exclude_episode_id is not None:
        clauses.append(or_(events.c.episode_id.is_(None), events.c.episode_id != criteria.exclude_episode_id))
    if criteria.kinds:
        clauses.append(events.c.kind.in_([k.value for k in criteria.kinds]))
    if not criteria.include_quarantined:
        clauses.append(events.c.namespace != Namespace.QUARANTINE.value)
    if criteria.time_range is not None:
        start, end = criteria.time_range
        if start is not None:
            clauses.append(events.c.ts >= start.timestamp())
        if end is not None:
            clauses.append(events.c.ts <= end.timestamp())
    if criteria.min_confidence is not None:
        clauses.append(events.c.confidence >= criteria.min_confidence)
    if criteria.min_trust is not None:
        clauses.append(events.c.trust >= criteria.min_trust)
    if criteria.action is not None:
        clauses.append(
            or_(
                events.c.tool_name == criteria.action,
                exists(
                    select(deltas.c.id).where(
                        deltas.c.event_id == events.c.id, func.lower(deltas.c.action) == criteria.action.lower()
                    )
                ),
            )
        )
    if criteria.entity is not None:
        clauses.append(entity_filter(criteria.tenant, criteria.entity))
    if criteria.outcome is not None:
        pattern = f"%{criteria.outcome.lower()}%"
        clauses.append(
            exists(
                select(deltas.c.id).where(deltas.c.event_id == events.c.id, func.lower(deltas.c.result).like(pattern))
            )
        )
    return clauses


def entity_filter(tenant: str, entity: str) -> ColumnElement[bool]:
    """Events about ``entity``: listed in their entities, or spoken by / belonging to it."""
    folded = entity.casefold()
    return or_(
        events.c.id.in_(
            select(event_entities.c.event_id).where(
                and_(event_entities.c.tenant == tenant, event_entities.c.entity == folded)
            )
        ),
        func.lower(events.c.actor) == folded,
        events.c.user_id == entity,
    )
