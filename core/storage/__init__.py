"""Layer 4, storage: SQL source of truth (SQLite / PostgreSQL), Chroma vector index, outbox."""

from deltacore.storage.hot_tier import HotTier
from deltacore.storage.outbox import OutboxApplier
from deltacore.storage.ownership import VectorOwnership
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.vector_index import ChromaIndex, chroma_where, collection_name

__all__ = ["ChromaIndex", "HotTier", "OutboxApplier", "SQLStore", "VectorOwnership", "chroma_where", "collection_name"]
