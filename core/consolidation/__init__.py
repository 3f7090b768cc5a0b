"""Layer 5, sleep-cycle consolidation: near-duplicate merges, the COLD tier, the rollback gate.

A cycle plans from a read (NREM merges, prune to COLD, REM fidelity audit), applies everything
in one transaction with an undo journal, then replays a probe set: a cycle that makes retrieval
worse is rolled back. Originals are never rewritten: a merged memory is a new event with
``meta["derives_from"]``; a COLD memory is a checksummed Parquet row, never deleted.
"""

from deltacore.consolidation.cycle import ALL_PHASES, Consolidator
from deltacore.consolidation.errors import (
    ConsolidationBusyError,
    InvalidConsolidationError,
)
from deltacore.consolidation.forgetting import MergedDerivation, thaw_for

__all__ = [
    "ALL_PHASES",
    "ConsolidationBusyError",
    "Consolidator",
    "InvalidConsolidationError",
    "MergedDerivation",
    "thaw_for",
]
