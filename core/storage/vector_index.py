"""The vector index: Chroma, embedded (``PersistentClient``) or a server (``HttpClient``).

It is derived data. Vectors are computed by DeltaCore and also kept in SQL, so the index can be
rebuilt from SQL at any time (``reindex()``) and a forget can rebuild a tenant's collection from
its live records (``collection.delete`` alone leaves vectors on disk). No documents are stored in
Chroma: text lives only in SQL, so there is one place to erase it from.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from deltacore.storage.errors import translate_backend_errors

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def collection_name(prefix: str, tenant: str) -> str:
    """A valid Chroma collection name per tenant (3–63 chars, [A-Za-z0-9_-], unique by hash)."""
    digest = hashlib.sha1(tenant.encode()).hexdigest()[:10]
    slug = _UNSAFE.sub("-", tenant).strip("-_")[:24] or "t"
    return f"{prefix}-{slug}-{digest}"


class ChromaIndex:
    """One Chroma collection per tenant, cosine space, metadata filters for scope."""

    def __init__(self, client: Any, prefix: str, kind: str) -> None:
        self._client = client
        self._prefix = prefix
        self._collections: dict[str, Any] = {}
        self.kind = kind
        """``embedded`` or ``server``."""

    @classmethod
    def embedded(cls, path: Path, prefix: str) -> ChromaIndex:
        import chromadb
        from chromadb.config import Settings

        try:
            with translate_backend_errors("opening embedded Chroma"):
                client = chromadb.PersistentClient(
                    path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=True)
                )
        except Exception:
            _forget_failed_client(str(path))
            raise
        return cls(client, prefix, "embedded")

    @classmethod
    def server(cls, url: str, prefix: str) -> ChromaIndex:
        import chromadb
        from chromadb.config import Settings

        parsed = urlparse(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
        with translate_backend_errors(f"connecting to the Chroma server at {url}"):
            client = chromadb.HttpClient(
                host=parsed.hostname,
                port=port,
                ssl=parsed.scheme == "https",
                settings=Settings(anonymized_telemetry=False),
            )
            client.heartbeat()
        return cls(client, prefix, "server")

    def close(self) -> None:
        """Release the client. chromadb caches one embedded client per folder per process; a
        stale cached copy would miss what another process wrote after this one closed."""
        self._collections.clear()
        close = getattr(self._client, "close", None)
        if close is not None:
            close()

    def _collection(self, tenant: str) -> Any:
        collection = self._collections.get(tenant)
        if collection is None:
            with translate_backend_errors("opening a Chroma collection"):
                collection = self._client.get_or_create_collection(
                    collection_name(self._prefix, tenant),
                    embedding_function=None,  # vectors come from DeltaCore's embedder
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={"deltacore_tenant": tenant},
                )
            self._collections[tenant] = collection
        return collection

    def upsert(self, tenant: str, ids: list[str], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        if not ids:
            return
        with translate_backend_errors("writing vectors"):
            collection = self._collection(tenant)
            # Chroma caps a single call; stay well below it.
            step = 4000
            for start in range(0, len(ids), step):
                collection.upsert(
                    ids=ids[start : start + step],
                    embeddings=vectors[start : start + step],
                    metadatas=metadatas[start : start + step],
                )

    def delete(self, tenant: str, ids: list[str]) -> None:
        if not ids:
            return
        with translate_backend_errors("deleting vectors"):
            self._collection(tenant).delete(ids=ids)

    def query(
        self, tenant: str, vector: np.ndarray, limit: int, where: dict[str, Any] | None
    ) -> list[tuple[str, float]]:
        """Nearest ids with cosine similarity (higher is better)."""
        with translate_backend_errors("querying vectors"):
            collection = self._collection(tenant)
            result = collection.query(
                query_embeddings=[vector],
                n_results=limit,
                where=where or None,
                include=["distances"],
            )
        ids: Sequence[str] = result["ids"][0] if result["ids"] else []
        distances: Sequence[float] = result["distances"][0] if result["distances"] else []
        return [(event_id, 1.0 - float(distance)) for event_id, distance in zip(ids, distances)]

    def count(self, tenant: str) -> int:
        with translate_backend_errors("counting vectors"):
            return int(self._collection(tenant).count())

    def ids(self, tenant: str, page: int = 5000) -> list[str]:
        """Every id in the tenant's collection (the open-time check compares them with SQL)."""
        found: list[str] = []
        with translate_backend_errors("listing vector ids"):
            collection = self._collection(tenant)
            while True:
                batch = collection.get(include=[], limit=page, offset=len(found))["ids"]
                found.extend(batch)
                if len(batch) < page:
                    return found

    def drop(self, tenant: str) -> None:
        """Delete a tenant's collection (``reindex`` then rebuilds it from SQL)."""
        name = collection_name(self._prefix, tenant)
        self._collections.pop(tenant, None)
        with translate_backend_errors("dropping a Chroma collection"):
            try:
                self._client.delete_collection(name)
            except Exception as exc:  # noqa: BLE001 - missing collection is fine; others re-raise
                if "does not exist" not in str(exc).lower() and "not found" not in str(exc).lower():
                    raise

    def tenants(self) -> list[str]:
        with translate_backend_errors("listing Chroma collections"):
            found = []
            for collection in self._client.list_collections():
                name = getattr(collection, "name", collection)
                if isinstance(name, str) and name.startswith(self._prefix + "-"):
                    meta = self._client.get_collection(name).metadata or {}
                    if "deltacore_tenant" in meta:
                        found.append(meta["deltacore_tenant"])
            return found


def _forget_failed_client(path: str) -> None:
    """chromadb caches one client system per folder per process, also one whose start failed
    (a full disk): every later open in this process would get that broken one back."""
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        SharedSystemClient._identifier_to_system.pop(path, None)
        SharedSystemClient._identifier_to_refcount.pop(path, None)


def chroma_where(clauses: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Combine metadata conditions the way Chroma wants (``$and`` needs two or more)."""
    if not clauses:
        return None
    if len(clauses) == 1:
        return clauses[0]
    return {"$and": clauses}
