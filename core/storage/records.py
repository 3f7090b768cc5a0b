"""Rows to records: the one mapping from stored rows to the public model classes.

Every record built from a stored row is built here: ``Event``, ``Delta``, ``SecurityEvent`` and
``ReviewItem``; timestamps become UTC datetimes in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from deltacore.model import Delta, Event, EventKind, Namespace, ReviewItem, SecurityEvent


def delta_from_row(row: Any, parents: Mapping[str, Sequence[str]], utility: float) -> Delta:
    """``utility`` is the value to show (the caller decays the stored one: storage knows no policy)."""
    return Delta(
        id=row.id,
        event_id=row.event_id,
        tenant=row.tenant,
        ts=datetime.fromtimestamp(row.ts, timezone.utc),
        kind=EventKind(row.kind),
        trigger=row.trigger,
        action=row.action,
        result=row.result,
        subject=row.subject,
        predicate=row.predicate,
        object=row.object,
        utility=utility,
        credit=row.credit,
        parent_ids=tuple(parents.get(row.id, ())),
        conflict_flags=tuple(row.conflict_flags or ()),
        namespace=Namespace(row.namespace),
        tool_name=row.tool_name,
        tool_schema_hash=row.tool_schema_hash,
        agent_id=row.agent_id,
        user_id=row.user_id,
        session_id=row.session_id,
        episode_id=row.episode_id,
    )


def event_from_row(row: Any) -> Event:
    return Event(
        id=row.id,
        ts=datetime.fromtimestamp(row.ts, timezone.utc),
        kind=EventKind(row.kind),
        text=row.text,
        role=row.role,
        actor=row.actor,
        source=row.source,
        tenant=row.tenant,
        agent_id=row.agent_id,
        user_id=row.user_id,
        session_id=row.session_id,
        episode_id=row.episode_id,
        parent_ids=tuple(row.parent_ids or ()),
        confidence=row.confidence,
        tool_name=row.tool_name,
        tool_args=row.tool_args,
        tool_schema_hash=row.tool_schema_hash,
        entities=tuple(row.entities or ()),
        meta={k: v for k, v in (row.meta or {}).items() if k != "principal"},
        principal=(row.meta or {}).get("principal"),
    )


def security_event_from_row(row: Any) -> SecurityEvent:
    row = row._mapping if hasattr(row, "_mapping") else row
    return SecurityEvent(
        id=row["id"],
        ts=datetime.fromtimestamp(row["ts"], timezone.utc),
        tenant=row["tenant"],
        kind=row["kind"],
        source=row["source"],
        event_id=row["event_id"],
        score=row["score"],
        action=row["action"],
        reasons=tuple(row["reasons"] or ()),
        payload=row["payload"] or {},
    )


def review_item_from_row(row: Any) -> ReviewItem:
    row = row._mapping if hasattr(row, "_mapping") else row
    return ReviewItem(
        id=row["id"],
        tenant=row["tenant"],
        kind=row["kind"],
        delta_id=row["delta_id"],
        event_id=row["event_id"],
        reason=row["reason"],
        payload=row["payload"] or {},
        created=_utc(row["created"]),
        resolved_at=_utc(row["resolved_at"]),
        resolution=row["resolution"],
    )


def _utc(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, timezone.utc)
