"""Layer 6, retrieval: routers find candidates, fusion ranks them, packing fits a budget."""

from deltacore.retrieval.fusion import reciprocal_rank_fusion
from deltacore.retrieval.orchestrator import Retriever
from deltacore.retrieval.packing import pack
from deltacore.retrieval.routers import (
    DEFAULT_ROUTERS,
    LexicalRouter,
    RecencyRouter,
    Router,
    SearchContext,
    SemanticRouter,
)

__all__ = [
    "DEFAULT_ROUTERS",
    "LexicalRouter",
    "RecencyRouter",
    "Retriever",
    "Router",
    "SearchContext",
    "SemanticRouter",
    "pack",
    "reciprocal_rank_fusion",
]
