"""Fusing ranked lists from several routers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def reciprocal_rank_fusion(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
) -> list[tuple[str, float, dict[str, int]]]:
    """Weighted RRF: ``score(d) = Σ_r w_r / (k + rank_r(d))``.

    Returns (id, fused score, {router: rank}) best first; ties are broken by id so the order
    does not depend on the order the routers are given in.

    >>> [d for d, _, _ in reciprocal_rank_fusion({"a": [("x", 1), ("y", .5)], "b": [("y", 3)]})]
    ['y', 'x']
    """
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for router, items in ranked.items():
        weight = 1.0 if weights is None else weights.get(router, 1.0)
        if weight <= 0:
            continue
        seen: set[str] = set()
        rank = 0
        for item_id, _score in items:
            if item_id in seen:
                continue
            seen.add(item_id)
            rank += 1
            scores[item_id] = scores.get(item_id, 0.0) + weight / (k + rank)
            ranks.setdefault(item_id, {})[router] = rank
    ordered = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return [(item_id, score, ranks[item_id]) for item_id, score in ordered]
