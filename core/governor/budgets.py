"""Per-tenant budgets: which one applies, and whether a write fits (pure decisions on usage
figures the engine reads from SQL)."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from deltacore.errors import QuotaExceededError
from deltacore.governor.levels import LevelChange, LevelController
from deltacore.governor_policy import ANY_TENANT, GovernorPolicy, MemoryBudget

_LIMITS = (
    ("max_memories", "memories", "memories"),
    ("max_bytes", "bytes", "bytes of memories"),
    ("max_ingest_tokens_per_day", "tokens_24h", "tokens written in 24 h"),
)


class Governor:
    """The budgets in force (config, then run-time changes) and each tenant's level controller."""

    def __init__(
        self, budgets: Mapping[str, MemoryBudget], policy: GovernorPolicy
    ) -> None:
        self.policy = policy
        self._budgets: dict[str, MemoryBudget] = dict(budgets)
        self._controllers: dict[str, LevelController] = {}
        self._lock = threading.Lock()

    # ---- budgets ----------------------------------------------------------------------------

    def budget(self, tenant: str) -> MemoryBudget | None:
        """The tenant's own budget, else the ``"*"`` one, else None (no limits)."""
        return self._budgets.get(tenant, self._budgets.get(ANY_TENANT))

    def set_budget(self, tenant: str, budget: MemoryBudget | None) -> None:
        with self._lock:
            if budget is None:
                self._budgets.pop(tenant, None)
            else:
                self._budgets[tenant] = budget

    def has_write_limits(self, tenant: str) -> bool:
        budget = self.budget(tenant)
        return budget is not None and any(
            getattr(budget, name) is not None for name, _, _ in _LIMITS
        )

    def check_write(
        self, tenant: str, usage: Mapping[str, int], incoming: Mapping[str, int]
    ) -> None:
        """Raise ``QuotaExceededError`` when ``usage + incoming`` passes a limit of the tenant."""
        budget = self.budget(tenant)
        if budget is None:
            return
        for name, key, unit in _LIMITS:
            limit = getattr(budget, name)
            if limit is None:
                continue
            used, adding = int(usage.get(key, 0)), int(incoming.get(key, 0))
            if adding and used + adding > limit:
                raise QuotaExceededError(tenant, name, limit, used, adding, unit)

    # ---- levels -----------------------------------------------------------------------------

    def controller(self, tenant: str) -> LevelController:
        controller = self._controllers.get(tenant)
        if controller is None:
            with self._lock:
                controller = self._controllers.setdefault(
                    tenant, LevelController(tenant, self.policy)
                )
        return controller

    def level(self, tenant: str) -> int:
        controller = self._controllers.get(tenant)
        return controller.level if controller is not None else 0

    def levels(self) -> dict[str, int]:
        with self._lock:
            return {tenant: c.level for tenant, c in self._controllers.items()}

    def governed(self, tenant: str) -> bool:
        """Whether the tenant's level can move at all (a p95 target or a pinned level)."""
        budget = self.budget(tenant)
        return (
            budget is not None
            and (budget.query_p95_ms is not None or budget.pin_level is not None)
            or self.level(tenant) != 0
        )

    def evaluate(self, tenant: str) -> list[LevelChange]:
        budget = self.budget(tenant)
        target = budget.query_p95_ms if budget else None
        pinned = budget.pin_level if budget else None
        if target is None and pinned is None and tenant not in self._controllers:
            return []
        return self.controller(tenant).evaluate(target, pinned)
