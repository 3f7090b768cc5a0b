"""A plan that stopped working for several entities at once: the world changed for all of them.

Evidence is counted per entity (:func:`deltacore.learning.evidence.entity_posterior`): other
entities' episodes are a prior worth at most a pseudo-episode and a half, so that a constant
that differs per entity is learned per entity. The price is paid when a hidden rule changes for
everyone (a new precondition, a freeze): each entity's own successes from before the change
keep its plan above even odds until that entity has failed with it itself, and the agent walks
into the same failure once per entity.

A **shared break** tells the two apart. The pattern's newest episodes, since its last success
anywhere, are all failures, and at least :data:`BREAK_ENTITIES` of the entities that failed
there had succeeded with the pattern before. A per-entity constant does not look like that:
the entities the pattern never worked for fail, the ones it works for keep succeeding in
between. While a break lasts, the episodes before its first failure are left out
(:data:`BREAK_WEIGHT`) for every entity, the ones that have not run into it yet included: at any
weight above nothing, the dozens of successes a well-used plan had gathered still add up to
more than the handful of failures since. One success with the pattern ends the break (its tail
is then empty) and the old evidence counts in full again.

>>> episodes = [("a", 1.0, True, 1.0), ("b", 1.0, True, 2.0), ("a", 1.0, False, 3.0),
...             ("b", 1.0, False, 4.0)]
>>> shared_break(episodes)
3.0
>>> break_factors(episodes)
[0.0, 0.0, 1.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

from deltacore.learning.evidence import MIN_SIMILARITY

BREAK_ENTITIES = 2
"""Entities that succeeded with the pattern before and fail with it now: a change for all."""
BREAK_WEIGHT = 0.0
"""Weight of an episode from before a shared break (it describes a world that has gone)."""

Episode = tuple[str | None, float, bool, float]
"""``(entity, similarity to the task, success, ts)`` of one counted episode of a pattern."""


def shared_break(episodes: Sequence[Episode]) -> float | None:
    """The time of the first failure of the pattern's trailing run of failures when that run
    is a shared break (see the module), else None."""
    ordered = sorted((e for e in episodes if e[1] >= MIN_SIMILARITY), key=lambda e: e[3])
    tail: list[Episode] = []
    for episode in reversed(ordered):
        if episode[2]:
            break
        tail.append(episode)
    if not tail:
        return None
    start = min(e[3] for e in tail)
    worked = {e[0] for e in ordered if e[2] and e[3] < start and e[0] is not None}
    broken = {e[0] for e in tail if e[0] in worked}
    return start if len(broken) >= BREAK_ENTITIES else None


def break_factors(episodes: Sequence[Episode]) -> list[float]:
    """Per episode (in the given order): :data:`BREAK_WEIGHT` when it is older than a shared
    break of the pattern, else 1."""
    start = shared_break(episodes)
    if start is None:
        return [1.0] * len(episodes)
    return [BREAK_WEIGHT if e[3] < start else 1.0 for e in episodes]
