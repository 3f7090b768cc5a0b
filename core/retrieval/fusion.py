"""Fusing ranked lists from several routers: normalised scores (default) or reciprocal rank.

Both return (id, fused score, {router: rank}) best first; ties are broken by id, so the order
never depends on the order the routers are given in. A repeated id within one router's list
counts once, at its best rank. A router with weight 0 is ignored.
"""

from __future__ import annotations

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
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for router, items in ranked.items():
        weight = 1.0 if weights is None else weights.get(router, 1.0)
        if weight <= 0 or not items:
            continue
        values = [score for _, score in items]
        high, low = max(values), min(values)
        if floor_at_zero(len(items)):
            low = min(low, 0.0)
        seen: set[str] = set()
        for item_id, score in items:
            if item_id in seen:
                continue
            seen.add(item_id)
            rank = len(seen)
            scores[item_id] = scores.get(item_id, 0.0) + weight * contribution(rank, score, low, high)
            ranks.setdefault(item_id, {})[router] = rank
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
