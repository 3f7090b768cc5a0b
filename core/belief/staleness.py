"""Belief states (E05): per slot, a distribution over values plus UNKNOWN that goes stale.

Pure functions over fact rows. The facts valid at time ``t`` share the slot's mass by belief
weight; an observation-class slot (a service's status, a person's whereabouts) keeps only
``0.5 ** (age / half_life)`` of it, the rest bleeds to :data:`UNKNOWN`. Below
``BeliefPolicy.stale_below`` the belief is STALE: re-observe before acting.

The half-life is the class's configured one, or (``BeliefPolicy.half_life_from_cadence``) the
slot's own mean interval between observations when that is longer: staleness is silence
measured against how often the slot is heard of. A status that a monitor reports every minute is
stale after an hour without news; one reported about once a month is not stale a day after its
last report, but is after a few silent months.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from deltacore.belief.policy import HOUR, BeliefPolicy
from deltacore.belief.records import UNKNOWN, FactStatus, SlotBelief

REOBSERVE_HINT = "re-observe before acting: last observed {age} ago"


def valid_at(fact: dict[str, Any], t: float) -> bool:
    """True in the world at ``t`` by what the store knows now (rejected values never were)."""
    if fact["status"] == FactStatus.REJECTED:
        return False
    return fact["valid_from"] <= t and (fact["valid_until"] is None or t < fact["valid_until"])


def retention(policy: BeliefPolicy, attribute_class: str, age_seconds: float, interval_seconds: float | None = None) -> float:
    """The share of an observation's confidence left after ``age_seconds`` without news."""
    half_life = policy.half_life_hours.get(attribute_class)
    if half_life is None or attribute_class == "stable":
        return 1.0
    seconds = half_life * HOUR
    if policy.half_life_from_cadence and interval_seconds is not None:
        seconds = max(seconds, interval_seconds)
    return 0.5 ** (max(age_seconds, 0.0) / seconds)


def observation_interval(facts: Sequence[dict[str, Any]], t: float) -> float | None:
    """Mean seconds between the slot's observations known by ``t`` (None below two of them).

    Every statement of the slot counts, whatever value it gave (a change is an observation
    too); rejected values never were observed."""
    seen = [f for f in facts if f["status"] != FactStatus.REJECTED and f["valid_from"] <= t]
    count = sum(int(f.get("observations") or 1) for f in seen)
    if count < 2:
        return None
    first = min(f["valid_from"] for f in seen)
    last = min(t, max(f["last_observed"] for f in seen))
    return (last - first) / (count - 1) if last > first else None


def slot_belief(policy: BeliefPolicy, facts: Sequence[dict[str, Any]], t: float, conflicts: Sequence[dict[str, Any]] = ()) -> SlotBelief | None:
    """The belief about one slot at ``t``; None when nothing was known about it then."""
    if not facts:
        return None
    attribute, klass = facts[0]["attribute"], facts[0]["attribute_class"]
    alive = [f for f in facts if valid_at(f, t)]
    if not alive:
        return SlotBelief(attribute=attribute, attribute_class=klass, distribution={UNKNOWN: 1.0}, value=None, fact_id=None,
                          confidence=0.0, last_observed=None, stale=False)
    total = sum(max(float(f["weight"]), 1e-6) for f in alive)
    # As of a past time, an observation made after it does not count: its fact's start does.
    last = max(f["last_observed"] if f["last_observed"] <= t else f["valid_from"] for f in alive)
    keep = retention(policy, klass, t - last, observation_interval(facts, t) if klass != "stable" else None)
    distribution: dict[str, float] = {}
    for f in alive:
        distribution[f["value"]] = distribution.get(f["value"], 0.0) + keep * max(float(f["weight"]), 1e-6) / total
    distribution[UNKNOWN] = max(0.0, 1.0 - sum(distribution.values()))
    best = max(alive, key=lambda f: (f["weight"], f["valid_from"]))
    confidence = distribution[best["value"]]
    stale = klass != "stable" and confidence < policy.stale_below
    pending = [c for c in conflicts if c["resolution"] == "pending" and {c["old_fact_id"], c["new_fact_id"]} & {f["id"] for f in alive}]
    return SlotBelief(
        attribute=attribute,
        attribute_class=klass,
        distribution={k: round(v, 6) for k, v in distribution.items()},
        value=best["value"],
        fact_id=best["id"],
        confidence=round(confidence, 6),
        last_observed=datetime.fromtimestamp(last, timezone.utc),
        stale=stale,
        hint=REOBSERVE_HINT.format(age=_age(t - last)) if stale else None,
        conflict_id=pending[0]["id"] if pending else None,
    )


def _age(seconds: float) -> str:
    if seconds < 2 * HOUR:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 48 * HOUR:
        return f"{seconds / HOUR:.0f} hours"
    return f"{seconds / (24 * HOUR):.0f} days"
