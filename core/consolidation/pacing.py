"""Pacing: a consolidation cycle steps aside while user queries run.

A cycle runs beside the hot path, on the caller's thread or the trigger thread of the same
process, so it shares the interpreter lock and the cores with the queries a user is waiting for.
It is therefore cut into small steps — one probe query of the gate, a slice of planning, one
short apply transaction, one bounded drain of the vector outbox — and before each step it waits
while a user query of this process is in flight (:class:`QueryActivity`, which the facade marks
around every ``query``). The wait is bounded twice, so a cycle under a reader that never pauses
still finishes: a step waits at most ``ConsolidationPolicy.yield_wait_seconds``, and a cycle
waits at most ``yield_total_seconds`` in all; past either it runs its step anyway
(``ConsolidationReport.yield_overruns``).

Only this process's queries are seen: a cycle run in another process (``deltacore
consolidate``) shares no interpreter lock with them, only the machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


class QueryActivity:
    """How many user queries of this process are in flight; the facade wraps each in
    :meth:`query`, a cycle waits in :meth:`wait_until_idle`."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._in_flight = 0
        self._waiting = 0
        self.started = 0
        """User queries begun since the store opened."""

    @contextmanager
    def query(self) -> Iterator[None]:
        with self._changed:
            self._in_flight += 1
            self.started += 1
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                self._changed.notify_all()

    @property
    def in_flight(self) -> int:
        with self._changed:
            return self._in_flight

    @property
    def waiting(self) -> int:
        """Cycle steps waiting for user queries right now."""
        with self._changed:
            return self._waiting

    def wait_until_idle(self, timeout: float) -> bool:
        """Wait until no user query is in flight, at most ``timeout`` seconds; returns whether
        none is (``False``: the time ran out with queries still running)."""
        with self._changed:
            self._waiting += 1
            try:
                return self._changed.wait_for(lambda: self._in_flight == 0, timeout=max(timeout, 0.0))
            finally:
                self._waiting -= 1


@dataclass
class PaceCounters:
    """What pacing did in one cycle (copied into its report)."""

    steps: int = 0
    """Steps the cycle ran."""
    yields: int = 0
    """Steps that found a user query in flight and waited for it."""
    waited: float = 0.0
    """Seconds spent waiting, in all."""
    overruns: int = 0
    """Steps run while a user query was still in flight, because a bound ran out."""


class Pacer:
    """The yield point a cycle calls before each step.

    >>> activity = QueryActivity()
    >>> pacer = Pacer(activity, wait_seconds=0.5, total_seconds=10.0)
    >>> pacer.step()  # nothing in flight: the step runs at once
    >>> (pacer.counters.steps, pacer.counters.yields)
    (1, 0)
    """

    def __init__(self, activity: QueryActivity | None, *, wait_seconds: float, total_seconds: float,
                 enabled: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.activity = activity
        self.wait_seconds = wait_seconds
        self.total_seconds = total_seconds
        self.enabled = enabled and activity is not None
        self.clock = clock
        self.counters = PaceCounters()

    def step(self) -> None:
        """Return when the next step may run: no user query in flight, or a bound ran out."""
        self.counters.steps += 1
        if not self.enabled or self.activity is None or self.activity.in_flight == 0:
            return
        self.counters.yields += 1
        allowed = min(self.wait_seconds, self.total_seconds - self.counters.waited)
        if allowed <= 0:
            self.counters.overruns += 1
            return
        started = self.clock()
        idle = self.activity.wait_until_idle(allowed)
        self.counters.waited += self.clock() - started
        if not idle:
            self.counters.overruns += 1

    def report(self) -> dict[str, float | int]:
        """The report's pacing fields."""
        return {"yields": self.counters.yields, "yield_seconds": round(self.counters.waited, 3),
                "yield_overruns": self.counters.overruns}
