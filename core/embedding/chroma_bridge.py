"""Use any Chroma embedding function as DeltaCore's embedder."""

from __future__ import annotations

from typing import Any

import numpy as np


class ChromaEmbedder:
    """Wraps a Chroma ``EmbeddingFunction`` (``ef(input=[...])``).

    Chroma's own default function downloads an ONNX model on first use; offline, pass a local
    one (for example ``SentenceTransformerEmbeddingFunction`` over a local path).
    """

    def __init__(self, function: Any) -> None:
        self._function = function

    def name(self) -> str:
        inner = getattr(self._function, "name", None)
        if callable(inner):
            try:
                return f"chroma:{inner()}"
            except Exception:  # noqa: BLE001 - a name is only a label; fall back to the type
                pass
        return f"chroma:{type(self._function).__qualname__}"

    def __call__(self, input: list[str]) -> np.ndarray:
        return np.asarray(self._function(input=list(input)), dtype=np.float32)
