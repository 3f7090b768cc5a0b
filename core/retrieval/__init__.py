"""Layer 6, retrieval: routers find candidates, fusion ranks them, packing fits a budget."""

from deltacore.retrieval.fusion import reciprocal_rank_fusion
from deltacore.retrieval.orchestrator import Retriever
from deltacore.retrieval.packing import pack
from deltacore.retrieval.presets import PRESETS, ROUTER_NAMES, choose_routers
from deltacore.retrieval.query_analysis import QueryAnalysis, analyze

__all__ = [
    "PRESETS",
    "ROUTER_NAMES",
    "QueryAnalysis",
    "Retriever",
    "analyze",
    "choose_routers",
    "pack",
    "reciprocal_rank_fusion",
]
