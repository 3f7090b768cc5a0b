"""Helpers for testing code that uses DeltaCore, hermetically and offline."""

from __future__ import annotations

import hashlib
import re

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """A deterministic embedder for tests: hashed bag of words, L2-normalised.

    Texts that share words get similar vectors, so semantic search behaves sensibly in tests,
    with no model, no download and the same vectors on every machine.
    """

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension

    def name(self) -> str:
        return f"deltacore-fake-{self.dimension}"

    def __call__(self, input: list[str]) -> np.ndarray:
        matrix = np.zeros((len(input), self.dimension), dtype=np.float32)
        for row, text in enumerate(input):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                matrix[row, bucket] += sign
            norm = float(np.linalg.norm(matrix[row]))
            if norm == 0.0:
                matrix[row, 0] = 1.0
            else:
                matrix[row] /= norm
        return matrix
