"""Fitting memories into a token budget."""

from __future__ import annotations

from collections.abc import Sequence

from deltacore.model import MemoryPacket


def pack(
    packets: Sequence[MemoryPacket], max_tokens: int | None, top_k: int, by_value_per_token: bool = True
) -> list[MemoryPacket]:
    """The packets to hand to the model, best first.

    Without a budget: the ``top_k`` best. With one: chosen greedily by relevance per token
    (a long memory must be worth its length), never exceeding ``max_tokens``, then returned in
    relevance order. ``by_value_per_token=False`` keeps the given order instead (a re-ranker's
    order is the judgement to respect; its scores are not the fusion scores).
    """
    best = list(packets[:top_k])
    if max_tokens is None or sum(p.token_cost for p in best) <= max_tokens:
        return best  # a budget that is not binding does not change the answer
    order = (
        sorted(range(len(packets)), key=lambda i: (-packets[i].score / max(packets[i].token_cost, 1), i))
        if by_value_per_token
        else range(len(packets))
    )
    chosen: list[int] = []
    used = 0
    for i in order:
        cost = packets[i].token_cost
        if used + cost <= max_tokens:
            chosen.append(i)
            used += cost
            if len(chosen) == top_k:
                break
    return [packets[i] for i in sorted(chosen)]
