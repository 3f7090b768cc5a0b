"""Layer 1, ingestion: validate, normalise, de-duplicate, then hand over to delta extraction."""

from deltacore.ingest.normalize import content_hash, normalize_event, schema_hash
from deltacore.ingest.validation import coerce_event

__all__ = ["coerce_event", "content_hash", "normalize_event", "schema_hash"]
