"""DeltaCore: a self-learning memory engine for LLM agents.

>>> from deltacore import DeltaCore, QueryCriteria
>>> # memory = DeltaCore.open("./memory")              # embedded: SQLite + Chroma + MiniLM
>>> # memory = DeltaCore.open("postgresql+psycopg://…", chroma_url="http://chroma:8000")

Importing this package never imports an agent framework; adapters live in
``deltacore.adapters.<framework>``.
"""

from deltacore.config import DeltaCoreConfig
from deltacore.embedding import ChromaEmbedder, Embedder, MiniLMEmbedder
from deltacore.engine import AsyncDeltaCore, DeltaCore
from deltacore.gateway.policy import TrustPolicy
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
    InvalidEventError,
    InvalidQueryError,
    MemoryAlias,
    MemoryException,
    MissingExtraError,
    NotFoundError,
    PoisonDetected,
    SchemaDrift,
    StoreLockedError,
    TemporalContradiction,
)
from deltacore.model import (
    CausalChain,
    Channel,
    CreditUpdate,
    DeleteResult,
    Delta,
    Event,
    EventKind,
    IngestResult,
    MemoryFlag,
    MemoryPacket,
    Namespace,
    OutcomeReport,
    QuarantineReview,
    QueryCriteria,
    Rejection,
    ReviewItem,
    SecurityEvent,
    StoreStats,
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
    "DeleteResult",
    "Delta",
    "DeltaCore",
    "DeltaCoreConfig",
    "DeltaCoreError",
    "DistributionShift",
    "Embedder",
    "EmbedderMismatchError",
    "Event",
    "EventKind",
    "IngestResult",
    "InvalidEventError",
    "InvalidQueryError",
    "MemoryAlias",
    "MemoryException",
    "MemoryFlag",
    "MemoryPacket",
    "MiniLMEmbedder",
    "MissingExtraError",
    "Namespace",
    "NotFoundError",
    "OutcomeReport",
    "PoisonDetected",
    "QuarantineReview",
    "QueryCriteria",
    "Rejection",
    "ReviewItem",
    "SchemaDrift",
    "SecurityEvent",
    "StoreLockedError",
    "StoreStats",
    "TemporalContradiction",
    "TrustAction",
    "TrustDecision",
    "TrustPolicy",
    "__version__",
]
