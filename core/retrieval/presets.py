"""Which routers run for a query, with which fusion weights.

Named presets for callers who know what they want; otherwise the query picks: semantic and
lexical always, the entity router when it names something the store knows, the temporal router
for dates and "when" questions, recency for "latest"/"now", utility for decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from deltacore.errors import InvalidQueryError
from deltacore.model import PresetName, QueryCriteria, RouterName
from deltacore.retrieval.query_analysis import QueryAnalysis
from deltacore.retrieval.routers.registry import ROUTERS, STAGE_ONE, STAGE_TWO  # noqa: F401 - STAGE_TWO re-exported

ROUTER_NAMES: tuple[RouterName, ...] = tuple(entry.name for entry in ROUTERS)
AUTO_WEIGHTS: Mapping[RouterName, float] = MappingProxyType({entry.name: entry.weight for entry in ROUTERS})
"""Router -> fusion weight when the query picks it (``routers/registry.py``)."""

_SEMANTIC, _LEXICAL, _ENTITY, _TEMPORAL = RouterName.SEMANTIC, RouterName.LEXICAL, RouterName.ENTITY, RouterName.TEMPORAL
_RECENCY, _CAUSAL, _UTILITY, _BELIEF = RouterName.RECENCY, RouterName.CAUSAL, RouterName.UTILITY, RouterName.BELIEF


@dataclass(frozen=True)
class Preset:
    """A named set of routers with their fusion weights, for callers who know what they want."""

    name: PresetName
    weights: Mapping[RouterName, float]


HYBRID = Preset(PresetName.HYBRID, MappingProxyType({_SEMANTIC: 1.0, _LEXICAL: 1.0}))
TEMPORAL = Preset(PresetName.TEMPORAL, MappingProxyType({_SEMANTIC: 1.0, _LEXICAL: 1.0, _TEMPORAL: 1.5, _RECENCY: 0.5}))
CAUSAL_FIRST = Preset(PresetName.CAUSAL_FIRST, MappingProxyType({_SEMANTIC: 1.0, _LEXICAL: 1.0, _CAUSAL: 1.5}))
ENTITY = Preset(PresetName.ENTITY, MappingProxyType({_SEMANTIC: 1.0, _LEXICAL: 1.0, _ENTITY: 1.5}))
UTILITY = Preset(PresetName.UTILITY, MappingProxyType({_SEMANTIC: 1.0, _LEXICAL: 1.0, _UTILITY: 1.0}))
RECENT = Preset(PresetName.RECENT, MappingProxyType({_RECENCY: 1.0}))

PRESETS: Mapping[str, Mapping[RouterName, float]] = MappingProxyType(
    {preset.name: preset.weights for preset in (HYBRID, TEMPORAL, CAUSAL_FIRST, ENTITY, UTILITY, RECENT)}
)
"""Preset name -> router weights. Pass a name in ``QueryCriteria.routers``."""


def _plain(names: object) -> list[str]:
    return [str(name) for name in names]  # type: ignore[attr-defined]


def allowed_routers(weights: dict[RouterName, float], allowed: tuple[str, ...], criteria: QueryCriteria) -> dict[RouterName, float]:
    """``weights`` without the routers a degradation plan leaves out. A query whose stage-one
    routers are all left out still gets one: lexical, or recency when it has no text."""
    kept = {name: weight for name, weight in weights.items() if name in allowed}
    if not any(name in STAGE_ONE for name in kept):
        fallback = _LEXICAL if criteria.text else _RECENCY
        kept[fallback] = AUTO_WEIGHTS[fallback]
    return kept


def recency_reranks(weights: Mapping[RouterName, float], analysis: QueryAnalysis) -> bool:
    """"Latest" in a question with content means the newest of what matches it: the recency
    router then re-ranks the content routers' candidates (stage two) instead of finding the
    store's newest memories whatever they are about. Alone, or with no content, it finds."""
    return (
        _RECENCY in weights
        and bool(analysis.terms)
        and any(name in STAGE_ONE and name != _RECENCY for name in weights)
    )


def choose_routers(criteria: QueryCriteria, analysis: QueryAnalysis) -> dict[RouterName, float]:
    """Router -> fusion weight for this query."""
    if criteria.routers:
        weights: dict[RouterName, float] = {}
        for name in criteria.routers:
            if name in PRESETS:
                weights.update(PRESETS[name])
            elif name in AUTO_WEIGHTS:
                weights[RouterName(name)] = AUTO_WEIGHTS[name]
            else:
                raise InvalidQueryError(
                    "routers", f"unknown router or preset {name!r}; routers: {_plain(ROUTER_NAMES)}, presets: {_plain(PRESETS)}"
                )
        if not any(name in STAGE_ONE for name in weights):
            raise InvalidQueryError(
                "routers",
                f"{sorted(_plain(weights))} only expand or re-rank what a stage-one router finds; add one of "
                f"{_plain(STAGE_ONE)} or use a preset (CAUSAL_FIRST, UTILITY)",
            )
        return weights
    if not criteria.text:
        return {_RECENCY: 1.0}
    weights = {name: AUTO_WEIGHTS[name] for name in (_SEMANTIC, _LEXICAL, _CAUSAL, _BELIEF)}
    if analysis.entities:
        weights[_ENTITY] = AUTO_WEIGHTS[_ENTITY]
    if analysis.time_range is not None or analysis.asks_when:
        weights[_TEMPORAL] = AUTO_WEIGHTS[_TEMPORAL]
    if analysis.wants_recent:
        weights[_RECENCY] = AUTO_WEIGHTS[_RECENCY]
    if criteria.action is not None or criteria.outcome is not None:
        weights[_UTILITY] = AUTO_WEIGHTS[_UTILITY]
    return weights
