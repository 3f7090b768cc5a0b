"""Distribution shift (E07): the context of recent writes no longer looks like the history.

Per tenant, the context features of written events (kinds, tools, entities, the attribute
classes of the facts they state) are counted in a tumbling window of ``window`` events and
compared with all earlier ones by KL divergence (additive smoothing over the union of
features). A divergence above ``threshold``, once the history holds ``min_history`` events, is a
shift: the caller logs ``DISTRIBUTION_SHIFT`` with the window's start, and from then on the read
path promotes the tenant's memories written since it and flags the beliefs last observed before
it DEGRADED (:mod:`deltacore.retrieval.belief_ranking`). The counting is pure and in-process: the history starts empty in
each process, so a restart only delays detection by ``min_history`` events.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ShiftAlarm:
    tenant: str
    divergence: float
    """KL(window ‖ history) in nats."""
    window: int
    history: int
    rising: tuple[str, ...]
    """Features that gained the most share in the window (what changed)."""
    since: float | None = None
    """Time (unix seconds) of the window's first event: memories from then on are "recent"."""

    def payload(self) -> dict[str, Any]:
        return {"code": "E07", "kl": round(self.divergence, 4), "window": self.window, "history": self.history,
                "rising": list(self.rising), "since": self.since, "action": "recent memories promoted, older beliefs DEGRADED"}


def event_features(row: dict[str, Any], attribute_classes: Iterable[str] = ()) -> list[str]:
    """Context features of one stored event."""
    features = [f"kind:{row.get('kind')}"]
    if row.get("tool_name"):
        features.append(f"tool:{row['tool_name']}")
    features.extend(f"entity:{str(e).casefold()}" for e in (row.get("entities") or ())[:8])
    features.extend(f"class:{c}" for c in attribute_classes)
    return features


def divergence(window: Counter[str], history: Counter[str], alpha: float = 0.5) -> float:
    vocabulary = set(window) | set(history)
    if not vocabulary:
        return 0.0
    n_w = sum(window.values()) + alpha * len(vocabulary)
    n_h = sum(history.values()) + alpha * len(vocabulary)
    total = 0.0
    for feature in vocabulary:
        p = (window[feature] + alpha) / n_w
        q = (history[feature] + alpha) / n_h
        total += p * math.log(p / q)
    return total


@dataclass
class _TenantCounts:
    history: Counter[str] = field(default_factory=Counter)
    history_events: int = 0
    window: Counter[str] = field(default_factory=Counter)
    window_events: int = 0
    window_start: float | None = None


class ShiftMonitor:
    def __init__(self, window: int = 100, threshold: float = 1.0, min_history: int = 300) -> None:
        self.window = window
        self.threshold = threshold
        self.min_history = min_history
        self._tenants: dict[str, _TenantCounts] = {}

    def observe(self, tenant: str, events: Sequence[Sequence[str]], times: Sequence[float] | None = None) -> list[ShiftAlarm]:
        """Count each event's features (``times``: each event's time); returns an alarm per
        window that diverged."""
        counts = self._tenants.setdefault(tenant, _TenantCounts())
        alarms = []
        for i, features in enumerate(events):
            if counts.window_events == 0:
                counts.window_start = times[i] if times is not None else None
            counts.window.update(features)
            counts.window_events += 1
            if counts.window_events < self.window:
                continue
            if counts.history_events >= self.min_history:
                kl = divergence(counts.window, counts.history)
                if kl > self.threshold:
                    alarms.append(
                        ShiftAlarm(tenant, kl, counts.window_events, counts.history_events, _rising(counts), counts.window_start)
                    )
            counts.history.update(counts.window)
            counts.history_events += counts.window_events
            counts.window, counts.window_events = Counter(), 0
        return alarms


def _rising(counts: _TenantCounts, top: int = 5) -> tuple[str, ...]:
    n_w = max(sum(counts.window.values()), 1)
    n_h = max(sum(counts.history.values()), 1)
    gain = {f: counts.window[f] / n_w - counts.history[f] / n_h for f in counts.window}
    return tuple(f for f, g in sorted(gain.items(), key=lambda kv: (-kv[1], kv[0]))[:top] if g > 0)
