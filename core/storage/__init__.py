"""Layer 4, storage: SQL source of truth (SQLite / PostgreSQL), Chroma vector index, outbox.

The database (:class:`Database`: connections, setup, embedder bookkeeping) is shared by small
repositories, each of one table family; :class:`SQLStore` is the database with the event, log and
learning repositories together, for the write pipeline and the read path.
"""

from deltacore.storage.database import Database
from deltacore.storage.decision_store import DecisionRepository
from deltacore.storage.dialect import Dialect
from deltacore.storage.drift_store import DriftRepository
from deltacore.storage.event_reads import EventReads
from deltacore.storage.event_writes import EventWrites
from deltacore.storage.hot_tier import HotTier
from deltacore.storage.learning_store import LearningRepository
from deltacore.storage.outbox import OutboxApplier
from deltacore.storage.ownership import VectorOwnership
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.system_log import SystemLog
from deltacore.storage.trust_store import TrustStore
from deltacore.storage.vector_index import ChromaIndex, chroma_where, collection_name

__all__ = [
    "ChromaIndex",
    "Database",
    "DecisionRepository",
    "Dialect",
    "DriftRepository",
    "EventReads",
    "EventWrites",
    "HotTier",
    "LearningRepository",
    "OutboxApplier",
    "SQLStore",
    "SystemLog",
    "TrustStore",
    "VectorOwnership",
    "chroma_where",
    "collection_name",
]
