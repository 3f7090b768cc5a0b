"""Routers: each finds candidate memories its own way (see docs/architecture.md)."""

from deltacore.retrieval.routers.base import Expander, Ranked, Router, SearchContext
from deltacore.retrieval.routers.belief import BeliefRouter
from deltacore.retrieval.routers.causal import CausalRouter
from deltacore.retrieval.routers.entity import EntityRouter
from deltacore.retrieval.routers.lexical import LexicalRouter
from deltacore.retrieval.routers.recency import RecencyRouter
from deltacore.retrieval.routers.registry import ROUTERS, RouterEntry, Stage, build_routers
from deltacore.retrieval.routers.schema import SchemaRouter
from deltacore.retrieval.routers.semantic import SemanticRouter
from deltacore.retrieval.routers.temporal import TemporalRouter
from deltacore.retrieval.routers.utility import UtilityRouter

__all__ = [
    "BeliefRouter",
    "CausalRouter",
    "EntityRouter",
    "Expander",
    "LexicalRouter",
    "Ranked",
    "RecencyRouter",
    "ROUTERS",
    "Router",
    "RouterEntry",
    "SchemaRouter",
    "SearchContext",
    "SemanticRouter",
    "Stage",
    "TemporalRouter",
    "UtilityRouter",
    "build_routers",
]
