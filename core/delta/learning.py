"""Utility learning from outcomes: ``utility ← utility + α · weight · (outcome − predicted)``.

Pure functions, no storage. A reward is in ``[−1, 1]`` (−1 failure, +1 success) and maps to an
outcome in ``[0, 1]`` — the scale utility lives on (``(reward + 1) / 2``, as the write path does
for outcome events). ``predicted`` is the delta's utility as it reads now (decayed), ``weight``
its credit weight in ``[0, 1]`` (:mod:`deltacore.delta.credit`; 1 for direct feedback on a
step), and ``α`` the learning rate. The signed change is the update's **step** (the gradient),
kept in the delta's history.

**Oscillation.** A delta is UNSTABLE when, among its last ``window`` (6) updates, those whose
``|step| ≥ min_step`` (0.02; smaller updates carry no signal) change sign at least ``flips``
(3) times between consecutive ones: the outcomes it leads to keep contradicting each other,
so a person should look at it.

>>> update_utility(0.5, reward=1.0, weight=1.0, alpha=0.3)
(0.65, 0.15)
>>> is_oscillating([0.1, -0.1, 0.1, -0.1])
True
"""

from __future__ import annotations

from collections.abc import Sequence

ALPHA = 0.3
OSCILLATION_WINDOW = 6
OSCILLATION_FLIPS = 3
MIN_STEP = 0.02


def outcome_of(reward: float) -> float:
    """A reward in [−1, 1] as an outcome in [0, 1] (out-of-range rewards are clipped)."""
    return (max(-1.0, min(1.0, float(reward))) + 1.0) / 2.0


def update_utility(predicted: float, *, reward: float, weight: float, alpha: float = ALPHA) -> tuple[float, float]:
    """``(new utility, step)`` after one outcome; the result stays in [0, 1]."""
    if not 0 <= alpha <= 1 or not 0 <= weight <= 1:
        raise ValueError("alpha and weight must be in [0, 1]")
    step = alpha * weight * (outcome_of(reward) - predicted)
    new = min(1.0, max(0.0, predicted + step))
    return round(new, 12), round(new - predicted, 12)


def sign_flips(steps: Sequence[float], *, min_step: float = MIN_STEP) -> int:
    """Sign changes between consecutive significant (``|step| ≥ min_step``) steps."""
    signs = [1 if step > 0 else -1 for step in steps if abs(step) >= min_step]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def is_oscillating(
    steps: Sequence[float],
    *,
    window: int = OSCILLATION_WINDOW,
    flips: int = OSCILLATION_FLIPS,
    min_step: float = MIN_STEP,
) -> bool:
    """True when the last ``window`` steps (oldest first) flip sign at least ``flips`` times."""
    return sign_flips(list(steps)[-window:], min_step=min_step) >= flips
