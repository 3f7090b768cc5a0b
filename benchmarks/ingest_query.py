#!/usr/bin/env python
"""Ingest throughput and query latency: DeltaCore vs raw Chroma vs numpy brute force.

Every system gets the same synthetic agent memories, the same embedder object and the same
batch size, in one run:

* ``numpy-exact``  embed each batch into a preallocated matrix; query = embed + matrix product +
  ``argpartition`` top-k. The physical limit. Its ingest time *is* the pure embedding time of
  the texts (same embedder, same batches), which the engine-overhead figure is computed from.
* ``chroma-raw``   ``chromadb.PersistentClient`` in a temp dir, cosine HNSW, no embedding
  function; ingest = embed the batch + ``collection.add(ids, embeddings, documents)``;
  query = embed the question + ``collection.query(query_embeddings=..., n_results=k)``.
* ``deltacore``    ``DeltaCore.open(tmpdir, embedder=...)`` (SQLite + embedded Chroma);
  ingest = ``memory.ingest(list_of_dicts)``; query = ``memory.query(text, top_k=k)`` (semantic +
  lexical FTS5 + recency routers, fused) and, on the same store,
  ``deltacore-semantic`` = ``memory.query(text, top_k=k, routers=["semantic"])``.

Query latency always includes embedding the question. Ingest time includes embedding the
stored texts, except with ``--vector-cache`` (below).

Usage (the figures in docs/benchmarks.md come from)::

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False \\
        python benchmarks/ingest_query.py --sizes 10000 100000 --embedders fake minilm

MiniLM embeds roughly 100 short texts/s on a 2-core machine, so by default it only runs at sizes
up to ``--minilm-max-size`` (10 000); raise it to run MiniLM at 100k (about 15 min per system).
``--vector-cache FILE.npz`` embeds the stored texts once (kept in the file for later runs) and
hands every system those vectors, so MiniLM at 100k costs one embedding pass instead of one per
system; questions are still embedded live, so query latency is unchanged, but the ingest
columns then measure the engines without the embedding and are reported as such.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

# numpy's OpenBLAS keeps its idle worker threads spinning for a while after each call. On a
# 2-core machine they then take the cores away from whatever runs next (torch's MiniLM threads,
# Chroma, SQLite): interleaved, a MiniLM query embedding went from ~16 ms to ~125 ms. The
# brute-force matrix-vector product is memory-bound anyway, so give numpy one BLAS thread.
# (Must be set before numpy is imported; torch keeps its own thread pool.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions  # noqa: E402
import _vector_cache as vector_cache  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "ingest_query.json"
DEFAULT_PNG = ROOT / "docs" / "img" / "ingest_query.png"

SYSTEMS = ("numpy-exact", "chroma-raw", "deltacore", "deltacore-semantic", "deltacore-no-belief")
SYSTEM_LABELS = {
    "numpy-exact": "numpy brute force (exact)",
    "chroma-raw": "raw Chroma",
    "deltacore": "DeltaCore (default routers)",
    "deltacore-semantic": 'DeltaCore (routers=["semantic"])',
    "deltacore-no-belief": "DeltaCore without the belief step (ablation)",
}

# --------------------------------------------------------------------------------------------
# Synthetic agent memories
# --------------------------------------------------------------------------------------------

SERVICES = [
    "billing-api", "auth-service", "search-indexer", "payments-gateway", "user-profile", "notification-worker",
    "inventory-db", "checkout-web", "recommendation-engine", "email-sender", "report-generator", "image-resizer",
    "session-cache", "audit-logger", "feature-flags", "order-router", "pricing-engine", "shipping-tracker",
    "fraud-detector", "analytics-pipeline", "ledger-service", "media-cdn", "chat-backend", "geo-locator",
    "tax-calculator", "catalog-sync", "webhook-relay", "rate-limiter", "config-server", "metrics-collector",
    "backup-runner", "identity-broker", "coupon-service", "cart-service", "ml-scorer", "doc-converter",
    "invoice-printer", "sms-gateway", "queue-monitor", "license-checker",
]
USERS = [
    "alice", "bob", "carol", "dmitri", "eve", "farah", "gustavo", "hana", "ivan", "julia", "kenji", "lena",
    "mateo", "nadia", "oscar", "priya", "quentin", "rosa", "samir", "tanya", "ulrich", "valentina", "wei",
    "xavier", "yara", "zoltan", "amara", "bjorn", "chen", "diego", "elif", "fatima", "gregor", "hiro", "ines",
    "jamal", "katarina", "liam", "mei", "noah", "olga", "pedro", "rania", "sven", "tomas", "uma", "viktor",
    "wanda", "yusuf", "zara",
]
AGENTS = ["ops-agent", "support-agent", "coding-agent", "research-agent", "sre-copilot"]
TOOLS = [
    "kubectl", "psql", "git", "terraform", "curl", "grep", "pytest", "docker", "helm", "aws-cli", "gcloud",
    "redis-cli", "jq", "ansible", "npm", "pip", "make", "ssh", "rsync", "prometheus-query", "grafana-api",
    "sentry-api", "jira-api", "slack-api", "github-api", "vault", "openssl", "dig", "tcpdump", "htop",
]
ERRORS = [
    "connection refused", "timeout after 30 seconds", "OOMKilled", "HTTP 503 service unavailable",
    "HTTP 429 too many requests", "certificate expired", "disk quota exceeded", "deadlock detected",
    "null pointer exception", "permission denied", "DNS resolution failed", "schema migration conflict",
    "checksum mismatch", "segmentation fault", "rate limit exceeded", "invalid JSON payload",
    "stale cache entry", "duplicate key violation", "broken pipe", "too many open files",
    "unauthorized token", "replica lag above threshold", "TLS handshake failure", "missing environment variable",
]
REGIONS = ["eu-west-1", "us-east-1", "us-west-2", "ap-south-1", "eu-central-1", "sa-east-1", "ap-northeast-1"]
TOPICS = [
    "refund policy", "password reset", "invoice format", "API pagination", "webhook retries", "data export",
    "two-factor login", "plan upgrade", "GDPR deletion", "billing cycle", "SSO setup", "usage limits",
    "dark mode", "CSV import", "mobile notifications", "audit trail", "team invitations", "custom domains",
]
DATABASES = ["postgres", "redis", "mysql", "mongodb", "elasticsearch", "clickhouse", "sqlite", "cassandra"]
METRICS = ["p99 latency", "error rate", "CPU usage", "memory usage", "queue depth", "request rate", "GC pause"]
FILES = ["config.yaml", "Dockerfile", "main.py", "schema.sql", "values.yaml", "nginx.conf", "Makefile", "app.ts"]
LANGS = ["English", "Spanish", "German", "French", "Japanese", "Portuguese"]
PREFS = [
    "concise answers", "answers in {lang}", "weekly summaries on Monday", "no emails after 6pm",
    "dark mode dashboards", "step-by-step instructions", "links to the runbook", "metric units",
]

# (kind, role, template). Slots: {svc} {svc2} {user} {agent} {tool} {err} {region} {topic} {db}
# {metric} {file} {port} {n} {pct} {ms} {ver} {pref} {ticket} {lang}
TEMPLATES: list[tuple[str, str, str]] = [
    ("fact", "assistant", "The {svc} service listens on port {port} in {region} and talks to {db} for its main storage."),
    ("fact", "assistant", "{svc} version {ver} depends on {svc2}; upgrading one without the other breaks the {topic} flow."),
    ("fact", "user", "{user} is the on-call owner of {svc} this week and prefers to be paged through the {tool} integration."),
    ("fact", "user", "{user} prefers {pref} when asking about {topic}."),
    ("observation", "assistant", "The {metric} of {svc} in {region} rose to {ms} ms at {hour}:{minute} after the deploy of version {ver}."),
    ("observation", "assistant", "Disk usage on the {db} cluster behind {svc} reached {pct} percent; old partitions from {n} days ago can be dropped."),
    ("observation", "assistant", "Error rate of {svc} dropped back to {pct2} percent once {svc2} was restarted in {region}."),
    ("tool_result", "tool", "{tool} against {svc} returned {err} while reading {file} on node {n}."),
    ("tool_result", "tool", "Ran {tool} on the {db} replica for {svc}: {n} rows scanned in {ms} ms, no errors."),
    ("tool_result", "tool", "{tool} reported {err} for {svc2} when {svc} called it from {region} with {n} concurrent requests."),
    ("tool_result", "tool", "Deploy of {svc} {ver} to {region} via {tool} finished in {sec} seconds with {n} pods healthy."),
    ("message", "user", "Can you check why {svc} keeps failing with {err} since this morning? Ticket {ticket} has the logs."),
    ("message", "user", "I need the {topic} documentation for {svc} translated to {lang} before the release on day {n}."),
    ("message", "user", "Please remind me to rotate the {db} credentials of {svc} before they expire in {n} days."),
    ("message", "assistant", "I looked at {svc}: the {err} comes from {svc2}, which is saturated at {pct} percent {metric}."),
    ("message", "assistant", "Summary for {user}: {svc} is stable again, {n} failed jobs were retried and ticket {ticket} is closed."),
    ("outcome", "assistant", "Fixed the {err} in {svc} by raising the pool size to {n} in {file}; {metric} is back to normal within {sec} seconds."),
    ("outcome", "assistant", "Rolled back {svc} from {ver} because {tool} showed {err}; customers in {region} were affected for {sec} seconds."),
    ("outcome", "assistant", "Migrated {svc} from {db} to {db2}; the {topic} endpoints now answer in {ms} ms on average."),
    ("feedback", "user", "That fix for {svc} worked, thanks; next time also post the {tool} output in ticket {ticket}."),
    ("feedback", "user", "The answer about {topic} was wrong: {svc} uses {db}, not {db2}, since version {ver}."),
    ("observation", "assistant", "Nightly job {n} of {svc} skipped {pct} percent of records because {svc2} returned {err}."),
    ("fact", "assistant", "Runbook: when {svc} shows {err}, first run {tool} on {file}, then restart {svc2} in {region}."),
    ("message", "user", "{user} asked whether the {topic} change in {svc} {ver} is live in {region} yet."),
]

QUESTION_TEMPLATES = [
    "Which port does {svc} listen on?",
    "Why does {svc} fail with {err}?",
    "Who is on call for {svc} this week?",
    "What does {user} prefer when asking about {topic}?",
    "What happened to the {metric} of {svc} after the last deploy?",
    "How did we fix the {err} problem last time?",
    "Which database does {svc} use for storage?",
    "What did {tool} report about {svc2}?",
    "Was {svc} rolled back in {region}, and why?",
    "Is the {topic} change live in {region}?",
    "What should I do when {svc} shows {err}?",
    "Which services depend on {svc}?",
    "What did {user} ask about {svc} recently?",
    "How long did the deploy of {svc} take?",
    "When do the {db} credentials of {svc} expire?",
    "Why was {topic} answered wrongly before?",
]


def _slots(rng: random.Random) -> dict[str, Any]:
    svc, svc2 = rng.sample(SERVICES, 2)
    db, db2 = rng.sample(DATABASES, 2)
    lang = rng.choice(LANGS)
    return {
        "svc": svc,
        "svc2": svc2,
        "user": rng.choice(USERS),
        "agent": rng.choice(AGENTS),
        "tool": rng.choice(TOOLS),
        "err": rng.choice(ERRORS),
        "region": rng.choice(REGIONS),
        "topic": rng.choice(TOPICS),
        "db": db,
        "db2": db2,
        "metric": rng.choice(METRICS),
        "file": rng.choice(FILES),
        "port": rng.randint(1024, 65000),
        "n": rng.randint(2, 5000),
        "pct": rng.randint(51, 99),
        "pct2": round(rng.uniform(0.1, 3.0), 1),
        "ms": rng.randint(5, 4000),
        "sec": rng.randint(20, 900),
        "hour": f"{rng.randint(0, 23):02d}",
        "minute": f"{rng.randint(0, 59):02d}",
        "ver": f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
        "ticket": f"OPS-{rng.randint(100, 99999)}",
        "lang": lang,
        "pref": rng.choice(PREFS).format(lang=lang),
    }


def make_memories(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` deterministic agent memories as DeltaCore event dicts (ids e0000000…)."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 6, 8, 0, tzinfo=timezone.utc)
    events = []
    for i in range(n):
        kind, role, template = rng.choice(TEMPLATES)
        slots = _slots(rng)
        text = template.format(**slots)
        agent = AGENTS[(i // 400) % len(AGENTS)]
        user = slots["user"] if role == "user" else USERS[(i // 40) % len(USERS)]
        event = {
                "id": f"e{i:07d}",
                "ts": (start + timedelta(seconds=37 * i)).isoformat(),
                "kind": kind,
                "role": role,
                "actor": user if role == "user" else (slots["tool"] if role == "tool" else agent),
                "text": text,
                "agent_id": agent,
                "user_id": user,
                "session_id": f"s{i // 40:05d}",
                "episode_id": f"ep{i // 8:06d}",  # steps of one task, chained in time order
                "entities": [slots["svc"], slots["svc2"]] if "{svc2}" in template else [slots["svc"]],
        }
        if kind == "tool_result":
            event["tool_name"] = slots["tool"]  # required by DeltaCore for tool results
        events.append(event)
    return events


def embedding_texts(events: list[dict[str, Any]]) -> list[str]:
    """The text each event is embedded from, by DeltaCore's own rule (a tool result's text is
    followed by its tool name), so that every system embeds exactly the same strings. Also
    checks that DeltaCore accepts every event: a rejected event would not be embedded by it."""
    from deltacore.ingest.write_set import embedding_text
    from deltacore.model import Event

    texts = []
    for raw in events:
        try:
            texts.append(embedding_text(Event.model_validate(raw)))
        except Exception as exc:  # noqa: BLE001 - report which event and why, then stop
            raise SystemExit(f"DeltaCore would reject generated event {raw['id']}: {exc}") from exc
    return texts


def make_questions(n: int, seed: int) -> list[str]:
    rng = random.Random(seed + 7919)
    return [rng.choice(QUESTION_TEMPLATES).format(**_slots(rng)) for _ in range(n)]


# --------------------------------------------------------------------------------------------
# Embedders
# --------------------------------------------------------------------------------------------


class TimedEmbedder:
    """Forwards to an embedder and adds up the time spent inside it (the same name, so the
    store sees the same model)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0

    def name(self) -> str:
        from deltacore.embedding import embedder_name

        return embedder_name(self.inner)

    def __call__(self, input: list[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner(input)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(input)

    def reset(self) -> None:
        self.seconds = 0.0
        self.texts = 0


def build_embedder(name: str, torch_threads: int = 1) -> Any:
    if name == "fake":
        from deltacore.testing import FakeEmbedder

        return FakeEmbedder(dimension=384)
    if name == "minilm":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if torch_threads > 0:
            # With 2 intra-op threads on 2 shared cores, torch's OpenMP barriers stall whenever
            # another process holds a core: one query took ~460 ms instead of ~18 ms, a batch
            # of 256 took 4.7 s instead of 2.0 s. One thread is both faster and stable there.
            import torch

            torch.set_num_threads(torch_threads)
        from deltacore.embedding import MiniLMEmbedder

        return MiniLMEmbedder()
    raise SystemExit(f"unknown embedder {name!r}; use fake or minilm")


def embed(embedder: Any, texts: list[str]) -> np.ndarray:
    return np.asarray(embedder(texts), dtype=np.float32)


# --------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------
#
# The machine may be shared (2 cores), so the systems are measured *interleaved*: every ingest
# batch goes to each system in turn (the order rotates from batch to batch), and every question
# is asked of each system in turn (rotating too). A burst of load from another process then hits
# all systems alike instead of whichever happened to run at that moment. ``--sequential`` runs
# the systems one after the other instead.


@dataclass
class Result:
    embedder: str
    size: int
    system: str
    ingest_seconds: float | None = None
    ingest_events_per_s: float | None = None
    ingest_cpu_seconds: float | None = None
    """Process CPU time (all threads) spent in this system's ingest calls."""
    ingest_embed_seconds: float | None = None
    """Wall time spent inside the embedder during this system's ingest (same pass)."""
    query_p50_ms: float | None = None
    query_p95_ms: float | None = None
    query_mean_ms: float | None = None
    query_max_ms: float | None = None
    queries: int = 0
    overlap_at_k: float | None = None
    """Mean fraction of this system's top-k that is in the exact (numpy) top-k."""
    stored: int | None = None
    notes: list[str] = field(default_factory=list)


class Precomputed:
    """The stored texts' vectors from a table, anything else (the questions) from ``inner``;
    the same name, so every store records the real model."""

    def __init__(self, inner: Any, table: dict[str, np.ndarray]) -> None:
        self.inner = inner
        self.table = table

    def name(self) -> str:
        from deltacore.embedding import embedder_name

        return embedder_name(self.inner)

    def __call__(self, input: list[str]) -> np.ndarray:
        missing = [text for text in input if text not in self.table]
        fresh = dict(zip(missing, embed(self.inner, missing))) if missing else {}
        return np.stack([self.table[text] if text in self.table else fresh[text] for text in input])


def cached_vectors(embedder: Any, label: str, texts: list[str], path: Path) -> dict[str, np.ndarray]:
    """Vectors of ``texts``, from ``path`` (an .npz per embedder label, ``_vector_cache``'s
    format) where present, the rest embedded now in batches and saved back."""
    from deltacore.embedding import embedder_name

    file = path.with_name(f"{path.stem}-{label}{path.suffix or '.npz'}")
    table = vector_cache.load(file, embedder_name(embedder))
    missing = list(dict.fromkeys(t for t in texts if t not in table))
    for start in tqdm(range(0, len(missing), 256), desc=f"{label} embedding {len(missing):,} texts once", unit="batch"):
        chunk = missing[start : start + 256]
        table.update(zip(chunk, embed(embedder, chunk)))
    if missing:
        vector_cache.save(file, embedder_name(embedder), table)
    return table


class System:
    """One contender: ``ingest(batch)``, ``query(text) -> ids``, ``close()``."""

    name = ""

    def __init__(self, embedder: Any) -> None:
        self.timed = TimedEmbedder(embedder)

    def ingest(self, chunk: Sequence[dict[str, Any]], texts: list[str]) -> None:
        """Store ``chunk``; ``texts`` are the strings to embed (DeltaCore derives them itself)."""
        raise NotImplementedError

    def finish_ingest(self) -> None:
        """Called once after the last batch, outside the timing."""

    def query(self, text: str) -> list[str]:
        raise NotImplementedError

    def stored(self) -> int:
        raise NotImplementedError

    def close(self) -> None:
        pass


class NumpyExact(System):
    """Embed into a preallocated matrix; exact top-k. Its ingest time is the pure embedding time."""

    name = "numpy-exact"

    def __init__(self, embedder: Any, size: int, k: int) -> None:
        super().__init__(embedder)
        self.embedder = embedder
        self.size = size
        self.k = k
        self.ids: list[str] = []
        self.matrix: np.ndarray | None = None

    def ingest(self, chunk: Sequence[dict[str, Any]], texts: list[str]) -> None:
        vectors = embed(self.timed, texts)
        if self.matrix is None:
            self.matrix = np.empty((self.size, vectors.shape[1]), dtype=np.float32)
        start = len(self.ids)
        self.matrix[start : start + len(chunk)] = vectors
        self.ids.extend(e["id"] for e in chunk)

    def finish_ingest(self) -> None:
        assert self.matrix is not None
        self.matrix = self.matrix[: len(self.ids)]
        # Both embedders return unit vectors; normalise anyway so the dot product is the cosine.
        norms = np.linalg.norm(self.matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self.matrix /= norms

    def query(self, text: str) -> list[str]:
        assert self.matrix is not None
        vector = embed(self.embedder, [text])[0]
        vector = vector / (np.linalg.norm(vector) or 1.0)
        scores = self.matrix @ vector
        top = np.argpartition(-scores, self.k)[: self.k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.ids[i] for i in top]

    def stored(self) -> int:
        return len(self.ids)

    def close(self) -> None:
        self.matrix = None


class ChromaRaw(System):
    """chromadb.PersistentClient, cosine HNSW, vectors from the same embedder."""

    name = "chroma-raw"

    def __init__(self, embedder: Any, folder: Path, k: int) -> None:
        import chromadb
        from chromadb.config import Settings

        super().__init__(embedder)
        self.embedder = embedder
        self.k = k
        self.client = chromadb.PersistentClient(path=str(folder), settings=Settings(anonymized_telemetry=False))
        # Same index settings as DeltaCore's collections (cosine HNSW, no embedding function).
        self.collection = self.client.create_collection(
            "bench", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )

    def ingest(self, chunk: Sequence[dict[str, Any]], texts: list[str]) -> None:
        vectors = embed(self.timed, texts)
        self.collection.add(ids=[e["id"] for e in chunk], embeddings=vectors, documents=[e["text"] for e in chunk])

    def query(self, text: str) -> list[str]:
        found = self.collection.query(query_embeddings=embed(self.embedder, [text]), n_results=self.k)
        return list(found["ids"][0])

    def stored(self) -> int:
        return int(self.collection.count())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.clear_system_cache()
        self.collection = None
        self.client = None


class DeltaCoreSystem(System):
    """DeltaCore embedded default (SQLite + embedded Chroma), batches through ``ingest``."""

    name = "deltacore"

    def __init__(self, embedder: Any, folder: Path, k: int) -> None:
        from deltacore import DeltaCore

        super().__init__(embedder)
        self.k = k
        self.memory = DeltaCore.open(folder, embedder=self.timed)
        self.count = 0
        self.notes: list[str] = []

    def ingest(self, chunk: Sequence[dict[str, Any]], texts: list[str]) -> None:
        outcome = self.memory.ingest(list(chunk))
        # Vector writes run in the background by default: without waiting for them the timed
        # section is the acknowledgement alone, and the embedding lands in whichever system's
        # chunk runs next. Timed here: until the chunk is searchable, as for the other systems.
        self.memory.apply_outbox()
        self.count += len(outcome.stored)
        if outcome.rejected and len(self.notes) < 5:
            self.notes.append(f"rejected: {outcome.rejected[0]}")

    def finish_ingest(self) -> None:
        stats = self.memory.stats()
        if stats.vectors != self.count or stats.outbox_pending:
            self.notes.append(f"vectors={stats.vectors} outbox_pending={stats.outbox_pending}")

    def query(self, text: str) -> list[str]:
        return [packet.id for packet in self.memory.query(text, top_k=self.k)]

    def query_semantic(self, text: str) -> list[str]:
        return [packet.id for packet in self.memory.query(text, top_k=self.k, routers=["semantic"])]

    def stored(self) -> int:
        return self.count

    def close(self) -> None:
        self.memory.close()
        with contextlib.suppress(Exception):
            import chromadb

            chromadb.api.client.SharedSystemClient.clear_system_cache()


class DeltaCoreNoBelief(DeltaCoreSystem):
    """An ablation, not a product configuration: the same store with the belief layer's write
    step made a no-op, so the belief layer's share of the ingest time is measured in the same
    interleaved run (``belief_overhead_pct``)."""

    name = "deltacore-no-belief"

    def __init__(self, embedder: Any, folder: Path, k: int) -> None:
        super().__init__(embedder, folder, k)
        self.memory._beliefs.update = lambda conn, stored_ids: 0  # noqa: SLF001 - the ablation itself


def batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def rotated(items: list[Any], step: int) -> list[Any]:
    shift = step % len(items)
    return items[shift:] + items[:shift]


def overlap(answers: list[list[str]], exact: list[list[str]] | None, k: int) -> float | None:
    if exact is None:
        return None
    return float(np.mean([len(set(a[:k]) & set(e[:k])) / k for a, e in zip(answers, exact)]))


def run_case(
    label: str, embedder: Any, events: list[dict], texts: list[str], questions: list[str], warmups: list[str],
    workdir: Path, args: argparse.Namespace,
) -> tuple[list[Result], dict[str, Any]]:
    """All systems on one (embedder, size): interleaved ingest, then interleaved queries."""
    k = args.top_k
    case = Path(tempfile.mkdtemp(prefix=f"{label}-{len(events)}-", dir=workdir))
    systems: list[System] = [NumpyExact(embedder, len(events), k)]
    if "chroma-raw" in args.systems:
        systems.append(ChromaRaw(embedder, case / "chroma-raw", k))
    if "deltacore" in args.systems:
        systems.append(DeltaCoreSystem(embedder, case / "deltacore", k))
    if "deltacore-no-belief" in args.systems:
        systems.append(DeltaCoreNoBelief(embedder, case / "deltacore-no-belief", k))
    wall = {s.name: 0.0 for s in systems}
    cpu = {s.name: 0.0 for s in systems}
    load: list[float] = []
    try:
        # ---- ingest ----
        chunks = list(zip(batches(events, args.batch_size), batches(texts, args.batch_size)))
        gc.collect()

        def ingest_one(system: System, chunk: tuple[Sequence[dict[str, Any]], Sequence[str]]) -> None:
            chunk_events, chunk_texts = chunk
            c0, t0 = time.process_time(), time.perf_counter()
            system.ingest(chunk_events, chunk_texts)  # type: ignore[arg-type]
            wall[system.name] += time.perf_counter() - t0
            cpu[system.name] += time.process_time() - c0

        if args.sequential:
            for system in systems:
                for chunk in tqdm(chunks, desc=f"{label}/{len(events):,} ingest {system.name}", unit="batch", leave=False):
                    ingest_one(system, chunk)
        else:
            for b, chunk in enumerate(tqdm(chunks, desc=f"{label}/{len(events):,} ingest", unit="batch", leave=False)):
                for system in rotated(systems, b):
                    ingest_one(system, chunk)
                if b % 20 == 0 and (value := loadavg()) is not None:
                    load.append(value)
        # Snapshot the embedder time now: DeltaCore embeds its queries with the same object.
        ingest_embed = {s.name: s.timed.seconds for s in systems}
        for system in systems:
            system.finish_ingest()

        # ---- queries ----
        # (name, callable); DeltaCore is queried twice: default routers and semantic only.
        runners: list[tuple[str, Callable[[str], list[str]]]] = []
        for system in systems:
            runners.append((system.name, system.query))
            if type(system) is DeltaCoreSystem:
                runners.append(("deltacore-semantic", system.query_semantic))
        for _, run in runners:
            for question in warmups:
                run(question)
        latencies: dict[str, list[float]] = {name: [] for name, _ in runners}
        answers: dict[str, list[list[str]]] = {name: [] for name, _ in runners}

        def ask(name: str, run: Callable[[str], list[str]], question: str) -> None:
            t0 = time.perf_counter()
            ids = run(question)
            latencies[name].append((time.perf_counter() - t0) * 1000.0)
            answers[name].append(ids)

        gc.collect()
        if args.sequential:
            for name, run in runners:
                for question in tqdm(questions, desc=f"{label}/{len(events):,} query {name}", unit="q", leave=False):
                    ask(name, run, question)
        else:
            for q, question in enumerate(tqdm(questions, desc=f"{label}/{len(events):,} query", unit="q", leave=False)):
                for name, run in rotated(runners, q):
                    ask(name, run, question)
                if q % 20 == 0 and (value := loadavg()) is not None:
                    load.append(value)

        # ---- results ----
        results = []
        exact = answers["numpy-exact"]
        by_name = {s.name: s for s in systems}
        for name, _ in runners:
            system = by_name.get(name)
            result = Result(label, len(events), name)
            if system is not None:
                result.ingest_seconds = wall[name]
                result.ingest_cpu_seconds = cpu[name]
                result.ingest_events_per_s = len(events) / wall[name]
                result.ingest_embed_seconds = ingest_embed[name]
                result.stored = system.stored()
                if result.stored != len(events):
                    result.notes.append(f"only {result.stored} of {len(events)} stored")
                    print(f"WARNING: {name} stored {result.stored} of {len(events)} events", file=sys.stderr)
                result.notes.extend(getattr(system, "notes", []))
            else:
                result.notes.append("same store as the deltacore row; ingest is that row's")
            values = np.asarray(latencies[name])
            result.query_p50_ms = float(np.percentile(values, 50))
            result.query_p95_ms = float(np.percentile(values, 95))
            result.query_mean_ms = float(values.mean())
            result.query_max_ms = float(values.max())
            result.queries = len(values)
            result.overlap_at_k = overlap(answers[name], exact, k)
            results.append(result)
        info = {
            "embedder": label,
            "size": len(events),
            "loadavg_min": min(load) if load else None,
            "loadavg_max": max(load) if load else None,
            "loadavg_mean": round(float(np.mean(load)), 2) if load else None,
        }
        return results, info
    finally:
        for system in systems:
            with contextlib.suppress(Exception):
                system.close()
        del systems
        gc.collect()
        if not args.keep:
            shutil.rmtree(case, ignore_errors=True)



# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def by_key(results: list[Result]) -> dict[tuple[str, int, str], Result]:
    return {(r.embedder, r.size, r.system): r for r in results}


def ingest_source(result: Result, index: dict[tuple[str, int, str], Result]) -> Result:
    """deltacore-semantic shares the deltacore store: its ingest figures are those."""
    if result.system == "deltacore-semantic":
        return index.get((result.embedder, result.size, "deltacore"), result)
    return result


def markdown_table(results: list[Result]) -> str:
    index = by_key(results)
    lines = [
        "| embedder | memories | system | ingest (events/s) | ingest vs Chroma | query p50 (ms) | query p95 (ms) "
        "| p95 vs Chroma | top-10 overlap with exact |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        chroma = index.get((r.embedder, r.size, "chroma-raw"))
        ingest = ingest_source(r, index)
        ingest_ratio = (
            ingest.ingest_events_per_s / chroma.ingest_events_per_s
            if chroma and ingest.ingest_events_per_s and chroma.ingest_events_per_s
            else None
        )
        p95_ratio = r.query_p95_ms / chroma.query_p95_ms if chroma and r.query_p95_ms and chroma.query_p95_ms else None
        eps = _fmt(ingest.ingest_events_per_s, ",.0f")
        if r.system == "deltacore-semantic":
            eps = f"({eps}, same store)"
        lines.append(
            f"| {r.embedder} | {r.size:,} | {SYSTEM_LABELS[r.system]} | {eps} | "
            f"{_fmt(ingest_ratio, '.2f')}× | {_fmt(r.query_p50_ms, '.2f')} | {_fmt(r.query_p95_ms, '.2f')} | "
            f"{_fmt(p95_ratio, '.2f')}× | {_fmt(r.overlap_at_k, '.2f')} |"
        )
    return "\n".join(lines)


def derived_targets(results: list[Result], args: argparse.Namespace) -> dict[str, Any]:
    index = by_key(results)
    targets: dict[str, Any] = {}
    # 1. Engine overhead on ingest, MiniLM: (DeltaCore ingest - pure embedding) / pure embedding.
    overhead = []
    for r in results:
        if r.system != "deltacore" or r.ingest_seconds is None:
            continue
        pure = index.get((r.embedder, r.size, "numpy-exact"))
        chroma = index.get((r.embedder, r.size, "chroma-raw"))
        if pure is None or not pure.ingest_seconds:
            continue
        entry = {
            "embedder": r.embedder,
            "size": r.size,
            "deltacore_ingest_s": r.ingest_seconds,
            "pure_embedding_s": pure.ingest_seconds,
            "overhead_pct": 100.0 * (r.ingest_seconds - pure.ingest_seconds) / pure.ingest_seconds,
            # Cross-check: the embedder time measured inside the same DeltaCore pass.
            "embed_s_inside_deltacore": r.ingest_embed_seconds,
            "overhead_pct_same_pass": (
                100.0 * (r.ingest_seconds - r.ingest_embed_seconds) / r.ingest_embed_seconds
                if r.ingest_embed_seconds
                else None
            ),
            "non_embedding_ms_per_event": 1000.0 * (r.ingest_seconds - (r.ingest_embed_seconds or 0.0)) / r.size,
            # Robustness check on a shared machine: CPU time instead of wall time.
            "overhead_pct_cpu": (
                100.0 * (r.ingest_cpu_seconds - pure.ingest_cpu_seconds) / pure.ingest_cpu_seconds
                if r.ingest_cpu_seconds and pure.ingest_cpu_seconds
                else None
            ),
        }
        ablation = index.get((r.embedder, r.size, "deltacore-no-belief"))
        if ablation is not None and ablation.ingest_seconds:
            # What the belief step adds, against the same embedding time (same interleaved run).
            entry["no_belief_overhead_pct"] = 100.0 * (ablation.ingest_seconds - pure.ingest_seconds) / pure.ingest_seconds
            entry["belief_overhead_pct"] = 100.0 * (r.ingest_seconds - ablation.ingest_seconds) / pure.ingest_seconds
        if chroma is not None and chroma.ingest_seconds:
            entry["chroma_overhead_pct"] = 100.0 * (chroma.ingest_seconds - pure.ingest_seconds) / pure.ingest_seconds
            entry["chroma_overhead_pct_cpu"] = (
                100.0 * (chroma.ingest_cpu_seconds - pure.ingest_cpu_seconds) / pure.ingest_cpu_seconds
                if chroma.ingest_cpu_seconds and pure.ingest_cpu_seconds
                else None
            )
            entry["chroma_non_embedding_ms_per_event"] = (
                1000.0 * (chroma.ingest_seconds - (chroma.ingest_embed_seconds or 0.0)) / chroma.size
            )
        overhead.append(entry)
    if getattr(args, "vector_cache", None) is not None:
        # The systems did not embed the stored texts: there is no embedding time to compare with.
        overhead = []
        targets["ingest_overhead_note"] = "not measured: stored vectors precomputed (--vector-cache)"
    targets["ingest_overhead"] = overhead
    minilm = [e for e in overhead if e["embedder"] == "minilm"]
    if minilm:
        worst = max(minilm, key=lambda e: e["overhead_pct"])
        targets["ingest_overhead_minilm_pct"] = worst["overhead_pct"]
        targets["ingest_overhead_minilm_size"] = worst["size"]
        targets["ingest_overhead_target_pct"] = 15.0
        targets["ingest_overhead_pass"] = worst["overhead_pct"] <= 15.0
    # 2. Query p95 DeltaCore / raw Chroma at the largest size measured (target: 100k).
    ratios = []
    for r in results:
        if r.system not in ("deltacore", "deltacore-semantic"):
            continue
        chroma = index.get((r.embedder, r.size, "chroma-raw"))
        if chroma and chroma.query_p95_ms and r.query_p95_ms:
            ratios.append(
                {
                    "embedder": r.embedder,
                    "size": r.size,
                    "system": r.system,
                    "deltacore_p95_ms": r.query_p95_ms,
                    "chroma_p95_ms": chroma.query_p95_ms,
                    "ratio": r.query_p95_ms / chroma.query_p95_ms,
                }
            )
    targets["query_p95_ratios"] = ratios
    at_100k = [e for e in ratios if e["size"] == 100_000 and e["system"] == "deltacore"]
    if at_100k:
        worst = max(at_100k, key=lambda e: e["ratio"])
        targets["query_p95_ratio_100k"] = worst["ratio"]
        targets["query_p95_ratio_100k_embedder"] = worst["embedder"]
        targets["query_p95_ratio_target"] = 2.0
        targets["query_p95_ratio_pass"] = worst["ratio"] <= 2.0
    return targets


def draw_chart(results: list[Result], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    index = by_key(results)
    groups = sorted({(r.embedder, r.size) for r in results}, key=lambda g: (g[0] != "fake", g[1]))
    colors = {"numpy-exact": "#9e9e9e", "chroma-raw": "#f0a030", "deltacore": "#2b6cb0", "deltacore-semantic": "#63b3ed",
              "deltacore-no-belief": "#805ad5"}
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2))
    width = 0.2
    x = np.arange(len(groups))
    for panel, metric in ((left, "ingest"), (right, "p95")):
        systems = [s for s in SYSTEMS if not (metric == "ingest" and s == "deltacore-semantic")]
        offset0 = -(len(systems) - 1) / 2
        for j, system in enumerate(systems):
            values = []
            for embedder, size in groups:
                r = index.get((embedder, size, system))
                if r is None:
                    values.append(np.nan)
                elif metric == "ingest":
                    values.append(r.ingest_events_per_s or np.nan)
                else:
                    values.append(r.query_p95_ms or np.nan)
            positions = x + (offset0 + j) * width
            bars = panel.bar(positions, values, width, label=SYSTEM_LABELS[system], color=colors[system])
            for bar, value in zip(bars, values):
                if np.isfinite(value):
                    text = f"{value:,.0f}" if value >= 100 else f"{value:.1f}"
                    panel.annotate(
                        text, (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom", fontsize=7, rotation=90,
                        xytext=(0, 2), textcoords="offset points",
                    )
        panel.set_xticks(x, [f"{e}\n{s:,} memories" for e, s in groups])
        panel.set_yscale("log")
        panel.grid(axis="y", which="both", alpha=0.3)
        panel.margins(y=0.25)
    left.set_title("Ingest throughput (events/s, higher is better, log scale)")
    right.set_title("Query latency p95 (ms, lower is better, log scale)")
    right.legend(fontsize=8, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="memories per store")
    parser.add_argument("--embedders", nargs="+", default=["fake", "minilm"], choices=["fake", "minilm"])
    parser.add_argument(
        "--minilm-max-size", type=int, default=10_000, help="skip MiniLM above this size (default 10000)"
    )
    parser.add_argument("--queries", type=int, default=200, help="timed queries per system (default 200)")
    parser.add_argument(
        "--torch-threads", type=int, default=1,
        help="torch intra-op threads for MiniLM (default 1: stable on a shared 2-core machine; 0 = torch's default)",
    )
    parser.add_argument("--warmup", type=int, default=5, help="untimed queries first (default 5)")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=256, help="events per ingest call (default 256)")
    parser.add_argument("--seed", type=int, default=20250106)
    parser.add_argument(
        "--systems", nargs="+", default=["numpy-exact", "chroma-raw", "deltacore"],
        choices=["numpy-exact", "chroma-raw", "deltacore", "deltacore-no-belief"],
        help="numpy-exact is always included: it gives the pure embedding time and the exact top-k",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where temp stores go (default: system temp)")
    parser.add_argument(
        "--vector-cache",
        type=Path,
        default=None,
        help="embed the stored texts once into this .npz (per embedder) and give every system those "
        "vectors; questions are still embedded live. Ingest columns then exclude embedding.",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp stores")
    parser.add_argument(
        "--sequential", action="store_true",
        help="run the systems one after another instead of interleaving batches and questions",
    )
    parser.add_argument("--out-json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--out-png", type=Path, default=DEFAULT_PNG, help="chart path ('' to skip)")
    parser.add_argument(
        "--from-json", type=Path, default=None,
        help="measure nothing: print the table and redraw the chart from a JSON this script wrote",
    )
    parser.add_argument(
        "--telemetry", action="store_true",
        help="measure instead what OpenTelemetry spans and metrics (SDK, in-memory exporter) cost: "
        "DeltaCore only, telemetry on and off interleaved, at the first --sizes (benchmarks/_telemetry_overhead.py)",
    )
    parser.add_argument("--telemetry-json", type=Path, default=ROOT / "benchmarks" / "results" / "telemetry_overhead.json")
    args = parser.parse_args(argv)
    if "numpy-exact" not in args.systems:
        args.systems.insert(0, "numpy-exact")
    return args


def chart_title(report: dict[str, Any]) -> str:
    settings, code = report["settings"], report.get("code", {})
    commit = (code.get("commit") or "")[:10]
    return (
        f"DeltaCore {commit} vs raw Chroma vs numpy — {report['machine']['cpus']} cores, "
        f"batch {settings['batch_size']}, top-{settings['top_k']}, {settings['queries']} queries"
    )


def replay(path: Path, out_png: Path) -> int:
    report = json.loads(path.read_text())
    results = [Result(**row) for row in report["results"]]
    print(markdown_table(results))
    if str(out_png) not in ("", "."):
        draw_chart(results, out_png, chart_title(report))
        print(f"\nwrote {out_png}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json is not None:
        return replay(args.from_json, args.out_png)
    if args.telemetry:
        import _telemetry_overhead

        provenance = {"command": command_line("benchmarks/ingest_query.py", sys.argv[1:]), "machine": machine(),
                      "versions": versions(), "code": code_version()}
        return _telemetry_overhead.run(args, make_memories, make_questions, build_embedder, loadavg, provenance)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    workdir = Path(tempfile.mkdtemp(prefix="dc-bench-", dir=args.workdir))
    script = Path(sys.argv[0]).resolve()
    script_name = str(script.relative_to(ROOT)) if script.is_relative_to(ROOT) else sys.argv[0]
    command = command_line(script_name, sys.argv[1:])
    plan = [
        (embedder, size)
        for embedder in args.embedders
        for size in sorted(args.sizes)
        if not (embedder == "minilm" and size > args.minilm_max_size)
    ]
    skipped = [
        (embedder, size) for embedder in args.embedders for size in sorted(args.sizes) if (embedder, size) not in plan
    ]
    for embedder, size in skipped:
        print(f"skipping {embedder} at {size:,} (above --minilm-max-size {args.minilm_max_size:,})", file=sys.stderr)
    # Import the engine now, so the whole run measures the code as it was at the start.
    import deltacore  # noqa: F401
    from deltacore import DeltaCore  # noqa: F401

    code = code_version()
    questions = make_questions(args.queries, args.seed)
    warmups = make_questions(args.warmup, args.seed + 1)
    results: list[Result] = []
    load_info: list[dict[str, Any]] = []
    started = time.time()
    try:
        for label in args.embedders:
            sizes = [size for embedder, size in plan if embedder == label]
            if not sizes:
                continue
            embedder = build_embedder(label, args.torch_threads)
            embed(embedder, ["load the model before anything is timed"])  # MiniLM loads lazily
            for size in sizes:
                events = make_memories(size, args.seed)
                texts = embedding_texts(events)
                print(f"== {label} embedder, {size:,} memories", file=sys.stderr)
                system_embedder = embedder
                if args.vector_cache is not None:
                    system_embedder = Precomputed(embedder, cached_vectors(embedder, label, texts, args.vector_cache))
                case_results, info = run_case(label, system_embedder, events, texts, questions, warmups, workdir, args)
                info["stored_vectors_precomputed"] = args.vector_cache is not None
                if args.vector_cache is not None:
                    for r in case_results:
                        r.notes.append("stored texts' vectors precomputed: ingest excludes embedding")
                results.extend(case_results)
                load_info.append(info)
                for r in case_results:
                    print(
                        f"   {r.system:<20} {_fmt(r.ingest_events_per_s, ',.0f'):>8} ev/s   "
                        f"p50 {r.query_p50_ms:8.2f} ms   p95 {r.query_p95_ms:8.2f} ms",
                        file=sys.stderr,
                    )
                del events
            del embedder
            gc.collect()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    targets = derived_targets(results, args)
    table = markdown_table(results)
    report = {
        "benchmark": "ingest_query",
        "command": command,
        "started_utc": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(time.time() - started, 1),
        "machine": machine(),
        "versions": versions(),
        "code": code,
        "settings": {
            "sizes": sorted(args.sizes),
            "embedders": args.embedders,
            "minilm_max_size": args.minilm_max_size,
            "skipped": [{"embedder": e, "size": s} for e, s in skipped],
            "queries": args.queries,
            "warmup": args.warmup,
            "top_k": args.top_k,
            "batch_size": args.batch_size,
            "seed": args.seed,
            "interleaved": not args.sequential,
            "torch_threads": args.torch_threads,
            "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        },
        "loadavg": load_info,
        "results": [asdict(r) for r in results],
        "targets": targets,
        "table_markdown": table,
    }
    args.out_json.parent.mkdir(parents=True, exist_ok=True)
    args.out_json.write_text(json.dumps(report, indent=2))
    if str(args.out_png) not in ("", "."):
        draw_chart(results, args.out_png, chart_title(report))
    print()
    print(table)
    print()
    for entry in targets.get("ingest_overhead", []):
        print(
            f"ingest overhead {entry['embedder']} {entry['size']:,}: {entry['overhead_pct']:.1f}% of pure embedding "
            f"(same pass: {_fmt(entry['overhead_pct_same_pass'], '.1f')}%; CPU time: {_fmt(entry['overhead_pct_cpu'], '.1f')}%; "
            f"raw Chroma: {_fmt(entry.get('chroma_overhead_pct'), '.1f')}%; "
            f"without the belief step: {_fmt(entry.get('no_belief_overhead_pct'), '.1f')}%, "
            f"the belief step's share: {_fmt(entry.get('belief_overhead_pct'), '.1f')}%)"
        )
    if "ingest_overhead_pass" in targets:
        print(
            f"TARGET ingest overhead (MiniLM) <= 15%: {targets['ingest_overhead_minilm_pct']:.1f}% -> "
            f"{'PASS' if targets['ingest_overhead_pass'] else 'FAIL'}"
        )
    if "query_p95_ratio_pass" in targets:
        print(
            f"TARGET query p95 at 100k DeltaCore/raw Chroma <= 2x: {targets['query_p95_ratio_100k']:.2f}x "
            f"({targets['query_p95_ratio_100k_embedder']}) -> {'PASS' if targets['query_p95_ratio_pass'] else 'FAIL'}"
        )
    print(f"\nwrote {args.out_json}" + (f" and {args.out_png}" if str(args.out_png) not in ("", ".") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
