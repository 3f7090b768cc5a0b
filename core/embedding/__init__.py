"""Embedders: turn texts into vectors for the semantic index."""

from deltacore.embedding.base import Embedder, embed_texts, embedder_name
from deltacore.embedding.chroma_bridge import ChromaEmbedder
from deltacore.embedding.minilm import MiniLMEmbedder, default_embedder

__all__ = ["ChromaEmbedder", "Embedder", "MiniLMEmbedder", "default_embedder", "embed_texts", "embedder_name"]
