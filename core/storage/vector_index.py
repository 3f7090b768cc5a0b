"""The vector index: Chroma, embedded (``PersistentClient``) or a server (``HttpClient``).

It is derived data. Vectors are computed by DeltaCore and also kept in SQL, so the index can be
rebuilt from SQL at any time (``reindex()``) and a forget can rebuild a tenant's collection from
its live records (``collection.delete`` alone leaves vectors on disk). No documents are stored in
Chroma: text lives only in SQL, so there is one place to erase it from.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import numpy as np

from deltacore.storage.errors import translate_backend_errors

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def collection_name(prefix: str, tenant: str) -> str:
    """A valid Chroma collection name per tenant (3–63 chars, [A-Za-z0-9_-], unique by hash)."""
    digest = hashlib.sha1(tenant.encode()).hexdigest()[:10]
    slug = _UNSAFE.sub("-", tenant).strip("-_")[:24] or "t"
    return f"{prefix}-{slug}-{digest}"


def generation_name(prefix: str, tenant: str) -> str:
    """A fresh collection name for the tenant (a rebuild fills it, then the store points at it)."""
    suffix = format(time.time_ns() // 1000, "x")
    base = collection_name(prefix, tenant)
    return f"{base[: 62 - len(suffix)]}-{suffix}"


class CollectionNames(Protocol):
    """Where the store keeps which collection is a tenant's current one (every process reads it)."""

    def get(self, tenant: str) -> str | None: ...

    def set(self, tenant: str, name: str) -> None: ...


class ChromaIndex:
    """One Chroma collection per tenant, cosine space, metadata filters for scope."""

    def __init__(self, client: Any, prefix: str, kind: str) -> None:
        self._client = client
        self._prefix = prefix
        self._collections: dict[str, Any] = {}
        self.kind = kind
        """``embedded`` or ``server``."""
        self.names: CollectionNames | None = None
        """The tenant → collection pointer; without it a tenant's collection has a fixed name."""

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

    @property
    def prefix(self) -> str:
        """The store's collection name prefix."""
        return self._prefix

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
                    self.name_of(tenant),
                    embedding_function=None,  # vectors come from DeltaCore's embedder
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={"deltacore_tenant": tenant, "deltacore_prefix": self._prefix},
                )
            self._collections[tenant] = collection
        return collection

    def upsert(self, tenant: str, ids: list[str], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        if not ids:
            return
        with translate_backend_errors("writing vectors"):
            self._reopening(tenant, lambda c: _upsert(c, ids, vectors, metadatas))

    def delete(self, tenant: str, ids: list[str]) -> None:
        if not ids:
            return
        with translate_backend_errors("deleting vectors"):
            self._reopening(tenant, lambda c: c.delete(ids=ids))

    def query(
        self, tenant: str, vector: np.ndarray, limit: int, where: dict[str, Any] | None
    ) -> list[tuple[str, float]]:
        """Nearest ids with cosine similarity (higher is better)."""
        with translate_backend_errors("querying vectors"):
            try:
                result = self._query_once(tenant, vector, limit, where)
            except Exception as exc:
                # Another process rebuilt the collection (forget, reindex): this handle names a
                # collection that no longer exists. Measured: a second process's queries failed
                # for the whole rebuild on a Chroma server. Open it again, once.
                if not _missing_collection(exc):
                    raise
                self._collections.pop(tenant, None)
                result = self._query_once(tenant, vector, limit, where)
        ids: Sequence[str] = result["ids"][0] if result["ids"] else []
        distances: Sequence[float] = result["distances"][0] if result["distances"] else []
        return [(event_id, 1.0 - float(distance)) for event_id, distance in zip(ids, distances)]

    def _query_once(self, tenant: str, vector: np.ndarray, limit: int, where: dict[str, Any] | None) -> Any:
        return self._collection(tenant).query(
            query_embeddings=[vector], n_results=limit, where=where or None, include=["distances"]
        )

    def _reopening(self, tenant: str, call: Callable[[Any], Any]) -> Any:
        """``call(collection)``; once more on a freshly opened handle when another process
        swapped the tenant's collection (the cached one was deleted)."""
        try:
            return call(self._collection(tenant))
        except Exception as exc:
            if not _missing_collection(exc):
                raise
            self._collections.pop(tenant, None)
            return call(self._collection(tenant))

    def name_of(self, tenant: str) -> str:
        """The name of the tenant's current collection."""
        named = self.names.get(tenant) if self.names is not None else None
        return named or collection_name(self._prefix, tenant)

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
        self._collections.pop(tenant, None)
        self.drop_named(self.name_of(tenant))

    def drop_named(self, name: str) -> None:
        """Delete one collection by name; a missing one is fine."""
        with translate_backend_errors("dropping a Chroma collection"):
            try:
                self._client.delete_collection(name)
            except Exception as exc:  # noqa: BLE001 - missing collection is fine; others re-raise
                if "does not exist" not in str(exc).lower() and "not found" not in str(exc).lower():
                    raise

    def open_named(self, tenant: str, name: str) -> Any:
        """A collection for ``tenant`` under ``name`` (created empty when missing), not made current."""
        with translate_backend_errors("opening a Chroma collection"):
            return self._client.get_or_create_collection(
                name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}},
                metadata={"deltacore_tenant": tenant, "deltacore_prefix": self._prefix},
            )

    def make_current(self, tenant: str, collection: Any) -> None:
        """Use ``collection`` for the tenant from now on in this process (its name is already
        in :attr:`names`, so other processes find it when their handle goes stale)."""
        self._collections[tenant] = collection

    def names_of(self, tenant: str) -> list[str]:
        """Every collection holding the tenant's vectors: the current one, and any a rebuild
        left behind."""
        with translate_backend_errors("listing Chroma collections"):
            found = []
            for collection in self._client.list_collections():
                name = getattr(collection, "name", collection)
                if isinstance(name, str) and name.startswith(self._prefix + "-"):
                    meta = getattr(collection, "metadata", None) or self._client.get_collection(name).metadata or {}
                    # Another store on the same server may use a prefix that starts like this one.
                    ours = meta.get("deltacore_prefix") == self._prefix or name == collection_name(self._prefix, tenant)
                    if ours and meta.get("deltacore_tenant") == tenant:
                        found.append(name)
            return found

    def tenants(self) -> list[str]:
        with translate_backend_errors("listing Chroma collections"):
            found: list[str] = []
            for collection in self._client.list_collections():
                name = getattr(collection, "name", collection)
                if isinstance(name, str) and name.startswith(self._prefix + "-"):
                    meta = self._client.get_collection(name).metadata or {}
                    if "deltacore_tenant" in meta and meta["deltacore_tenant"] not in found:
                        found.append(meta["deltacore_tenant"])
            return found


def _upsert(collection: Any, ids: list[str], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
    # Chroma caps a single call; stay well below it.
    step = 4000
    for start in range(0, len(ids), step):
        collection.upsert(
            ids=ids[start : start + step], embeddings=vectors[start : start + step], metadatas=metadatas[start : start + step]
        )


# What a Chroma 1.5.9 server answers for a collection another process is deleting: not found
# once it is gone, "Missing metadata segment" while its segments are being removed (seen in CI
# on a second reader during forgets), "Nothing found on disk" after its files went.
_GONE = ("does not exist", "missing metadata segment", "nothing found on disk", "missing field")


def _missing_collection(exc: Exception) -> bool:
    text = str(exc).lower()
    return type(exc).__name__ == "NotFoundError" or any(marker in text for marker in _GONE)


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
