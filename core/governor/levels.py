"""Degradation levels 0–5 and the controller that moves between them (pure policy).

What each level does to a tenant's traffic (``docs/operating.md`` has the table):

====  ==========================================================================================
0     full operation: every router the query chooses, the configured candidate pool
1     the stage-two routers (causal, utility, belief: a second round of reads per query) are
      dropped; stage one (semantic, lexical, entity, temporal, recency) is untouched
2     also entity and temporal (they post-filter a 4× wider neighbour pool) are dropped, and the
      candidate pool shrinks to ``GovernorPolicy.shrunk_pool_fraction`` of itself (≥ top_k)
3     HOT + lexical only: the semantic router answers only from this process's HOT tier (a
      tenant not cached there gets no vector search at all), lexical full-text search, and
      recency for queries without text
4     reads as level 3; writes commit to SQL but their vectors stay queued in the outbox (no
      vector-index write, no outbox drain before a query) until the level falls below 4
5     refuse: reads as level 3, but only ``GovernorPolicy.refuse_concurrency`` queries of the
      tenant run at once in this process; every other query, and every write, raises
      ``OverloadedError`` (it names the level, the p95, the target and what to do). The level
      is left (to 4) once nothing was refused for a dwell time: the excess demand has gone
====  ==========================================================================================

The controller judges only the queries measured *at the current level* (at least
``min_samples`` of them, after ``dwell_seconds``): p95 above ``target × raise_above`` → one level
up; p95 below ``target × lower_below`` → one level down; in between it stays (hysteresis). Too
few queries waits for more; no query at all for a dwell time means the load has gone: one level
down per dwell time without a query.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from deltacore.governor_policy import GovernorPolicy
from deltacore.model import RouterName, SearchBudget

FULL, NO_EXPANDERS, NARROW, HOT_LEXICAL, QUEUE_WRITES, REFUSE = range(6)
LEVEL_NAMES = {
    FULL: "full operation",
    NO_EXPANDERS: "costliest routers dropped",
    NARROW: "candidate pools shrunk",
    HOT_LEXICAL: "HOT + lexical only",
    QUEUE_WRITES: "writes queued to the outbox",
    REFUSE: "refusing writes and excess queries",
}
_STAGE_ONE = (
    RouterName.SEMANTIC,
    RouterName.LEXICAL,
    RouterName.ENTITY,
    RouterName.TEMPORAL,
    RouterName.RECENCY,
)
_NARROW = (RouterName.SEMANTIC, RouterName.LEXICAL, RouterName.RECENCY)


def read_plan(
    level: int, budget: SearchBudget, top_k: int, policy: GovernorPolicy
) -> SearchBudget:
    """The search budget a query gets at ``level`` (the orchestrator carries it out)."""
    if level <= FULL:
        return budget
    if level == NO_EXPANDERS:
        return budget.model_copy(update={"routers": _STAGE_ONE, "level": level})
    pool = max(top_k, math.ceil(budget.candidate_pool * policy.shrunk_pool_fraction))
    return budget.model_copy(
        update={
            "routers": _NARROW,
            "candidate_pool": pool,
            "hot_only": level >= HOT_LEXICAL,
            "level": level,
        }
    )


def writes_queued(level: int) -> bool:
    """Vector writes wait in the outbox at this level."""
    return level >= QUEUE_WRITES


def refuses(level: int) -> bool:
    return level >= REFUSE


@dataclass(frozen=True)
class LevelChange:
    """One move of a tenant's level (logged as a ``DEGRADATION_LEVEL`` system event)."""

    tenant: str
    from_level: int
    to_level: int
    reason: str
    p95_ms: float | None
    target_ms: float | None

    def payload(self) -> dict[str, Any]:
        return {
            "from": self.from_level,
            "to": self.to_level,
            "name": LEVEL_NAMES[self.to_level],
            "reason": self.reason,
            "p95_ms": self.p95_ms,
            "target_ms": self.target_ms,
        }


class LevelController:
    """One tenant's level in this process, moved by the latencies measured at that level."""

    def __init__(self, tenant: str, policy: GovernorPolicy) -> None:
        self.tenant = tenant
        self.policy = policy
        self.level = FULL
        self.changed_at = time.monotonic()
        self._samples: list[float] = []  # latencies (ms) measured at the current level
        self._last_sample = self.changed_at
        self._last_refusal = self.changed_at
        self._in_flight = 0
        self._lock = threading.Lock()

    def observe(self, latency_ms: float, now: float | None = None) -> None:
        with self._lock:
            self._last_sample = time.monotonic() if now is None else now
            self._samples.append(latency_ms)
            if len(self._samples) > 4 * self.policy.min_samples + 1000:
                del self._samples[: len(self._samples) // 2]  # keep the newest

    def evaluate(
        self, target_ms: float | None, pinned: int | None, now: float | None = None
    ) -> list[LevelChange]:
        """The level changes due now (usually none), already applied."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if pinned is not None:
                return (
                    [self._move(pinned, "pinned by the budget", None, target_ms, now)]
                    if pinned != self.level
                    else []
                )
            if target_ms is None:
                return (
                    [self._move(FULL, "no p95 target", None, None, now)]
                    if self.level != FULL
                    else []
                )
            elapsed = now - self.changed_at
            if elapsed < self.policy.dwell_seconds:
                return []
            if self.level == REFUSE:
                # The admitted queries are fast by construction; what says the overload is over
                # is that nothing had to be refused for a dwell time.
                if now - self._last_refusal < self.policy.dwell_seconds:
                    return []
                return [
                    self._move(
                        QUEUE_WRITES,
                        "nothing refused for the dwell time",
                        None,
                        target_ms,
                        now,
                    )
                ]
            samples = self._samples
            if len(samples) < self.policy.min_samples:
                # Too few queries to judge: wait for more, unless none came for a dwell time —
                # then the load has gone: one level down per dwell time without a query.
                quiet = now - max(self._last_sample, self.changed_at)
                steps = min(self.level, int(quiet // self.policy.dwell_seconds))
                changes = []
                for _ in range(steps):
                    changes.append(
                        self._move(
                            self.level - 1,
                            "load ended (no queries for the dwell time)",
                            None,
                            target_ms,
                            now,
                        )
                    )
                return changes
            p95 = float(np.percentile(np.asarray(samples, dtype=float), 95))
            if (
                p95 > target_ms * self.policy.raise_above
                and self.level < self.policy.max_level
            ):
                return [
                    self._move(
                        self.level + 1, "p95 above the target", p95, target_ms, now
                    )
                ]
            if p95 < target_ms * self.policy.lower_below and self.level > FULL:
                return [
                    self._move(
                        self.level - 1,
                        "p95 well within the target",
                        p95,
                        target_ms,
                        now,
                    )
                ]
            # The level holds; the next judgement uses queries measured from now on (the load
            # may have changed since these).
            self._samples = []
            return []

    def _move(
        self,
        level: int,
        reason: str,
        p95: float | None,
        target: float | None,
        now: float,
    ) -> LevelChange:
        change = LevelChange(
            self.tenant,
            self.level,
            level,
            reason,
            None if p95 is None else round(p95, 3),
            target,
        )
        self.level = level
        self.changed_at = now
        self._samples = []
        return change

    def admit(self, now: float | None = None) -> bool:
        """Whether a query may run now (always, below level 5); pair with :meth:`release`."""
        with self._lock:
            if self.level < REFUSE or self._in_flight < self.policy.refuse_concurrency:
                self._in_flight += 1
                return True
            self._last_refusal = time.monotonic() if now is None else now
            return False

    def release(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def refused(self, now: float | None = None) -> None:
        """A write was refused at level 5: demand is still there."""
        with self._lock:
            self._last_refusal = time.monotonic() if now is None else now

    def seconds_to_next_judgement(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        return max(0.0, self.policy.dwell_seconds - (now - self.changed_at))
