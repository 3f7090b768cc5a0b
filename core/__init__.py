"""DeltaCore: a self-learning memory engine for LLM agents.

>>> from deltacore import DeltaCore, QueryCriteria
>>> # memory = DeltaCore.open("./memory")              # embedded: SQLite + Chroma + MiniLM
>>> # memory = DeltaCore.open("postgresql+psycopg://…", chroma_url="http://chroma:8000")

Importing this package never imports an agent framework; adapters live in
``deltacore.adapters.<framework>``.
"""

from deltacore.async_engine import AsyncDeltaCore
from deltacore.config import DeltaCoreConfig
from deltacore.embedding import ChromaEmbedder, Embedder, MiniLMEmbedder
from deltacore.engine import DeltaCore
from deltacore.trust_policy import TrustPolicy
from deltacore.errors import (
    BackendError,
    BackendUnavailableError,
    BeliefStale,
    CircularCausalChain,
    CompressionLimit,
    ConfigurationError,
    ConsolidationTimeout,
    DeltaCoreError,
    DistributionShift,
    EmbedderMismatchError,
    ForeignDatabaseError,
    InvalidEventError,
    InvalidQueryError,
    MemoryAlias,
    MemoryException,
    MissingExtraError,
    NotFoundError,
    PoisonDetected,
    SchemaDrift,
    ReadOnlyStoreError,
    StorageFullError,
    StoreClosedError,
    StoreLockedError,
    TemporalContradiction,
)
from deltacore.model import (
    CausalChain,
    Channel,
    CreditUpdate,
    Decision,
    DeleteResult,
    Delta,
    DriftReport,
    Event,
    EventKind,
    IngestResult,
    MemoryFlag,
    MemoryPacket,
    Namespace,
    OutcomeReport,
    PacketKind,
    PropagationReport,
    QuarantineReview,
    QueryCriteria,
    Rejection,
    ReviewItem,
    SchemaMatch,
    SecurityEvent,
    StoreStats,
    ToolDrift,
    TrustAction,
    TrustDecision,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncDeltaCore",
    "BackendError",
    "BackendUnavailableError",
    "BeliefStale",
    "CausalChain",
    "Channel",
    "ChromaEmbedder",
    "CircularCausalChain",
    "CompressionLimit",
    "ConfigurationError",
    "ConsolidationTimeout",
    "CreditUpdate",
    "Decision",
    "DeleteResult",
    "Delta",
    "DeltaCore",
    "DeltaCoreConfig",
    "DeltaCoreError",
    "DriftReport",
    "DistributionShift",
    "Embedder",
    "EmbedderMismatchError",
    "ForeignDatabaseError",
    "Event",
    "EventKind",
    "IngestResult",
    "InvalidEventError",
    "InvalidQueryError",
    "MemoryAlias",
    "MemoryException",
    "MemoryFlag",
    "PacketKind",
    "SchemaMatch",
    "MemoryPacket",
    "MiniLMEmbedder",
    "MissingExtraError",
    "Namespace",
    "NotFoundError",
    "OutcomeReport",
    "PropagationReport",
    "PoisonDetected",
    "QuarantineReview",
    "QueryCriteria",
    "Rejection",
    "ReviewItem",
    "SchemaDrift",
    "SecurityEvent",
    "ReadOnlyStoreError",
    "StorageFullError",
    "StoreClosedError",
    "StoreLockedError",
    "StoreStats",
    "TemporalContradiction",
    "ToolDrift",
    "TrustAction",
    "TrustDecision",
    "TrustPolicy",
    "__version__",
]

# Operating DeltaCore (Layer 7): budgets, the memory economy, the governor's errors.
from deltacore.errors import OverloadedError, QuotaExceededError
from deltacore.governor_policy import GovernorPolicy, MemoryBudget, TelemetryPolicy
from deltacore.model.economy import MemoryEconomy

__all__ += ["GovernorPolicy", "MemoryBudget", "MemoryEconomy", "OverloadedError", "QuotaExceededError", "TelemetryPolicy"]

# Sleep-cycle consolidation (Layer 5): the policy, the cycle's report and status, its errors.
from deltacore.config import ConsolidationPolicy
from deltacore.consolidation.errors import ConsolidationBusyError, InvalidConsolidationError
from deltacore.model.consolidation import ConsolidationPhase, ConsolidationReport, ConsolidationStatus
from deltacore.storage.cold_archive import ColdPartitionCorruptError

__all__ += [
    "ColdPartitionCorruptError", "ConsolidationBusyError", "ConsolidationPhase", "ConsolidationPolicy",
    "ConsolidationReport", "ConsolidationStatus", "InvalidConsolidationError",
]  # fmt: skip
