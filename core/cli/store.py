"""Which store a command opens: flags over environment variables over defaults."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from deltacore.cli.usage import UsageError
from deltacore.config import DeltaCoreConfig
from deltacore.embedding import MiniLMEmbedder
from deltacore.engine import DeltaCore


def store_config(args: argparse.Namespace) -> DeltaCoreConfig:
    """Flags over environment variables over defaults."""
    overrides: dict[str, Any] = {}
    for name in ("path", "database_url", "chroma_url"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if getattr(args, "read_only", False):
        overrides["read_only"] = True
    if args.embedder == "fake":
        from deltacore.testing import FakeEmbedder

        overrides["embedder"] = FakeEmbedder()
    else:
        # Our own messages are enough; the model loads in well under a second.
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        # Loads lazily: `stats` and `reindex` work without the model (or the 'local' extra);
        # whatever needs a vector raises MissingExtraError naming the extra to install.
        overrides["embedder"] = MiniLMEmbedder()
    return DeltaCoreConfig.from_env(**overrides)


@contextmanager
def open_store(
    args: argparse.Namespace, *, allow_embedder_change: bool = False, must_exist: bool = True
) -> Iterator[DeltaCore]:
    """The store the options name, closed on exit; a usage error if it must exist and does not."""
    config = store_config(args)
    if must_exist and not config.database_url and not (config.path.expanduser() / "deltacore.db").exists():
        # Reading a folder that holds no store would silently create an empty one there.
        raise UsageError(f"no store in {config.path}: ingest something first, or pass --path (or set DELTACORE_PATH)")
    memory = DeltaCore.open(config=config, allow_embedder_change=allow_embedder_change)
    try:
        yield memory
    finally:
        memory.close()
