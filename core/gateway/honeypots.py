"""Honeypots: canary memories an honest query never reaches.

Each tenant gets ``TrustPolicy.honeypots`` (3–5; 0 turns them off) canaries: strings of random
tokens, far from any natural language in embedding space and sharing no word with it. They are
embedded once per store (the first tenant's) and copied to each new tenant with their vectors. They live in their own
table, never in ``dc_events``: they are never returned, never counted, never exported. Every
query is checked against them as if they were memories (``deltacore.retrieval.defence``): a
query that would retrieve one first — it shares a canary token, or a canary is closer to it than
every real memory and at least ``honeypot_similarity`` — is probing the memory (dumping it, or
searching for planted triggers), and raises ``HONEYPOT_TRIGGERED`` in the security log.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np
from sqlalchemy import Connection

from deltacore.delta.repositories import Transactions
from deltacore.embedding import Embedder, embed_texts
from deltacore.trust_policy import TrustPolicy

_ALPHABET = "bcdfghjklmnpqrstvwxz"
_DIGITS = "0123456789"


def canary_text() -> str:
    """Seven random tokens of consonants and digits: no word of any language, no stem to match."""
    tokens = []
    for _ in range(7):
        length = 5 + secrets.randbelow(4)
        tokens.append("".join(secrets.choice(_ALPHABET + _DIGITS) for _ in range(length)))
    return " ".join(tokens)


def canary_id(tenant: str, number: int) -> str:
    """Deterministic per tenant, so two processes planting at once cannot double them."""
    return hashlib.sha1(f"honeypot:{tenant}:{number}".encode()).hexdigest()[:32]


class CanaryStore(Protocol):
    """Where canaries are kept (``deltacore.storage.trust_store.HoneypotRepository``)."""

    def honeypots(self, conn: Connection, tenant: str) -> tuple[list[str], list[str], np.ndarray]:
        """(ids, texts, vectors) of a tenant's canaries."""
        ...

    def plant_honeypots(self, conn: Connection, rows: list[dict[str, Any]]) -> None: ...

    def store_canaries(self, conn: Connection, limit: int) -> tuple[list[str], np.ndarray]:
        """(texts, vectors) of canaries already planted in the store (any tenant)."""
        ...


class Honeypots:
    """Plants and holds each tenant's canaries (cached per process)."""

    def __init__(self, database: Transactions, store: CanaryStore, policy: TrustPolicy, embedder: Embedder) -> None:
        self._database = database
        self._store = store
        self._policy = policy
        self._embedder = embedder
        self._cache: dict[str, tuple[list[str], list[set[str]], np.ndarray]] = {}
        self._recheck: dict[str, float] = {}
        self._lock = threading.Lock()

    def ensure(self, tenants: Iterable[str]) -> None:
        """Plant the canaries of tenants that have none yet."""
        if not self._policy.enabled or self._policy.honeypots == 0:
            return
        for tenant in tenants:
            if tenant in self._cache:
                continue
            ids, _, _ = self.canaries(tenant)
            if ids:
                continue
            texts, vectors = self._texts_and_vectors()
            rows = [
                {
                    "id": canary_id(tenant, number),
                    "tenant": tenant,
                    "text": text,
                    "embedding": np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
                    "created_at": time.time(),
                }
                for number, (text, vector) in enumerate(zip(texts, vectors))
            ]
            with self._database.writer() as conn:
                if not self._store.honeypots(conn, tenant)[0]:
                    self._store.plant_honeypots(conn, rows)
            with self._lock:
                self._cache.pop(tenant, None)

    def _texts_and_vectors(self) -> tuple[list[str], np.ndarray]:
        """The store's canaries, embedded once per store: a new tenant gets copies of those
        already planted, so only a store's first tenant costs the embedder (``honeypots``
        calls; a paid or remote embedder is not billed per tenant). The secret is the same for
        every tenant of a store; canaries are never returned, counted or exported."""
        with self._database.reader() as conn:
            texts, vectors = self._store.store_canaries(conn, self._policy.honeypots)
        if len(texts) == self._policy.honeypots:
            return texts, vectors
        texts = [canary_text() for _ in range(self._policy.honeypots)]
        return texts, embed_texts(self._embedder, texts)

    def canaries(self, tenant: str) -> tuple[list[str], list[set[str]], np.ndarray]:
        """(ids, token sets, unit vectors) of a tenant's canaries."""
        with self._lock:
            cached = self._cache.get(tenant)
            if cached is not None and not cached[0] and time.monotonic() > self._recheck.get(tenant, 0.0):
                cached = None  # none planted when last read: another process may have planted since
        if cached is not None:
            return cached
        with self._database.reader() as conn:
            ids, texts, vectors = self._store.honeypots(conn, tenant)
        if not ids:
            # Cached for a minute (planting here clears it): a tenant without canaries must not
            # cost a query on every search.
            with self._lock:
                self._cache[tenant] = ([], [], vectors)
                self._recheck[tenant] = time.monotonic() + 60.0
            return [], [], vectors
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        entry = (ids, [set(t.split()) for t in texts], (vectors / norms).astype(np.float32))
        with self._lock:
            self._cache[tenant] = entry
        return entry

    def reached(self, tenant: str, query_text: str, query_vector: np.ndarray | None, best_similarity: float | None) -> list[str]:
        """Ids of the canaries this query would retrieve as its best match (empty for an honest
        query): it shares a canary token, or a canary is at least ``honeypot_similarity`` close
        and closer than every real memory."""
        if not self._policy.enabled or self._policy.honeypots == 0 or not query_text:
            return []
        ids, tokens, vectors = self.canaries(tenant)
        if not ids:
            return []
        words = set(query_text.lower().split())
        hit = [i for i, canary in zip(ids, tokens) if words & canary]
        if query_vector is not None and vectors.size and vectors.shape[1] == query_vector.shape[0]:
            similarity = vectors @ (query_vector / (np.linalg.norm(query_vector) or 1.0))
            floor = max(self._policy.honeypot_similarity, best_similarity if best_similarity is not None else 0.0)
            hit.extend(i for i, value in zip(ids, similarity.tolist()) if value >= floor and i not in hit)
        return hit
