"""Embedders both ways between DeltaCore and LlamaIndex.

>>> # Settings.embed_model = DeltaCoreEmbedding(MiniLMEmbedder())        # DeltaCore's model in LlamaIndex
>>> # store = DeltaCore.open("./memory", embedder=LlamaIndexEmbedder(embed_model))  # and the reverse

A DeltaCore embedder is any callable ``embedder(input=[texts]) -> vectors`` (Chroma's convention).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from pydantic import Field

from deltacore.embedding import embed_texts, embedder_name


class DeltaCoreEmbedding(BaseEmbedding):
    """A DeltaCore embedder (MiniLM, a Chroma function, ``FakeEmbedder``…) as a LlamaIndex
    embedding model. Queries and documents are embedded the same way."""

    embedder: Any = Field(exclude=True, description="The DeltaCore embedder (a callable from texts to vectors).")

    def __init__(self, embedder: Any, **kwargs: Any) -> None:
        kwargs.setdefault("model_name", embedder_name(embedder))
        super().__init__(embedder=embedder, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "DeltaCoreEmbedding"

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._get_text_embeddings([query])[0]

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return embed_texts(self.embedder, list(texts)).tolist()

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)


class LlamaIndexEmbedder:
    """A LlamaIndex embedding model powering a DeltaCore store: ``DeltaCore.open(path,
    embedder=LlamaIndexEmbedder(embed_model))``. Texts are embedded as documents (DeltaCore
    uses one vector space for events and queries)."""

    def __init__(self, embed_model: BaseEmbedding) -> None:
        self.embed_model = embed_model
        self._label = f"llamaindex:{embed_model.class_name()}:{embed_model.model_name}"

    def name(self) -> str:
        """Stable name: DeltaCore refuses to mix vectors of two models in one store."""
        return self._label

    def __call__(self, input: list[str]) -> np.ndarray:
        vectors = self.embed_model.get_text_embedding_batch(list(input))
        return np.asarray(vectors, dtype=np.float32)

