"""When a sleep cycle is due: the seed's ``ConsolidationTrigger`` (section 12).

A cycle is due when any of these fires for a tenant, counted since its last finished cycle:

- ``events``: at least ``trigger_events`` new events;
- ``minutes``: ``trigger_minutes`` passed and something was written since;
- ``utility_variance``: the signed utility steps of the outcomes learned since (the learning
  history, ``dc_utility_updates.step``) vary by more than ``trigger_utility_variance``, over at
  least ``trigger_utility_min_updates`` of them: outcomes that pull the same memories up and
  down mean the store holds competing versions of what works, which merging and pruning settle;
- ``miss_rate``: at least ``trigger_miss_min_queries`` queries were asked and more than
  ``trigger_miss_rate`` of them returned nothing (this process's query meter);
- ``shift``: the belief layer logged a ``DISTRIBUTION_SHIFT`` (E07) for the tenant; the
  divergence itself is :mod:`deltacore.belief.shift`'s, only its logged alarm is read here.

Pure policy: the facade gathers a :class:`TriggerState` from storage and its meter.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from deltacore.config import ConsolidationPolicy


class Trigger(StrEnum):
    EVENTS = "events"
    MINUTES = "minutes"
    UTILITY_VARIANCE = "utility_variance"
    MISS_RATE = "miss_rate"
    SHIFT = "shift"


@dataclass(frozen=True)
class TriggerState:
    """What happened in a tenant since its last finished cycle."""

    events_since_last: int
    minutes_since_last: float | None
    """None before the first cycle: the minutes trigger waits for a cycle to count from."""
    utility_steps: Sequence[float] = ()
    queries_since_last: int = 0
    empty_queries_since_last: int = 0
    shifts_since_last: int = 0
    """DISTRIBUTION_SHIFT alarms logged for the tenant since the last cycle started."""


def utility_variance(state: TriggerState, policy: ConsolidationPolicy) -> float | None:
    """Population variance of the utility steps, or None with too few of them to judge."""
    if len(state.utility_steps) < max(policy.trigger_utility_min_updates, 2):
        return None
    return statistics.pvariance(state.utility_steps)


def miss_rate(state: TriggerState, policy: ConsolidationPolicy) -> float | None:
    """Share of queries that returned nothing, or None with too few queries to judge."""
    if state.queries_since_last < max(policy.trigger_miss_min_queries, 1):
        return None
    return state.empty_queries_since_last / state.queries_since_last


def fired(state: TriggerState, policy: ConsolidationPolicy) -> tuple[Trigger, ...]:
    """The triggers that fire on ``state``, in the order of :class:`Trigger`."""
    found = []
    if state.events_since_last >= policy.trigger_events:
        found.append(Trigger.EVENTS)
    if state.events_since_last > 0 and state.minutes_since_last is not None and state.minutes_since_last >= policy.trigger_minutes:
        found.append(Trigger.MINUTES)
    variance = utility_variance(state, policy)
    if policy.trigger_utility_variance is not None and variance is not None and variance > policy.trigger_utility_variance:
        found.append(Trigger.UTILITY_VARIANCE)
    rate = miss_rate(state, policy)
    if policy.trigger_miss_rate is not None and rate is not None and rate > policy.trigger_miss_rate:
        found.append(Trigger.MISS_RATE)
    if policy.trigger_on_shift and state.shifts_since_last > 0:
        found.append(Trigger.SHIFT)
    return tuple(found)
