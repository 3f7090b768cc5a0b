"""Checks an embedder once, on first use, against what the store was built with."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from deltacore.embedding.base import embed_texts, embedder_name


class CheckedEmbedder:
    """Wraps the configured embedder; the first call reports its name and dimension to
    ``on_first_use`` (which refuses a mismatch with the store), later calls check the dimension.

    Loading a model can take seconds, so nothing is embedded until something needs a vector.
    """

    def __init__(self, embedder: Any, on_first_use: Callable[[str, int], None]) -> None:
        self.inner = embedder
        self.name = embedder_name(embedder)
        self._on_first_use = on_first_use
        self._dimension: int | None = None
        self._lock = threading.Lock()

    def __call__(self, input: list[str]) -> np.ndarray:
        matrix = embed_texts(self.inner, list(input))
        if self._dimension is None and matrix.size:
            with self._lock:
                if self._dimension is None:
                    self._on_first_use(self.name, int(matrix.shape[1]))
                    self._dimension = int(matrix.shape[1])
        elif matrix.size and matrix.shape[1] != self._dimension:
            from deltacore.errors import ConfigurationError

            raise ConfigurationError("embedder", f"returned {matrix.shape[1]} dimensions, earlier {self._dimension}")
        return matrix

    @property
    def checked(self) -> bool:
        """Whether the first-use check ran. It writes the store's embedder, so it must not first
        happen inside another write transaction (a step that embeds while holding SQLite's write
        lock would wait on itself): a write that would not embed embeds its events while not."""
        return self._dimension is not None

    def embed_one(self, text: str) -> np.ndarray:
        return self([text])[0]
