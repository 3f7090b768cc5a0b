"""Belief states (E05): per slot, a distribution over values plus UNKNOWN that goes stale.

Pure functions over fact rows. The facts valid at time ``t`` share the slot's mass by belief
weight; an observation-class slot (a service's status, a person's whereabouts) keeps only
``0.5 ** (age / half_life)`` of it, the rest bleeds to :data:`UNKNOWN`. Below
``BeliefPolicy.stale_below`` the belief is STALE: re-observe before acting.
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


def retention(policy: BeliefPolicy, attribute_class: str, age_seconds: float) -> float:
    half_life = policy.half_life_hours.get(attribute_class)
    if half_life is None or attribute_class == "stable":
        return 1.0
    return 0.5 ** (max(age_seconds, 0.0) / (half_life * HOUR))


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
    keep = retention(policy, klass, t - last)
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
