"""Layer 7, the governor: budgets (tokens today; latency and storage later)."""

from deltacore.governor.tokens import TokenCounter, count_tokens

__all__ = ["TokenCounter", "count_tokens"]
