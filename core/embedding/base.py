"""The one protocol an embedder must meet.

It is Chroma's ``EmbeddingFunction`` calling convention: ``embedder(input=[texts]) -> vectors``,
so any Chroma embedding function, a LangChain ``Embeddings`` bridge or a plain function works.
DeltaCore computes vectors itself and hands them to Chroma, so the same vectors are also kept in
SQL (``reindex()`` then needs no model, and a second process can search without the index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from deltacore.errors import ConfigurationError


@runtime_checkable
class Embedder(Protocol):
    """A callable from texts to equal-length vectors."""

    def __call__(self, input: list[str]) -> Sequence[Sequence[float]]: ...


def embedder_name(embedder: Any) -> str:
    """A stable name used to refuse mixing vectors of two different models in one store."""
    name = getattr(embedder, "name", None)
    if callable(name):
        try:
            name = name()
        except TypeError:
            name = None
    if isinstance(name, str) and name:
        return name
    return f"{type(embedder).__module__}.{type(embedder).__qualname__}"


def embed_texts(embedder: Any, texts: list[str]) -> np.ndarray:
    """Embed ``texts`` into a float32 matrix, checking what the embedder returned."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    try:
        vectors = embedder(input=texts)
    except TypeError:
        vectors = embedder(texts)  # plain functions with a positional parameter
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(texts):
        raise ConfigurationError(
            "embedder",
            f"returned shape {matrix.shape} for {len(texts)} texts; it must return one vector per text",
        )
    if not np.isfinite(matrix).all():
        raise ConfigurationError("embedder", "returned NaN or infinite values")
    return matrix
