"""What ``DeltaCore.export`` writes first in a dump, and what ``restore`` reports."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

DUMP_FORMAT = "deltacore-dump"
DUMP_VERSION = 1
"""Bumped when a dump's layout changes; ``restore`` refuses versions it does not know."""


class DumpManifest(BaseModel):
    """The first line of a dump: what it holds and where it came from."""

    model_config = ConfigDict(frozen=True)

    format: str = DUMP_FORMAT
    format_version: int = DUMP_VERSION
    deltacore_version: str
    created_at: datetime
    source_backend: str
    """``sqlite`` or ``postgresql``: the store it was exported from."""
    tenant: str | None = None
    """The one tenant exported, or None for the whole store."""
    tenants: list[str] = Field(default_factory=list)
    embedder: str | None = None
    """Name of the embedder the dump's vectors come from (None: the store had no vectors yet)."""
    embedding_dimension: int | None = None
    rows: dict[str, int] = Field(default_factory=dict)
    """Table -> rows in the dump."""


class RestoreReport(BaseModel):
    """What ``restore`` put in the store."""

    model_config = ConfigDict(frozen=True)

    manifest: DumpManifest
    rows: dict[str, int]
    """Table -> rows restored."""
    vectors: int
    """Vectors written to the vector index (rebuilt from the restored rows' vectors)."""
