"""Which memories go COLD, and how the COLD tier is searched.

A memory goes COLD when its utility, decayed to now, is under the policy's threshold **and**
nobody wrote or retrieved it for ``prune_after_days`` — never an anchor (a fixed 1% of raw
events), never a quarantined memory (a reviewer decides those), never a memory another one
was merged from. COLD is not deletion: the event, its deltas, links, entities, retrievals and
utility history go into a checksummed Parquet partition and come back whole on a rollback or
before a forget; facts it stated stay in the belief layer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
from deltacore.consolidation.nrem import is_anchor
from deltacore.delta.utility import decayed_utility
from deltacore.model import MemoryPacket, QueryCriteria
from deltacore.model.scope import Scope

_WORD = re.compile(r"\w+")
DAY = 86_400.0


def utility_now(delta_rows: Iterable[dict[str, Any]], now: float, rate_per_hour: float) -> float | None:
    """The highest decayed utility of a memory's deltas (None: it has none)."""
    values = [decayed_utility(float(d["utility"]), float(d["utility_ts"]), now, rate_per_hour) for d in delta_rows]
    return max(values) if values else None


def prune_candidates(
    rows: Sequence[dict[str, Any]],
    deltas_of: dict[str, list[dict[str, Any]]],
    last_retrieved: dict[str, float],
    *,
    threshold: float,
    after_days: float,
    anchor_fraction: float,
    rate_per_hour: float,
    now: float | None = None,
) -> tuple[list[str], int]:
    """(ids to archive, anchors kept) among live rows."""
    now = time.time() if now is None else now
    horizon = now - after_days * DAY
    chosen: list[str] = []
    anchors = 0
    for row in rows:
        if row.get("namespace") == "quarantine":
            continue
        last_touch = max(float(row["created_at"]), last_retrieved.get(row["id"], 0.0))
        if last_touch > horizon:
            continue
        utility = utility_now(deltas_of.get(row["id"], ()), now, rate_per_hour)
        if utility is None or utility >= threshold:
            continue
        if is_anchor(row["id"], anchor_fraction) and not (row.get("meta") or {}).get("derives_from"):
            anchors += 1
            continue
        chosen.append(row["id"])
    return chosen, anchors


def _matches_scope(row: dict[str, Any], criteria: QueryCriteria) -> bool:
    if criteria.agent_filter and row.get("agent_id") not in criteria.agent_filter:
        return False
    for name in ("user_id", "session_id"):
        wanted = getattr(criteria, name, None)
        if wanted is not None and row.get(name) != wanted:
            return False
    if criteria.kinds and row["kind"] not in {str(getattr(k, "value", k)) for k in criteria.kinds}:
        return False
    if criteria.time_range is not None:
        start, end = criteria.time_range
        if start is not None and row["ts"] < start.timestamp():
            return False
        if end is not None and row["ts"] > end.timestamp():
            return False
    if criteria.as_of is not None and row["ts"] > criteria.as_of.timestamp():
        return False
    return True


def cold_ranking(rows: Sequence[dict[str, Any]], matrix: np.ndarray, criteria: QueryCriteria,
                 query_vector: np.ndarray | None, limit: int) -> list[tuple[dict[str, Any], float]]:
    """COLD rows that pass the query's scope, by cosine to the query plus a word-overlap share
    (the lexical router's role for rows that are in no full-text index)."""
    words = set(_WORD.findall((criteria.text or "").lower()))
    scored: list[tuple[dict[str, Any], float]] = []
    for i, row in enumerate(rows):
        if not _matches_scope(row, criteria):
            continue
        score = 0.0
        if query_vector is not None and matrix.shape[1] == query_vector.shape[0]:
            score += float(matrix[i] @ query_vector)
        if words:
            score += len(words & set(_WORD.findall(row["text"].lower()))) / len(words)
        scored.append((row, score))
    scored.sort(key=lambda pair: -pair[1])
    return scored[:limit]


def cold_packet(row: dict[str, Any], score: float, rank: int, rate_per_hour: float) -> MemoryPacket:
    """A COLD row as a packet (``meta["tier"] == "cold"``)."""
    event = row["bundle"]["event"]
    utility = utility_now(row["bundle"].get("deltas") or (), time.time(), rate_per_hour)
    return MemoryPacket(
        id=event["id"],
        text=event["text"],
        kind=event["kind"],
        ts=datetime.fromtimestamp(float(event["ts"]), UTC),
        score=score,
        routers={"cold": rank},
        actor=event.get("actor"),
        role=event.get("role"),
        scope=Scope(tenant=event["tenant"], agent_id=event.get("agent_id"), user_id=event.get("user_id"),
                    session_id=event.get("session_id")),
        episode_id=event.get("episode_id"),
        tool_name=event.get("tool_name"),
        entities=tuple(event.get("entities") or ()),
        confidence=float(event["confidence"]),
        trust=float(event["trust"]),
        utility=utility if utility is not None else 0.0,
        namespace=event["namespace"],
        token_cost=int(event.get("token_count") or 0),
        meta={**(event.get("meta") or {}), "tier": "cold"},
    )


def fuse(live: list[MemoryPacket], cold: list[MemoryPacket], top_k: int, k: int = 60) -> list[MemoryPacket]:
    """Reciprocal-rank fusion of the live answer and the COLD answer (their scores are not on
    one scale); live memories win ties."""
    scored: dict[str, tuple[float, int, MemoryPacket]] = {}
    for order, packets in enumerate((live, cold)):
        for rank, packet in enumerate(packets, start=1):
            if packet.id in scored:
                continue
            scored[packet.id] = (1.0 / (k + rank), -order, packet)
    ranked = sorted(scored.values(), key=lambda t: (-t[0], -t[1]))
    return [p for _, _, p in ranked[:top_k]]
