"""Fusing ranked lists from several routers: normalised scores (default) or reciprocal rank.

Both return (id, fused score, {router: rank}) best first; ties are broken by id, so the order
never depends on the order the routers are given in. A repeated id within one router's list
counts once, at its best rank. A router with weight 0 is ignored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

Fused = list[tuple[str, float, dict[str, int]]]
# (rank, score, lowest score, highest score) -> this router's contribution before its weight
_Contribution = Callable[[int, float, float, float], float]


def _fuse(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None,
    contribution: _Contribution,
    floor_at_zero: Callable[[int], bool] = lambda length: False,
) -> Fused:
    parts: dict[str, list[float]] = {}
    ranks: dict[str, dict[str, int]] = {}
    for router, items in ranked.items():
        weight = 1.0 if weights is None else weights.get(router, 1.0)
        if weight <= 0 or not items:
            continue
        first: dict[str, float] = {}  # a repeated id counts once, at its first (best) rank
        for item_id, score in items:
            first.setdefault(item_id, score)
        high, low = max(first.values()), min(first.values())
        if floor_at_zero(len(items)):  # the router's own list length: did it stop at its limit?
            low = min(low, 0.0)
        for rank, (item_id, score) in enumerate(first.items(), start=1):
            parts.setdefault(item_id, []).append(weight * contribution(rank, score, low, high))
            ranks.setdefault(item_id, {})[router] = rank
    # fsum is exactly rounded, so an id's total does not depend on the order of the routers.
    scores = {item_id: math.fsum(values) for item_id, values in parts.items()}
    ordered = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return [(item_id, score, ranks[item_id]) for item_id, score in ordered]


def reciprocal_rank_fusion(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
) -> Fused:
    """Weighted RRF: ``score(d) = Σ_r w_r / (k + rank_r(d))``.

    >>> [d for d, _, _ in reciprocal_rank_fusion({"a": [("x", 1), ("y", .5)], "b": [("y", 3)]})]
    ['y', 'x']
    """
    return _fuse(ranked, weights, lambda rank, score, low, high: 1.0 / (k + rank))


def normalized_score_fusion(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    depth: int | None = None,
) -> Fused:
    """Weighted sum of each router's min-max normalised scores (CombSUM).

    Unlike RRF it keeps *how much* better a router found one memory than the next: a strong
    lexical match is not levelled with a weak semantic neighbour of the same rank. The floor of
    the normalisation is the router's weakest result when it returned a full list of ``depth``
    items; a shorter list means nothing else matched at all, so its floor is 0 (no match) and
    its last item is not pushed down to nothing. A router whose scores are all equal gives each
    of its items the full weight.

    >>> [d for d, _, _ in normalized_score_fusion({"a": [("x", 9.0), ("y", 8.0)], "b": [("y", .2)]}, depth=50)]
    ['y', 'x']
    """

    def normalised(rank: int, score: float, low: float, high: float) -> float:
        return (score - low) / (high - low) if high > low else 1.0

    return _fuse(ranked, weights, normalised, lambda length: depth is not None and length < depth)
