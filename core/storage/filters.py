"""Query filters: the one place scope and quality filters are compiled.

A query's :class:`~deltacore.model.ScopeFilter` (scope, episode, kinds, quarantine, time) is
compiled here three ways — SQL clauses, a Chroma metadata ``where`` and a test on the HOT tier's
cached metadata — so the three indexes cannot drift apart. Routers may pre-filter with what
their index supports; the final fetch always applies :func:`event_filters`, so every router and
every backend filters the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, or_, select

from deltacore.model import Namespace, QueryCriteria, ScopeFilter
from deltacore.storage.tables import deltas, event_entities, events

SCOPE_METADATA = ("agent_id", "user_id", "session_id", "episode_id", "kind", "namespace", "ts", "replaced_by")
"""The row metadata :func:`scope_predicate` reads (what the HOT tier keeps beside each vector)."""


def scope_clauses(scope: ScopeFilter, *, current_only: bool = True) -> list[ColumnElement[bool]]:
    """The scope filter as SQL conditions on ``dc_events``; ``current_only=False`` leaves out
    the "not replaced" condition (for a caller that decides which replaced rows count)."""
    clauses: list[ColumnElement[bool]] = [events.c.tenant == scope.tenant]
    if scope.agents:
        clauses.append(events.c.agent_id.in_(scope.agents))
    if scope.user_id is not None:
        clauses.append(events.c.user_id == scope.user_id)
    if scope.session_id is not None:
        clauses.append(events.c.session_id == scope.session_id)
    if scope.episode_id is not None:
        clauses.append(events.c.episode_id == scope.episode_id)
    if scope.exclude_episode_id is not None:
        clauses.append(or_(events.c.episode_id.is_(None), events.c.episode_id != scope.exclude_episode_id))
    if scope.kinds:
        clauses.append(events.c.kind.in_(list(scope.kinds)))
    if not scope.include_quarantined:
        clauses.append(events.c.namespace != Namespace.QUARANTINE.value)
    # A version an update replaced is kept (``versions()``) but is no longer the memory.
    if current_only:
        clauses.append(events.c.replaced_by.is_(None))
    if scope.since is not None:
        clauses.append(events.c.ts >= scope.since)
    if scope.until is not None:
        clauses.append(events.c.ts <= scope.until)
    return clauses


def chroma_scope(scope: ScopeFilter) -> list[dict[str, Any]]:
    """The scope filter as Chroma metadata conditions (the tenant is the collection).

    A pre-filter, re-checked by the final SQL fetch; two conditions are deliberately looser or
    absent, see the comments."""
    clauses: list[dict[str, Any]] = []
    if scope.agents:
        clauses.append({"agent_id": {"$in": list(scope.agents)}})
    for name in ("user_id", "session_id", "episode_id"):
        value = getattr(scope, name)
        if value is not None:
            clauses.append({name: value})
    if scope.exclude_episode_id is not None:
        # Chroma cannot say "missing or different" in one clause; the final SQL fetch filters
        # exactly, this only keeps the asking run's own events from crowding out candidates.
        clauses.append({"episode_id": {"$ne": scope.exclude_episode_id}})
    if scope.kinds:
        clauses.append({"kind": {"$in": list(scope.kinds)}})
    # Quarantined memories are not pre-filtered here: they are rare, the final SQL fetch drops
    # them, and an always-on metadata filter turns Chroma's HNSW search into a filtered scan.
    if scope.since is not None:
        clauses.append({"ts": {"$gte": scope.since}})
    if scope.until is not None:
        clauses.append({"ts": {"$lte": scope.until}})
    return clauses


def scope_predicate(scope: ScopeFilter) -> Callable[[Mapping[str, Any]], bool]:
    """The scope filter as a test on one row's :data:`SCOPE_METADATA` (the tenant is the cache
    entry): the same conditions as :func:`scope_clauses`."""
    agents = set(scope.agents)
    kinds = set(scope.kinds)
    wanted = [(name, getattr(scope, name)) for name in ("user_id", "session_id", "episode_id")]
    wanted = [(name, value) for name, value in wanted if value is not None]
    excluded = scope.exclude_episode_id
    hide_quarantine = not scope.include_quarantined
    low, high = scope.since, scope.until

    def keep(meta: Mapping[str, Any]) -> bool:
        if agents and meta["agent_id"] not in agents:
            return False
        for name, value in wanted:
            if meta[name] != value:
                return False
        if excluded is not None and meta["episode_id"] == excluded:
            return False
        if kinds and meta["kind"] not in kinds:
            return False
        if hide_quarantine and meta["namespace"] == Namespace.QUARANTINE.value:
            return False
        if meta["replaced_by"] is not None:
            return False
        if low is not None and meta["ts"] < low:
            return False
        return high is None or meta["ts"] <= high

    return keep


def event_filters(criteria: QueryCriteria) -> list[ColumnElement[bool]]:
    """Every filter of a query as SQL: its scope, then the quality and content conditions."""
    clauses = scope_clauses(ScopeFilter.of(criteria))
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
