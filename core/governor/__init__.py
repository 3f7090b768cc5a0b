"""Layer 7, the governor: token counting, per-tenant budgets, degradation levels with
hysteresis, latency windows and telemetry. Pure policy and bookkeeping: the engine reads usage
from storage and hands the plans to the read and write paths."""

from deltacore.governor.tokens import TokenCounter, count_tokens

__all__ = ["TokenCounter", "count_tokens"]
