"""Layer 2, causal deltas: what changed, why, and what it was caused by."""

from deltacore.delta.extract import DeltaDraft, DeltaExtractor, RuleBasedExtractor
from deltacore.delta.provenance import break_cycles, find_cycle, walk_provenance
from deltacore.delta.utility import decayed_utility

__all__ = [
    "DeltaDraft",
    "DeltaExtractor",
    "RuleBasedExtractor",
    "break_cycles",
    "decayed_utility",
    "find_cycle",
    "walk_provenance",
]
