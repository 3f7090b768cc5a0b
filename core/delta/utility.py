"""Utility decay: a memory that is not reinforced loses utility over time
(``utility *= exp(-λ·age)``). Stored utility never changes on read; decay is computed."""

from __future__ import annotations

import math


def decayed_utility(utility: float, set_at: float, now: float, rate_per_hour: float) -> float:
    """``utility * exp(-rate · hours since set_at)``; never grows for a future ``set_at``."""
    age_hours = max(0.0, now - set_at) / 3600.0
    return utility * math.exp(-rate_per_hour * age_hours)
