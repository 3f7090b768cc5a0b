"""Utilities the erased subject influenced: re-derived without them, and optionally noised.

A retained memory learns from the episodes it took part in: an outcome recorded for the
subject's episode credits the steps of that episode and the memories retrieved during it
(``dc_utility_updates``). Once the subject is erased, that utility still encodes their outcome
("the agent's answer to Alice worked"). So every retained delta with an update recorded under
an erased event's episode has its utility **re-derived**: the subject's updates are removed and
the rest of its history is replayed with the learning rule
(:func:`deltacore.delta.learning.update_utility`, decay in between) from the utility it had
before the subject's first update. Later updates' ``predicted`` and ``step`` are rewritten
too, since they were computed from a utility that held the subject's contribution.

A history that does not end where the delta's utility is (rows pruned, a utility set outside
learning) cannot be replayed exactly: the subject's steps are subtracted instead (first order)
and the certificate says how many utilities were only approximated.

**DP noise** (the seed's section 11, ``dp_epsilon``): re-derivation removes the contribution
from the store, but anyone who saw a utility before the erasure (a backup, a ranking logged
elsewhere) learns the contribution from the difference. With ``dp_epsilon=ε`` the replay starts
from the pre-subject utility plus Gaussian noise ``N(0, σ²)``, ``σ = sensitivity / ε``, where
the sensitivity is the most the subject's updates could move that utility (``α`` per update,
at most 1): the difference then no longer tells their contribution. The trade-off: those
utilities are degraded (at ε = 0.1 and one update, σ = 3 — the noised utility is close to a
coin flip between 0 and 1 after clipping), so recall ranks those memories on a noisy utility;
the certificate records ε, the count and σ.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from deltacore.compliance.derived import DerivedChange
from deltacore.delta.learning import ALPHA, update_utility
from deltacore.delta.utility import decayed_utility
from deltacore.storage.learning_store import LEARNING_SOURCES
from deltacore.storage.utility_history import UtilityHistory

__all__ = ["UtilityRederivation", "dp_sigma"]

_EXACT = 1e-6


def dp_sigma(updates: int, epsilon: float, alpha: float = ALPHA) -> float:
    """The noise scale for a utility ``updates`` of the subject's updates moved:
    ``min(1, α · updates) / ε``."""
    return min(1.0, alpha * updates) / epsilon


class UtilityRederivation:
    """The :class:`~deltacore.compliance.derived.DerivedArtifactStore` of learned utilities."""

    artifact = "utilities"

    def __init__(self, decay_rate_per_hour: float, alpha: float = ALPHA, rng: random.Random | None = None) -> None:
        self._decay = decay_rate_per_hour
        self._alpha = alpha
        self._history = UtilityHistory()
        # System randomness by default: noise an attacker could reproduce would hide nothing.
        self._rng = rng or random.SystemRandom()
        self.last_sigma: float = 0.0

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        return self._history.influenced_updates(conn, event_ids)

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> DerivedChange:
        epsilon = options.get("dp_epsilon")
        by_delta: dict[str, list[int]] = {}
        for update_id, delta_id in self._history.deltas_of_updates(conn, [int(t) for t in touched]).items():
            by_delta.setdefault(delta_id, []).append(update_id)
        exact = approximated = noised = 0
        self.last_sigma = 0.0
        for delta_id, removed in sorted(by_delta.items()):
            sigma = dp_sigma(len(removed), epsilon, self._alpha) if epsilon else 0.0
            if self._replay(conn, delta_id, set(removed), sigma):
                exact += 1
            else:
                approximated += 1
            if sigma:
                noised += 1
                self.last_sigma = max(self.last_sigma, sigma)
        return DerivedChange(self.artifact, modified=exact + approximated, approximated=approximated, noised=noised)

    def _noise(self, sigma: float) -> float:
        return self._rng.gauss(0.0, sigma) if sigma else 0.0

    def _replay(self, conn: Any, delta_id: str, removed: set[int], sigma: float) -> bool:
        """Re-derive one delta's utility without ``removed``; False when only approximated."""
        rows = self._history.history(conn, delta_id)
        state = self._history.state(conn, delta_id)
        if state is None or not rows:
            return False
        credit = state["credit"] - sum(r["reward"] * r["credit"] for r in rows if r["id"] in removed)
        last = rows[-1]
        if abs(last["new_utility"] - state["utility"]) > _EXACT or abs(last["ts"] - state["utility_ts"]) > _EXACT:
            # The history does not explain the utility: subtract the subject's steps instead.
            utility = state["utility"] - sum(r["step"] for r in rows if r["id"] in removed) + self._noise(sigma)
            self._history.rewrite(conn, delta_id, removed=sorted(removed), rows={}, utility=_clip(utility),
                                  utility_ts=state["utility_ts"], credit=credit)  # fmt: skip
            return False
        first = next(i for i, r in enumerate(rows) if r["id"] in removed)
        if first == 0:
            utility, at = rows[0]["predicted"], rows[0]["ts"]
        else:
            utility, at = rows[first - 1]["new_utility"], rows[first - 1]["ts"]
        utility = _clip(utility + self._noise(sigma))
        rewritten: dict[int, dict[str, float]] = {}
        for row in rows[first:]:
            if row["id"] in removed:
                continue
            predicted = decayed_utility(utility, at, row["ts"], self._decay)
            if row["source"] in LEARNING_SOURCES:
                new, step = update_utility(predicted, reward=row["reward"], weight=row["credit"], alpha=self._alpha)
            else:  # a demotion (drift, taint) scaled the utility: scale the re-derived one alike
                ratio = row["new_utility"] / row["predicted"] if row["predicted"] > 0 else 0.0
                new = _clip(predicted * ratio)
                step = round(new - predicted, 12)
            rewritten[row["id"]] = {"predicted": predicted, "new_utility": new, "step": step}
            utility, at = new, row["ts"]
        self._history.rewrite(conn, delta_id, removed=sorted(removed), rows=rewritten, utility=utility, utility_ts=at, credit=credit)
        return True


def _clip(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))
