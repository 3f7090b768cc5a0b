"""What the governor (Layer 7) may enforce, and how it reacts: per-tenant budgets, the
degradation controller's thresholds and telemetry settings. Plain validated values: the
policy that applies them lives in ``deltacore.governor``; the wiring in the engine.

>>> MemoryBudget(max_memories=10_000, query_p95_ms=50).query_p95_ms
50.0
"""

from __future__ import annotations

from typing import Any

from deltacore.errors import ConfigurationError, first_validation_error
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

ANY_TENANT = "*"
"""Key of ``DeltaCoreConfig.budgets`` whose budget applies to every tenant without its own."""


class MemoryBudget(BaseModel):
    """One tenant's limits. ``None`` = no limit. Set in ``DeltaCoreConfig.budgets`` (by tenant,
    ``"*"`` for every other tenant) or at run time with ``DeltaCore.set_budget``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_memories: int | None = Field(default=None, ge=0)
    """Stored events (all namespaces, quarantine included). A write that would pass it is refused
    with ``QuotaExceededError``."""
    max_bytes: int | None = Field(default=None, ge=0)
    """Bytes of the tenant's stored memories: text (UTF-8) plus vector. Counted from SQL, so
    every process sees the same usage."""
    max_ingest_tokens_per_day: int | None = Field(default=None, ge=0)
    """Tokens (cl100k) written in the last 24 hours."""
    query_p95_ms: float | None = Field(default=None, gt=0)
    """The query latency target: when this process's p95 over the rolling window passes it the
    governor degrades reads step by step (``docs/operating.md``), and recovers when it is met."""
    pin_level: int | None = Field(default=None, ge=0, le=5)
    """Human override: hold this degradation level whatever the latency (``None`` = automatic)."""

    @classmethod
    def build(
        cls, value: MemoryBudget | dict[str, Any] | None = None, **fields: Any
    ) -> MemoryBudget:
        """Like the constructor, but errors are ``ConfigurationError`` naming the field."""
        if isinstance(value, MemoryBudget):
            return value.model_copy(update=fields) if fields else value
        try:
            return cls(**{**(value or {}), **fields})
        except ValidationError as exc:
            field, message = first_validation_error(exc, "budget")
            raise ConfigurationError(
                field,
                f"{message} (budgets are counts, bytes or milliseconds: 0 or more)",
            ) from exc


class GovernorPolicy(BaseModel):
    """How the degradation controller moves between levels (hysteresis)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    window_seconds: float = Field(default=30.0, gt=0)
    """Rolling window of the latency figures in ``monitor()`` (per process)."""
    min_samples: int = Field(default=20, ge=1)
    """Queries measured at the current level before the controller judges it."""
    dwell_seconds: float = Field(default=2.0, gt=0)
    """Least time at a level before the next change, up or down."""
    raise_above: float = Field(default=1.0, gt=0)
    """One level up when p95 at this level > target × this."""
    lower_below: float = Field(default=0.6, gt=0)
    """One level down when p95 at this level < target × this (the gap to ``raise_above`` is the
    hysteresis band: a level that meets the target with little room is kept)."""
    max_level: int = Field(default=5, ge=0, le=5)
    """Highest level the controller may reach on its own (5 refuses queries; 3 never queues or
    refuses)."""
    refuse_concurrency: int = Field(default=1, ge=1)
    """Queries of a tenant that run at once in a process at level 5; the rest are refused."""
    shrunk_pool_fraction: float = Field(default=0.25, gt=0, le=1)
    """Candidate pool from level 2 on, as a fraction of the normal one (never below ``top_k``)."""

    @model_validator(mode="after")
    def _band(self) -> GovernorPolicy:
        if self.lower_below >= self.raise_above:
            raise ValueError(
                "lower_below must be below raise_above (that gap is the hysteresis band)"
            )
        return self


class TelemetryPolicy(BaseModel):
    """OpenTelemetry spans and metrics (the ``otel`` extra). Without ``opentelemetry-api``
    installed, or with ``enabled=False``, nothing is recorded and nothing is imported."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    enabled: bool = True
    """Emit spans and metrics through the OpenTelemetry API when it is installed."""
    capture_content: bool = False
    """Put query text on spans (``gen_ai.memory.query.text``; opt-in: it may hold personal data)."""
    tracer_provider: Any = None
    """A tracer provider to use instead of the global one (tests, several pipelines)."""
    meter_provider: Any = None
    """A meter provider to use instead of the global one."""
