"""Embedded texts kept on disk between benchmark runs, so a rerun does not embed 100k texts again.

One format for every benchmark: an ``.npz`` with ``texts``, their ``vectors`` (float32) and the
``embedder``'s name. A file written by another embedder is ignored rather than mixed in.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load(path: Path | None, embedder: str) -> dict[str, np.ndarray]:
    """The vectors ``path`` holds for ``embedder``: none when it is missing or another embedder's."""
    if path is None or not path.exists():
        return {}
    with np.load(path, allow_pickle=False) as data:
        # Files written before the name was recorded carry only texts and vectors (trusted as is).
        if "embedder" in data.files and str(data["embedder"]) != embedder:
            return {}
        return dict(zip(data["texts"].tolist(), data["vectors"]))


def save(path: Path | None, embedder: str, table: dict[str, np.ndarray]) -> None:
    if path is None or not table:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    texts = list(table)
    vectors = np.stack([table[t] for t in texts]).astype(np.float32)
    np.savez(path, embedder=embedder, texts=np.array(texts), vectors=vectors)
