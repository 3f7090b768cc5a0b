"""What ``DeltaCore.monitor()`` reports: the memory economy of a store or tenant.

Every field says where it comes from: ``scope="store"`` fields are read from SQL, so every
process on the store reports the same; ``scope="process"`` fields are measured by the process
that answers (its queries, its HOT tier) since it opened the store or over its rolling window.
``MemoryEconomy.scopes()`` lists them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Scope = Literal["store", "process"]


def _scoped(scope: Scope, default: Any = None, **kwargs: Any) -> Any:
    if "default_factory" not in kwargs:
        kwargs["default"] = default
    return Field(json_schema_extra={"scope": scope}, **kwargs)


class LatencySummary(BaseModel):
    """Percentiles of latencies over the rolling window (milliseconds; None with no samples)."""

    model_config = ConfigDict(frozen=True)

    count: int = 0
    p50_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None


class TierUsage(BaseModel):
    """One storage tier: how many memories it holds and their bytes."""

    model_config = ConfigDict(frozen=True)

    tier: Literal["hot", "warm"]
    """``hot``: this process's in-memory cache of whole tenants (scope ``process``); ``warm``:
    SQL and the vector index (scope ``store``). COLD (Parquet) does not exist yet."""
    memories: int
    bytes: int | None
    """hot: bytes of the cached vectors; warm: bytes on disk (see ``MemoryEconomy.bytes_on_disk``)."""
    scope: Scope


class ErasureRecord(BaseModel):
    """One forget request as the store records it: ids, mode, counts and times, never the
    subject (the store keeps only its HMAC, and not even that here)."""

    model_config = ConfigDict(frozen=True)

    request_id: str
    tenant: str
    mode: str
    """``events_only``, ``schemas_only``, ``full`` or ``verified``."""
    state: str
    """As ``forget_status`` reports it: ``pending`` (journaled, nothing erased yet),
    ``running`` (past the logical erase; a crash left it there unless a process is on it now:
    the next open resumes it), ``completed``, ``nothing_found``."""
    phase: str = ""
    counts: dict[str, int] = Field(default_factory=dict)
    """Rows erased per artifact class (finished requests only)."""
    audit_hash: str = ""
    """The certificate's SHA-256 chain over its erasure log (finished requests only): a
    certificate handed out can be matched with it. The audit's verdict of a ``verified``
    request is in the certificate only; the store does not record it."""
    created_at: datetime | None = None
    completed_at: datetime | None = None


class MemoryEconomy(BaseModel):
    """What a store (or one tenant of it) holds, costs and does. Built by ``DeltaCore.monitor``.

    Field docs and ``scopes()`` say which figures every process shares (SQL) and which belong
    to the process that answered.
    """

    model_config = ConfigDict(frozen=True)

    tenant: str | None = _scoped("store")
    """The tenant described; None = the whole store."""
    measured_at: datetime = _scoped("store")
    backend: str = _scoped("store")
    """``sqlite`` or ``postgresql``."""
    # ---- from SQL: the same in every process ----
    memories: int = _scoped("store", 0)
    """Stored events (quarantine included)."""
    memories_by_namespace: dict[str, int] = _scoped("store", default_factory=dict)
    """TRUSTED / UNVERIFIED / QUARANTINE / SYNTHETIC."""
    tiers: list[TierUsage] = _scoped("store", default_factory=list)
    """Memories and bytes per tier; each entry carries its own scope."""
    deltas: int = _scoped("store", 0)
    vectors_pending: int = _scoped("store", 0)
    """Vector writes waiting in the outbox (level 4 queues them there)."""
    bytes_on_disk: int | None = _scoped("store")
    """The whole store's footprint: embedded, the files under its folder (SQLite, WAL, embedded
    Chroma); PostgreSQL, ``pg_database_size`` (a Chroma server's disk is not visible: see
    ``bytes_by_part``). Shared by all tenants."""
    bytes_by_part: dict[str, int] = _scoped("store", default_factory=dict)
    """Embedded: ``sqlite``, ``chroma``, ``other`` files; PostgreSQL: each ``dc_*`` table with
    its indexes (``pg_total_relation_size``)."""
    memory_bytes: int = _scoped("store", 0)
    """Bytes of the memories' text (UTF-8) and vectors in SQL: what ``MemoryBudget.max_bytes``
    counts."""
    tokens_ingested_24h: int = _scoped("store", 0)
    tokens_ingested_total: int = _scoped("store", 0)
    poisoning_attempts_24h: int = _scoped("store", 0)
    """Writes the trust gateway quarantined or blocked, and honeypot hits, in the last 24 h."""
    schema_drifts_24h: int = _scoped("store", 0)
    """Tool-schema drifts (E04) detected in the last 24 h."""
    open_conflicts: int = _scoped("store", 0)
    """Contradictions the belief layer could not settle (``conflicts()``)."""
    open_reviews: int = _scoped("store", 0)
    """Items waiting in the review queue (``review_queue()``)."""
    quarantined: int = _scoped("store", 0)
    """Events waiting in QUARANTINE for a reviewer."""
    outcomes_7d: int = _scoped("store", 0)
    """Episodes with a recorded outcome in the last 7 days."""
    mean_reward_7d: float | None = _scoped("store")
    improvement_rate: float | None = _scoped("store")
    """The outcome trend: least-squares slope of episode reward per episode over the last 7
    days' episodes, in time order (> 0: outcomes are getting better). None below 3 episodes."""
    level_changes_24h: int = _scoped("store", 0)
    """``DEGRADATION_LEVEL`` system events in the last 24 h (any process)."""
    erasures_24h: int = _scoped("store", 0)
    """Forget requests completed (something erased) in the last 24 h, from their ``FORGET``
    system event."""
    erasures_total: int = _scoped("store", 0)
    """Forget requests completed since the store was created."""
    erasures_nothing_found: int = _scoped("store", 0)
    """Finished forget requests that matched nothing."""
    erasures_pending: int = _scoped("store", 0)
    """Forget requests journaled, nothing erased yet (``forget_status`` state ``pending``)."""
    erasures_running: int = _scoped("store", 0)
    """Forget requests past the logical erase, not finished: in progress in some process, or
    interrupted by a crash (the next open of the store resumes them)."""
    last_erasure_at: datetime | None = _scoped("store")
    """When the latest completed forget request finished."""
    recent_erasures: list[ErasureRecord] = _scoped("store", default_factory=list)
    """The latest forget requests, unfinished first, then finished, newest first (at most 20)."""
    # ---- measured by this process ----
    window_seconds: float = _scoped("process", 0.0)
    """Length of the rolling window of the latency figures."""
    queries: int = _scoped("process", 0)
    """Queries this process answered since it opened the store."""
    query_latency: LatencySummary = _scoped("process", default_factory=LatencySummary)
    """Whole ``query()`` calls over the window."""
    router_latency: dict[str, LatencySummary] = _scoped("process", default_factory=dict)
    """Each router's search over the window."""
    hot_hit_rate: float | None = _scoped("process")
    """Vector searches the HOT tier answered, of all vector searches (since open)."""
    retrieval_miss_rate: float | None = _scoped("process")
    """Queries that returned nothing, of all queries (since open)."""
    tokens_packed: int = _scoped("process", 0)
    """Tokens of the memories handed back by queries (since open)."""
    degradation_level: int = _scoped("process", 0)
    """This process's current level for the tenant (the highest over tenants for the store)."""
    budget: dict[str, Any] | None = _scoped("process")
    """The tenant's budget as this process enforces it (config or ``set_budget``)."""

    @classmethod
    def scopes(cls) -> dict[str, Scope]:
        """Field name -> ``store`` (from SQL, shared) or ``process`` (this process only)."""
        return {
            name: (info.json_schema_extra or {})["scope"]
            for name, info in cls.model_fields.items()
        }  # type: ignore[index,misc]
