"""Every router the read path knows, once: its stage, its weight when the query picks it, and
how to build it. Presets, the router choice and the orchestrator all read this table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

from deltacore.model import RouterName
from deltacore.retrieval.routers.base import Expander, Router
from deltacore.retrieval.routers.belief import BeliefRouter
from deltacore.retrieval.routers.causal import CausalRouter
from deltacore.retrieval.routers.entity import EntityRouter
from deltacore.retrieval.routers.lexical import LexicalRouter
from deltacore.retrieval.routers.recency import RecencyRouter
from deltacore.retrieval.routers.schema import SchemaRouter
from deltacore.retrieval.routers.semantic import SemanticRouter
from deltacore.retrieval.routers.temporal import TemporalRouter
from deltacore.retrieval.routers.utility import UtilityRouter


class Stage(IntEnum):
    FIND = 1
    """Finds candidates on its own (a :class:`Router`)."""
    EXPAND = 2
    """Works from stage one's best results: proposes their neighbours or re-ranks them (an
    :class:`Expander`)."""


@dataclass(frozen=True)
class RouterEntry:
    name: RouterName
    stage: Stage
    weight: float
    """Fusion weight when the query picks this router (presets set their own)."""
    build: Callable[[float], Router | Expander]
    """The router, given the configured utility decay rate per hour."""
    searches_vectors: bool = False
    """Searches by the query's vector (computed once before such routers run concurrently)."""


# A small general-purpose embedder is a noisier signal than an exact term match, and causal
# neighbours are a guess about what else the answer needs, so both weigh less than lexical,
# entity and temporal matches (measured on LoCoMo: docs/benchmarks.md).
ROUTERS: tuple[RouterEntry, ...] = (
    RouterEntry(RouterName.SEMANTIC, Stage.FIND, 0.7, lambda _decay: SemanticRouter(), searches_vectors=True),
    RouterEntry(RouterName.LEXICAL, Stage.FIND, 1.0, lambda _decay: LexicalRouter()),
    RouterEntry(RouterName.ENTITY, Stage.FIND, 1.0, lambda _decay: EntityRouter(), searches_vectors=True),
    RouterEntry(RouterName.TEMPORAL, Stage.FIND, 1.0, lambda _decay: TemporalRouter(), searches_vectors=True),
    RouterEntry(RouterName.RECENCY, Stage.FIND, 0.5, lambda _decay: RecencyRouter()),
    RouterEntry(RouterName.CAUSAL, Stage.EXPAND, 0.7, lambda _decay: CausalRouter()),
    RouterEntry(RouterName.UTILITY, Stage.EXPAND, 0.5, UtilityRouter),
    RouterEntry(RouterName.BELIEF, Stage.EXPAND, 0.3, lambda _decay: BeliefRouter()),
    # Only when named (presets.choose_routers never picks it): its candidates are schemas.
    RouterEntry(RouterName.SCHEMA, Stage.FIND, 1.0, lambda _decay: SchemaRouter(), searches_vectors=True),
)
"""The registry, in the order the routers are listed to callers."""

STAGE_ONE: tuple[RouterName, ...] = tuple(entry.name for entry in ROUTERS if entry.stage is Stage.FIND)
STAGE_TWO: tuple[RouterName, ...] = tuple(entry.name for entry in ROUTERS if entry.stage is Stage.EXPAND)
VECTOR_ROUTERS: frozenset[RouterName] = frozenset(entry.name for entry in ROUTERS if entry.searches_vectors)


def build_routers(decay_rate_per_hour: float) -> tuple[dict[RouterName, Router], dict[RouterName, Expander]]:
    """One instance of every router: stage one's by name, stage two's by name."""
    built = {entry.name: entry.build(decay_rate_per_hour) for entry in ROUTERS}
    routers: dict[RouterName, Router] = {name: built[name] for name in STAGE_ONE}  # type: ignore[misc]
    expanders: dict[RouterName, Expander] = {name: built[name] for name in STAGE_TWO}  # type: ignore[misc]
    return routers, expanders
