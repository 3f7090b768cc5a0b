"""The optional re-ranking stage: a caller-supplied model reorders the best candidates.

Nothing here needs a network model: a re-ranker is any object with ``rerank(query, packets)``
returning the packets in a new order (a local cross-encoder, a rule, an LLM behind the caller's
own client). It sees only the top ``depth`` candidates, after fusion and filtering and before the
token budget is applied, and may drop packets but not invent them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from deltacore.model import MemoryPacket


class Reranker(Protocol):
    def rerank(self, query: str, packets: Sequence[MemoryPacket]) -> Sequence[MemoryPacket]: ...


def apply_reranker(reranker: Reranker, query: str, packets: list[MemoryPacket], depth: int) -> list[MemoryPacket]:
    """Rerank the first ``depth`` packets; the rest keep their place after them."""
    head, tail = packets[:depth], packets[depth:]
    known = {p.id for p in head}
    reordered = [p for p in reranker.rerank(query, head) if p.id in known]
    return _unique(reordered) + tail


def _unique(packets: list[MemoryPacket]) -> list[MemoryPacket]:
    seen: set[str] = set()
    return [p for p in packets if not (p.id in seen or seen.add(p.id))]
