"""How a DeltaCore store is opened: one explicit config object, nothing read at import time."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from deltacore.errors import ConfigurationError, first_validation_error
from deltacore.belief_policy import BeliefPolicy
from deltacore.governor_policy import GovernorPolicy, MemoryBudget, TelemetryPolicy
from deltacore.trust_policy import TrustPolicy

DEFAULT_HALF_LIFE_HOURS = 24 * 30
MAX_FIELD_CHARS = 50_000_000
"""The highest per-field size limit a config may set: the write path holds a whole event in memory."""


class ConsolidationPolicy(BaseModel):
    """How sleep-cycle consolidation (Layer 5, ``DeltaCore.consolidate``) merges, archives and
    decides whether a cycle is kept. A dict is accepted where a config takes it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    automatic: bool = False
    """Run cycles by themselves, on a thread of their own, when a trigger fires (never on a
    read-only open)."""
    trigger_events: int = Field(default=1000, ge=1)
    """A cycle is due after this many new events in a tenant since its last cycle."""
    trigger_minutes: float = Field(default=60.0, gt=0)
    """…or this many minutes after the last cycle, when anything was written since."""
    trigger_utility_variance: float | None = Field(default=0.01, ge=0.0)
    """…or the signed utility steps learned since the last cycle vary by more than this (outcomes
    pulling memories up and down); ``None`` turns this trigger off."""
    trigger_utility_min_updates: int = Field(default=20, ge=2)
    """The utility-variance trigger judges only this many utility updates or more."""
    trigger_miss_rate: float | None = Field(default=0.5, ge=0.0, le=1.0)
    """…or more than this share of the queries asked since the last cycle returned nothing (this
    process's queries); ``None`` turns this trigger off."""
    trigger_miss_min_queries: int = Field(default=20, ge=1)
    """The miss-rate trigger judges only this many queries or more."""
    trigger_on_shift: bool = True
    """…or the belief layer logged a distribution shift (E07) for the tenant since the last cycle."""
    check_seconds: float = Field(default=30.0, gt=0)
    """How often the automatic thread looks at the triggers."""
    merge_threshold: float = Field(default=0.85, ge=-1.0, le=1.0)
    """Cosine similarity above which two memories of one scope and kind are near-duplicates."""
    max_merge: int = Field(default=16, ge=2)
    """At most this many originals in one merged memory."""
    max_depth: int = Field(default=3, ge=1)
    """Compression depth limit (E08): a merged memory at this depth is never merged again."""
    fidelity_floor: float = Field(default=0.7, ge=0.0, le=1.0)
    """A merged memory stands for an original only when their cosine reaches this; under it the
    fidelity audit flags it and the shadow evaluation gives it no credit. A schema whose
    fidelity to its surviving episodes is under it is reported too."""
    schema_min_episodes: int = Field(default=2, ge=1)
    """A plan pattern becomes a schema in a cycle once this many episodes made it."""
    prune_utility: float = Field(default=0.05, ge=0.0)
    """A memory whose (decayed) utility is under this…"""
    prune_after_days: float = Field(default=30.0, ge=0.0)
    """…and that was neither written nor retrieved for this many days moves to COLD."""
    anchor_fraction: float = Field(default=0.01, ge=0.0, le=1.0)
    """This share of raw events (chosen by id hash) is never merged away nor archived."""
    regression_tolerance: float = Field(default=0.05, ge=0.0, le=1.0)
    """A cycle whose probe precision@5 falls by more than this share is rolled back."""
    probe_limit: int = Field(default=50, ge=0)
    """How many recent retrieval-log queries the shadow evaluation replays."""
    yield_to_queries: bool = True
    """A cycle steps aside for this process's user queries: before each of its small steps (one
    probe query of the gate, a slice of planning, one short apply transaction) it waits while a
    ``query`` is in flight (``deltacore.consolidation.pacing``). ``False`` runs it flat out."""
    yield_wait_seconds: float = Field(default=0.5, ge=0.0)
    """…but a step waits at most this long, then runs anyway: under queries that never pause, a
    cycle still finishes, one step per this many seconds at the slowest."""
    yield_total_seconds: float = Field(default=120.0, ge=0.0)
    """…and a cycle waits at most this long in all; past it, it runs its steps without waiting."""
    cold_path: Path | None = None
    """Folder of the COLD tier's Parquet partitions; ``None`` = ``<path>/cold``."""


class DeltaCoreConfig(BaseModel):
    """Where the store lives and how it behaves.

    Embedded default: give only ``path``; SQLite (WAL) and an embedded Chroma live in it.
    Scale-out: give ``database_url`` (PostgreSQL) and ``chroma_url`` (a ``chroma run`` server);
    any number of processes on any number of machines can then share the deployment.

    >>> DeltaCoreConfig(path="/srv/agent-memory").sql_url
    'sqlite:////srv/agent-memory/deltacore.db'
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, extra="forbid")

    path: Path = Path("deltacore_data")
    """Folder of the embedded store (SQLite file, embedded Chroma, lock files)."""
    database_url: str | None = None
    """SQLAlchemy URL of the source of truth, e.g. ``postgresql+psycopg://user@host/db``.
    ``None`` = SQLite in ``path``."""
    chroma_url: str | None = None
    """URL of a Chroma server (``http://host:port``). ``None`` = embedded Chroma in ``path``."""
    chroma_server_path: Path | None = None
    """The Chroma server's ``--path`` when it is on this machine: ``forget`` then also removes the
    segment folders of collections it deleted and vacuums the server's SQLite file (a client
    cannot; ``docs/compliance.md``). ``None`` = the server's files are left to it."""
    collection_prefix: str = Field(default="deltacore", pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$")
    """Prefix of the Chroma collections, so several stores can share one Chroma server."""
    embedder: Any = None
    """A callable from a list of texts to vectors. ``None`` = local MiniLM (``local`` extra)."""
    max_text_chars: int = Field(default=100_000, ge=1, le=MAX_FIELD_CHARS)
    """Events with longer text are rejected (split them before ingesting)."""
    max_tool_args_chars: int = Field(default=1_000_000, ge=1, le=MAX_FIELD_CHARS)
    """How many characters of strings and keys an event's ``tool_args`` may hold; larger ones
    are rejected with this setting's name (the gateway reads them, in time linear in their size)."""
    max_meta_chars: int = Field(default=1_000_000, ge=1, le=MAX_FIELD_CHARS)
    """How many characters of strings and keys an event's ``meta`` may hold."""
    read_only: bool = False
    """Open for reading only: nothing is written to the store's files or database (no schema
    setup, no outbox drain, no vector-index lock); every write raises ``ReadOnlyStoreError``.
    Semantic search on an embedded store then scans the vectors kept in SQL."""
    utility_half_life_hours: float = Field(default=DEFAULT_HALF_LIFE_HOURS, gt=0)
    """Utility decays as ``utility * exp(-λ·age_hours)`` with ``λ = ln 2 / half_life``."""
    multi_process: Literal["coordinate", "refuse"] = "coordinate"
    """Embedded Chroma is single-writer. ``coordinate``: the first process owns vector writes,
    others write SQL and leave vectors in the outbox for it. ``refuse``: a second process fails."""
    candidate_pool: int = Field(default=50, ge=1)
    """How many candidates each router hands to fusion."""
    reranker: Any = None
    """Optional re-ranking stage: an object with ``rerank(query, packets) -> packets`` that
    reorders the best ``rerank_depth`` candidates (``deltacore.retrieval.rerank``)."""
    rerank_depth: int = Field(default=50, ge=1)
    """How many fused candidates the re-ranker sees."""
    router_threads: int = Field(default=1, ge=0)
    """With 2 or more, the routers of one query stage run concurrently on up to this many
    threads, each on a database connection of its own (SQLite, PostgreSQL and Chroma's index
    release the GIL while they search). 0 or 1 (the default) runs them one after another:
    on the embedded default most of a router's time is Python (building rows, scoring), so
    threads measured slower than one there (docs/benchmarks.md). Worth trying where routers
    wait on a remote PostgreSQL or Chroma server."""
    hot_capacity: int = Field(default=4096, ge=0)
    """Vectors the in-process HOT tier may hold; a tenant that fits is searched exactly in
    process (no vector-index round trip). 0 disables it."""
    fusion: Literal["scores", "rrf"] = "scores"
    """How router results are combined: ``scores`` sums each router's min-max normalised scores
    (measured best, docs/benchmarks.md); ``rrf`` is weighted reciprocal-rank fusion."""
    rrf_k: int = Field(default=60, ge=1)
    """Reciprocal-rank-fusion constant (``fusion="rrf"``)."""
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    """FULL survives power loss as well as process crashes; NORMAL only process crashes."""
    secure_delete: bool = True
    """Overwrite deleted SQLite content (free pages would otherwise keep it)."""
    trust: TrustPolicy = Field(default_factory=TrustPolicy)
    """The trust gateway's thresholds and weights (``docs/security.md``); a dict is accepted."""
    belief: BeliefPolicy = Field(default_factory=BeliefPolicy)
    """How facts supersede each other and how observations go stale (``docs/architecture.md``,
    "What is still true"); a dict is accepted."""
    budgets: dict[str, MemoryBudget] = Field(default_factory=dict)
    """Per-tenant limits (memories, bytes, ingest tokens per day, query p95 target), by tenant;
    ``"*"`` for every tenant without its own (``docs/operating.md``). ``set_budget`` changes them
    at run time."""
    governor: GovernorPolicy = Field(default_factory=GovernorPolicy)
    """How the governor moves between degradation levels (window, dwell, hysteresis band)."""
    telemetry: TelemetryPolicy = Field(default_factory=TelemetryPolicy)
    """OpenTelemetry spans and metrics (``otel`` extra); a no-op when it is not installed."""
    consolidation: ConsolidationPolicy = Field(default_factory=ConsolidationPolicy)
    """Sleep-cycle consolidation: triggers, merge threshold, COLD tier, the rollback gate."""
    dedupe: Literal["occurrence", "content", "off"] = "occurrence"
    """When a write is a duplicate of a stored event (``docs/api.md``, "Duplicates"): same
    tenant, scope, parents, kind, role, actor, text, tool and arguments, and ``meta["dedupe_key"]``
    when given — and, with ``occurrence`` (the default), the same ``ts`` when the caller gave one,
    so a message repeated at another time is a new turn. ``content``: the time is ignored (one
    copy per content). ``off``: only a replay of the same event ``id`` is a duplicate."""
    vector_writes: Literal["background", "inline"] = "background"
    """``background`` (the default): a write is acknowledged by its SQL commit and a worker thread
    embeds and indexes it shortly after, many writes per embedder call (fast per-step hooks).
    Everything that reads vectors first applies what is pending (queries, ``recall_decisions``,
    ``stats``, ``monitor``, ``export``, ``forget``/``delete``, ``verify_erasure``, consolidation,
    ``reindex``, the health check), so a caller reads its own writes; a process's first write
    embeds inline, to check the embedder against the store. ``inline``: each write embeds and
    indexes its events before returning."""
    vector_write_delay_ms: float = Field(default=200.0, ge=0, le=10_000)
    """How long the background worker waits after a write for more to join one batch."""
    staged_write_delay_ms: float = Field(default=100.0, ge=0, le=10_000)
    """Staged writes (``ingest(..., staged=True)``): the worker applies the inbox once no staged
    write arrived for this long (an agent's steps come in bursts; the model's turn is quiet)."""
    staged_write_max_wait_ms: float = Field(default=1000.0, ge=0, le=60_000)
    """…but no later than this after the first pending staged write (other processes see them then)."""

    @field_validator("belief")
    @classmethod
    def _belief_checked(cls, value: BeliefPolicy) -> BeliefPolicy:
        return value.checked()

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url(value)
        except ArgumentError as exc:
            raise ValueError(f"not a database URL ({exc}); use e.g. postgresql+psycopg://user@host:5432/db") from exc
        if url.get_backend_name() not in ("sqlite", "postgresql"):
            raise ValueError(f"backend '{url.get_backend_name()}' is not supported; use sqlite or postgresql")
        return value

    @field_validator("chroma_url")
    @classmethod
    def _check_chroma_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError("must look like http://host:port (the address of a `chroma run` server)")
        try:
            parsed.port
        except ValueError as exc:
            raise ValueError(f"bad port ({exc})") from exc
        return value

    @model_validator(mode="after")
    def _vector_location_said(self) -> DeltaCoreConfig:
        # Scale-out means many processes on many machines: an embedded Chroma quietly created in
        # whatever folder each process started in would split the vectors between them.
        if self.database_url and not self.is_sqlite and self.chroma_url is None and "path" not in self.model_fields_set:
            raise ValueError(
                "chroma_url: with a PostgreSQL database_url, say where the vectors live: "
                "chroma_url='http://host:8000' (a `chroma run` server, for processes on many machines) "
                "or path='/srv/deltacore' (an embedded Chroma folder, for processes on this machine only)"
            )
        return self

    @property
    def sql_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.path.expanduser().absolute() / 'deltacore.db'}"

    @property
    def is_sqlite(self) -> bool:
        return self.sql_url.startswith("sqlite")

    @property
    def decay_rate_per_hour(self) -> float:
        return math.log(2) / self.utility_half_life_hours

    @classmethod
    def build(cls, **values: Any) -> DeltaCoreConfig:
        """Like the constructor, but errors are :class:`ConfigurationError` naming the field."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigurationError(*first_validation_error(exc, "config")) from exc

    @classmethod
    def from_env(cls, prefix: str = "DELTACORE_", **overrides: Any) -> DeltaCoreConfig:
        """Opt-in: read ``DELTACORE_PATH``, ``DELTACORE_DATABASE_URL``, ``DELTACORE_CHROMA_URL``."""
        values: dict[str, Any] = {}
        for name in ("path", "database_url", "chroma_url", "collection_prefix"):
            raw = os.environ.get(prefix + name.upper())
            if raw:
                values[name] = raw
        values.update(overrides)
        return cls.build(**values)
