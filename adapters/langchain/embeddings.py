"""Embeddings both ways: a LangChain ``Embeddings`` as DeltaCore's embedder, and back.

>>> # memory = DeltaCore.open("./memory", embedder=LangChainEmbedder(OpenAIEmbeddings(model=...)))
>>> # vector_store = InMemoryVectorStore(DeltaCoreEmbeddings(FakeEmbedder()))

The engine embeds stored texts and queries with the same call, so :class:`LangChainEmbedder`
uses ``embed_documents`` for both. Its ``name()`` is recorded in the store, which then refuses a
different embedder (its vectors would not be comparable).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from deltacore.embedding import embed_texts, embedder_name


class LangChainEmbedder:
    """A LangChain ``Embeddings`` as a DeltaCore embedder (``embedder(input=[texts]) -> vectors``).

    Args:
        embeddings: any LangChain ``Embeddings``.
        name: the model's stable name in the store; default: class and model name.
    """

    def __init__(self, embeddings: Embeddings, name: str | None = None) -> None:
        self.embeddings = embeddings
        self._name = name

    def name(self) -> str:
        if self._name:
            return self._name
        kind = type(self.embeddings)
        names = (getattr(self.embeddings, attribute, None) for attribute in ("model", "model_name", "model_id"))
        model = next((name for name in names if name), None)
        size = getattr(self.embeddings, "size", None)  # the core fake embeddings
        label = f"langchain:{kind.__module__}.{kind.__qualname__}"
        return f"{label}:{model}" if model else f"{label}:{size}" if isinstance(size, int) else label

    def __call__(self, input: list[str]) -> np.ndarray:
        return np.asarray(self.embeddings.embed_documents(list(input)), dtype=np.float32)


class DeltaCoreEmbeddings(Embeddings):
    """A DeltaCore embedder (``FakeEmbedder``, ``MiniLMEmbedder``, any callable) as a LangChain
    ``Embeddings``, e.g. to build a LangChain vector store with the same model as the memory."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    @property
    def name(self) -> str:
        return embedder_name(self.embedder)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return embed_texts(self.embedder, list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query, text)
