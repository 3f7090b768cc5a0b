"""``query(..., explain=True)``: which routers ran and why, and what each said about each packet.

Built after the query from what the orchestrator recorded (``Retriever.query(trace=…)``), so a
query without ``explain`` does no extra work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deltacore.model import MemoryPacket, QueryCriteria, RouterName
from deltacore.model.explain import PacketExplanation, QueryExplanation, RouterChoice, RouterScore
from deltacore.retrieval.presets import PRESETS, recency_reranks
from deltacore.retrieval.query_analysis import QueryAnalysis
from deltacore.retrieval.routers.registry import STAGE_ONE

_ALWAYS = "a text question always runs it"


def router_reasons(criteria: QueryCriteria, analysis: QueryAnalysis, weights: Mapping[RouterName, float]) -> dict[str, str]:
    """Why each router of ``weights`` (``choose_routers``' answer) runs, in words."""
    if criteria.routers:
        named = [str(name) for name in criteria.routers]
        reasons = {}
        for name in weights:
            presets = [p for p in named if p in PRESETS and name in PRESETS[p]]
            if str(name) in named or not presets:
                reasons[str(name)] = f"named by the caller (routers={named}); the question does not choose"
            else:
                reasons[str(name)] = f"in preset {presets[0]} (routers={named}); the question does not choose"
        return reasons
    if not criteria.text:
        return {str(RouterName.RECENCY): "no question text: the newest memories"}
    reasons: dict[str, str] = {}
    for name in weights:
        if name is RouterName.ENTITY:
            reasons[name] = f"the question names known entities: {', '.join(analysis.entities)}"
        elif name is RouterName.TEMPORAL:
            reasons[name] = "the question names a period" if analysis.time_range is not None else "the question asks when"
        elif name is RouterName.RECENCY:
            reasons[name] = "the question asks for the latest" + (
                ": the newest of what matches it first" if recency_reranks(weights, analysis) else ""
            )
        elif name is RouterName.UTILITY:
            reasons[name] = "the query filters by action or outcome: utility learned from outcomes ranks them"
        else:
            reasons[name] = _ALWAYS
    return {str(name): reason for name, reason in reasons.items()}


def explain_query(criteria: QueryCriteria, trace: Mapping[str, Any], packets: Sequence[MemoryPacket]) -> QueryExplanation:
    analysis: QueryAnalysis = trace["analysis"]
    weights: Mapping[RouterName, float] = trace["weights"]
    ranked: Mapping[str, Sequence[tuple[str, float]]] = trace["ranked"]
    reasons = router_reasons(criteria, analysis, weights)
    reranks_by_age = recency_reranks(weights, analysis)
    routers = [
        RouterChoice(
            name=str(name),
            weight=weight,
            stage="find" if name in STAGE_ONE and not (name is RouterName.RECENCY and reranks_by_age) else "expand",
            reason=reasons[str(name)],
            candidates=len(ranked.get(name, ())),
        )
        for name, weight in weights.items()
    ]
    positions = {
        str(name): {item_id: (rank, score) for rank, (item_id, score) in enumerate(items, start=1)}
        for name, items in ranked.items()
    }
    explanations = [
        PacketExplanation(
            id=packet.id,
            score=packet.score,
            routers={
                name: RouterScore(rank=found[packet.id][0], score=found[packet.id][1])
                for name, found in positions.items()
                if packet.id in found
            },
        )
        for packet in packets
    ]
    time_range = analysis.time_range
    return QueryExplanation(
        packets=list(packets),
        chosen_by="caller" if criteria.routers else "question",
        routers=routers,
        analysis={
            "terms": list(analysis.terms),
            "entities": list(analysis.entities),
            "time_range": [time_range.start.isoformat(), time_range.end.isoformat()] if time_range is not None else None,
            "asks_when": analysis.asks_when,
            "wants_recent": analysis.wants_recent,
        },
        explanations=explanations,
    )


__all__ = ["explain_query", "router_reasons"]
