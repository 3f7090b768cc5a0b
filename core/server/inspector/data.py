"""What the inspector shows, read through the ``DeltaCore`` facade only (never its tables).

Each function returns plain data for one panel of the page (``views.py`` draws it). Reads are
bounded — the latest episodes, a week of security log, a fortnight of writes — so the page
stays fast on a large store.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from deltacore.engine import DeltaCore

ACTIVITY_DAYS = 14
RECENT_EVENTS = 5000
"""At most this many events of the activity window are read (for the daily chart and the list
of episodes): on a store busier than that, the chart's oldest days are undercounted."""


def economy(memory: DeltaCore, tenant: str) -> dict[str, Any]:
    """``monitor()`` as a dict with ``available=True``; counts from ``stats()`` on an engine
    without it."""
    monitor = getattr(memory, "monitor", None)
    if monitor is not None:
        return {"available": True, **monitor(tenant).model_dump(mode="python")}
    stats = memory.stats(tenant)
    return {
        "available": False,
        "tenant": tenant,
        "backend": stats.backend,
        "memories": stats.events,
        "deltas": stats.deltas,
        "vectors_pending": stats.outbox_pending,
        "quarantined": len(memory.quarantined(tenant=tenant)),
        "open_reviews": len(memory.review_queue(tenant=tenant)),
        "open_conflicts": len(memory.conflicts(tenant=tenant)),
    }


def erasures(eco: dict[str, Any]) -> dict[str, Any]:
    """The forget requests ``monitor()`` read from the store (ids, modes, counts, times; the
    store keeps no subject text), with its erasure counters. Empty without ``monitor()``."""
    return {
        "available": bool(eco.get("available")),
        "records": list(eco.get("recent_erasures") or []),
        **{
            name: eco.get(name)
            for name in (
                "erasures_24h",
                "erasures_total",
                "erasures_nothing_found",
                "erasures_pending",
                "erasures_running",
                "last_erasure_at",
            )
        },
    }


def recent_events(memory: DeltaCore, tenant: str, now: datetime) -> list[Any]:
    since = now - timedelta(days=ACTIVITY_DAYS)
    return memory.events(
        time_range=(since, None),
        tenant=tenant,
        include_quarantined=True,
        limit=RECENT_EVENTS,
    )


def daily_activity(
    memory: DeltaCore, tenant: str, events: list[Any], now: datetime
) -> list[tuple[str, int, int]]:
    """(day, memories written, security events) for each of the last ``ACTIVITY_DAYS`` days."""
    since = now - timedelta(days=ACTIVITY_DAYS)
    written = Counter(f"{event.ts.astimezone(UTC):%Y-%m-%d}" for event in events)
    flagged = Counter(
        f"{entry.ts.astimezone(UTC):%Y-%m-%d}"
        for entry in memory.security_events(since, tenant=tenant)
    )
    days = [
        f"{now - timedelta(days=back):%Y-%m-%d}"
        for back in range(ACTIVITY_DAYS - 1, -1, -1)
    ]
    return [(day, written[day], flagged[day]) for day in days]


def episodes(events: list[Any], limit: int = 20) -> list[tuple[str, int, datetime]]:
    """(episode id, steps, last step time) of the latest episodes, newest first."""
    steps: Counter[str] = Counter()
    last: dict[str, datetime] = {}
    for event in events:
        if event.episode_id:
            steps[event.episode_id] += 1
            last[event.episode_id] = max(last.get(event.episode_id, event.ts), event.ts)
    newest = sorted(last, key=lambda episode: last[episode], reverse=True)[:limit]
    return [(episode, steps[episode], last[episode]) for episode in newest]


def episode_chain(memory: DeltaCore, episode_id: str, tenant: str) -> dict[str, Any]:
    """The steps of one episode in time order, each with its delta's causal parents, the credit
    its outcomes gave it and its utility now, plus the memories handed to the agent in it."""
    events = memory.events(
        episode_id=episode_id, tenant=tenant, include_quarantined=True, limit=500
    )
    steps = []
    for event in sorted(events, key=lambda e: e.ts):
        chain = memory.query_causal(event.id, depth=1, direction="ancestors")
        delta = chain.deltas.get(chain.root)
        if delta is None:
            continue
        steps.append(
            {
                "event_id": event.id,
                "delta_id": delta.id,
                "ts": event.ts,
                "kind": event.kind.value,
                "action": delta.action,
                "text": event.text or event.tool_name or "",
                "parents": list(delta.parent_ids),
                "credit": delta.credit,
                "utility": delta.utility,
                "flags": list(delta.conflict_flags),
            }
        )
    retrieved = memory.retrievals(episode_id, tenant=tenant)
    return {"episode_id": episode_id, "steps": steps, "retrieved": retrieved}


def quarantine(
    memory: DeltaCore, tenant: str, limit: int = 100
) -> list[dict[str, Any]]:
    """Quarantined events, each with the gateway's reasons from the security log."""
    held = memory.quarantined(tenant=tenant, limit=limit)
    if not held:
        return []
    since = min(event.ts for event in held) - timedelta(minutes=5)
    reasons: dict[str, tuple[str, ...]] = {}
    scores: dict[str, float | None] = {}
    for entry in memory.security_events(since, tenant=tenant):
        if entry.event_id and entry.reasons:
            reasons[entry.event_id] = entry.reasons
            scores[entry.event_id] = entry.score
    return [
        {
            "id": event.id,
            "ts": event.ts,
            "source": event.source,
            "text": event.text or event.tool_name or "",
            "reasons": reasons.get(event.id, ()),
            "score": scores.get(event.id),
        }
        for event in held
    ]


def security_log(
    memory: DeltaCore, tenant: str, now: datetime, limit: int = 50
) -> list[Any]:
    """The last week of the security log, newest first."""
    return list(
        reversed(memory.security_events(now - timedelta(days=7), tenant=tenant))
    )[:limit]


def beliefs(
    memory: DeltaCore,
    tenant: str,
    at: datetime | None,
    now: datetime,
    max_slots: int = 30,
) -> dict[str, Any]:
    """Facts valid at ``at`` (now when None), the history of each slot for the timeline, the
    timeline's span and the open conflicts."""
    current = memory.facts(tenant=tenant)
    slots: dict[tuple[str, str], str] = {}
    for fact in current:
        slots.setdefault(
            (fact.subject, fact.attribute), f"{fact.subject_name} · {fact.attribute}"
        )
    rows = []
    for (subject, attribute), label in list(slots.items())[:max_slots]:
        history = memory.history(subject, attribute, tenant=tenant)
        rows.append((label, [fact.model_dump() for fact in history]))
    starts = [fact["valid_from"] for _, history in rows for fact in history]
    start = min(starts) if starts else now - timedelta(days=30)
    return {
        "facts": memory.facts(at=at, tenant=tenant) if at is not None else current,
        "timeline": rows,
        "start": start - (now - start) * 0.02,
        "end": now,
        "conflicts": memory.conflicts(tenant=tenant),
    }
