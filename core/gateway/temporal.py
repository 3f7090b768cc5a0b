"""Temporal plausibility: does the timestamp make sense for this source's sequence?

The temporal-anchor attack back-dates (or post-dates) a record so that time-aware retrieval
and contradiction resolution prefer it. Absolute age is *not* a doubt — importing an old
conversation is normal — only a timestamp in the future, one far behind what the same source
already wrote, or a burst of writes from one source within seconds (event time).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from deltacore.trust_policy import TrustPolicy

DAY = 86400.0


def plausibility(
    ts: float, now: float, source_latest: float | None, source_times: Sequence[float], policy: TrustPolicy
) -> tuple[float, list[str]]:
    """Plausibility in [0, 1] (1 = nothing odd) and the reasons it is lower.

    ``source_latest`` is the newest timestamp the source had stored before this batch;
    ``source_times`` are the sorted timestamps of its stored and in-batch events (for bursts).
    """
    value, reasons = 1.0, []
    if ts > now + policy.future_skew_seconds:
        value = 0.0
        reasons.append("timestamp in the future")
    elif source_latest is not None and source_latest - ts > policy.backdate_tolerance_days * DAY:
        value = 0.3
        reasons.append("back-dated far behind the source's sequence")
    if source_times:
        half = policy.burst_window_seconds / 2
        count = bisect.bisect_right(source_times, ts + half) - bisect.bisect_left(source_times, ts - half)
        if count > policy.burst_events:
            value = min(value, 0.5)
            reasons.append("burst of writes from one source")
    return value, reasons
