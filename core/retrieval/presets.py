"""Which routers run for a query, with which fusion weights.

Named presets for callers who know what they want; otherwise the query picks: semantic and
lexical always, the entity router when it names something the store knows, the temporal router
for dates and "when" questions, recency for "latest"/"now", utility for decisions.
"""

from __future__ import annotations

from deltacore.errors import InvalidQueryError
from deltacore.model import QueryCriteria
from deltacore.retrieval.query_analysis import QueryAnalysis

STAGE_ONE = ("semantic", "lexical", "entity", "temporal", "recency")
STAGE_TWO = ("causal", "utility", "belief")
ROUTER_NAMES = STAGE_ONE + STAGE_TWO

PRESETS: dict[str, dict[str, float]] = {
    "HYBRID": {"semantic": 1.0, "lexical": 1.0},
    "TEMPORAL": {"semantic": 1.0, "lexical": 1.0, "temporal": 1.5, "recency": 0.5},
    "CAUSAL_FIRST": {"semantic": 1.0, "lexical": 1.0, "causal": 1.5},
    "ENTITY": {"semantic": 1.0, "lexical": 1.0, "entity": 1.5},
    "UTILITY": {"semantic": 1.0, "lexical": 1.0, "utility": 1.0},
    "RECENT": {"recency": 1.0},
}
"""Preset name -> router weights. Pass a name in ``QueryCriteria.routers``."""

# Weights of the automatic choice. A small general-purpose embedder is a noisier signal than an
# exact term match, and causal neighbours are a guess about what else the answer needs, so both
# weigh less than lexical, entity and temporal matches (measured on LoCoMo: docs/benchmarks.md).
AUTO_WEIGHTS = {
    "semantic": 0.7,
    "lexical": 1.0,
    "entity": 1.0,
    "temporal": 1.0,
    "recency": 0.5,
    "causal": 0.7,
    "utility": 0.5,
    "belief": 0.3,
}


def choose_routers(criteria: QueryCriteria, analysis: QueryAnalysis) -> dict[str, float]:
    """Router -> fusion weight for this query."""
    if criteria.routers:
        weights: dict[str, float] = {}
        for name in criteria.routers:
            if name in PRESETS:
                weights.update(PRESETS[name])
            elif name in ROUTER_NAMES:
                weights[name] = AUTO_WEIGHTS[name]
            else:
                raise InvalidQueryError(
                    "routers", f"unknown router or preset {name!r}; routers: {list(ROUTER_NAMES)}, presets: {list(PRESETS)}"
                )
        if not any(name in STAGE_ONE for name in weights):
            raise InvalidQueryError(
                "routers",
                f"{sorted(weights)} only expand or re-rank what a stage-one router finds; add one of "
                f"{list(STAGE_ONE)} or use a preset (CAUSAL_FIRST, UTILITY)",
            )
        return weights
    if not criteria.text:
        return {"recency": 1.0}
    weights = {name: AUTO_WEIGHTS[name] for name in ("semantic", "lexical", "causal", "belief")}
    if analysis.entities:
        weights["entity"] = AUTO_WEIGHTS["entity"]
    if analysis.time_range is not None or analysis.asks_when:
        weights["temporal"] = AUTO_WEIGHTS["temporal"]
    if analysis.wants_recent:
        weights["recency"] = AUTO_WEIGHTS["recency"]
    if criteria.action is not None or criteria.outcome is not None:
        weights["utility"] = AUTO_WEIGHTS["utility"]
    return weights
