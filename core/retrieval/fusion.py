"""Fusing ranked lists from several routers: reciprocal rank, or normalised scores (default)."""

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


def normalized_score_fusion(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    depth: int | None = None,
) -> list[tuple[str, float, dict[str, int]]]:
    """Weighted sum of each router's min-max normalised scores (CombSUM).

    Unlike RRF it keeps *how much* better a router found one memory than the next: a strong
    lexical match is not levelled with a weak semantic neighbour of the same rank. The floor of
    the normalisation is the router's weakest result when it returned a full list of ``depth``
    items; a shorter list means nothing else matched at all, so its floor is 0 (no match) and
    its last item is not pushed down to nothing. A router whose scores are all equal gives each
    of its items the full weight. Same return shape and tie-breaking as
    :func:`reciprocal_rank_fusion`.
    """
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for router, items in ranked.items():
        weight = 1.0 if weights is None else weights.get(router, 1.0)
        if weight <= 0 or not items:
            continue
        values = [score for _, score in items]
        high, low = max(values), min(values)
        if depth is not None and len(items) < depth:
            low = min(low, 0.0)
        seen: set[str] = set()
        rank = 0
        for item_id, score in items:
            if item_id in seen:
                continue
            seen.add(item_id)
            rank += 1
            normalised = (score - low) / (high - low) if high > low else 1.0
            scores[item_id] = scores.get(item_id, 0.0) + weight * normalised
            ranks.setdefault(item_id, {})[router] = rank
    ordered = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return [(item_id, score, ranks[item_id]) for item_id, score in ordered]
