"""The operating part of the ``DeltaCore`` facade: ``monitor()``, budgets and the governor's
wiring into the read and write paths, telemetry around every memory operation.

The governor (``deltacore.governor``) decides; this mixin reads the usage it decides on from
storage, hands its read plan to the orchestrator as a :class:`~deltacore.model.SearchBudget`,
and logs every level change as a ``DEGRADATION_LEVEL`` system event.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC
from typing import Any, TypeVar

from deltacore.config import DeltaCoreConfig
from deltacore.errors import NotFoundError, OverloadedError
from deltacore.governor import TokenCounter
from deltacore.governor.budgets import Governor
from deltacore.governor.levels import LevelChange, read_plan, refuses, writes_queued
from deltacore.governor.telemetry import NoTelemetry, OpenTelemetry, telemetry_for
from deltacore.governor.windows import ProcessMeter
from deltacore.governor_policy import MemoryBudget
from deltacore.model import Channel, IngestResult, MemoryPacket, QueryCriteria
from deltacore.model.economy import MemoryEconomy, TierUsage
from deltacore.storage import HotTier, SQLStore
from deltacore.storage.economy_reads import EconomyReads, folder_sizes

log = logging.getLogger("deltacore.governor")
F = TypeVar("F", bound=Callable[..., Any])


def traced(operation: str) -> Callable[[F], F]:
    """Wrap a facade method in a telemetry span of ``operation`` (tenant from its ``tenant``)."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def traced_method(self: Any, *args: Any, **kwargs: Any) -> Any:
            with self._telemetry.operation(
                operation, kwargs.get("tenant") or "default"
            ) as op:
                result = method(self, *args, **kwargs)
                op.records = _records_of(result)
                return result

        return traced_method  # type: ignore[return-value]

    return wrap


def _records_of(result: Any) -> int | None:
    for name in ("event_ids", "updates"):
        value = getattr(result, name, None)
        if isinstance(value, (list, tuple)):
            return len(value)
    return None


def _tenant_of(item: Any) -> str:
    if isinstance(item, dict):
        scope = item.get("scope")
        tenant = item.get("tenant") or (
            scope.get("tenant")
            if isinstance(scope, dict)
            else getattr(scope, "tenant", None)
        )
        return str(tenant or "default")
    return str(getattr(item, "tenant", None) or "default")


def _text_of(item: Any) -> str:
    text = item.get("text") if isinstance(item, dict) else getattr(item, "text", None)
    return text if isinstance(text, str) else ""


class MonitoringMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; ``_init_governance`` wires the collaborators."""

    config: DeltaCoreConfig
    _sql: SQLStore
    _hot: HotTier
    _tokens: TokenCounter
    _pipeline: Any
    _retriever: Any
    _governor: Governor
    _meter: ProcessMeter
    _telemetry: NoTelemetry | OpenTelemetry
    _economy: EconomyReads
    apply_outbox: Callable[[], int]

    def _init_governance(self) -> None:
        self._governor = Governor(self.config.budgets, self.config.governor)
        self._meter = ProcessMeter(self.config.governor.window_seconds)
        self._telemetry = telemetry_for(self.config.telemetry)
        self._economy = EconomyReads(self._sql)
        self._retriever.on_router_time = self._meter.record_router

    # ---- public -------------------------------------------------------------------------------

    def monitor(self, tenant: str | None = None) -> MemoryEconomy:
        """The memory economy of the store (``tenant=None``) or one tenant: what it holds, costs
        and does. Figures read from SQL are the same in every process; latency, HOT hit rate,
        miss rate, tokens packed and the level are this process's (``MemoryEconomy.scopes()``).

        >>> memory.monitor("default").memories  # doctest: +SKIP
        42
        """
        if not any(writes_queued(level) for level in self._governor.levels().values()):
            self._drain_for_read()  # pending vector writes count as written, unless level 4+ queues them
        now = time.time()
        with self._sql.reader() as conn:
            known = self._economy.tenants(conn)
            if tenant is not None and tenant not in known:
                raise NotFoundError(
                    f"monitor: no tenant {tenant!r} in this store (tenants: {known}); check its spelling"
                )
            figures = self._economy.economy(conn, tenant, now)
            parts: dict[str, int] = {}
            disk: int | None = None
            if not self._sql.dialect.is_sqlite:
                disk, parts = self._economy.postgres_sizes(conn)
        if self._sql.dialect.is_sqlite:
            parts = folder_sizes(self.config.path.expanduser())
            disk = sum(parts.values())
        elif self.config.chroma_url is None:
            chroma = folder_sizes(self.config.path.expanduser())["chroma"]
            parts["chroma"] = chroma
            disk = (disk or 0) + chroma
        for name in known if tenant is None else [tenant]:
            self._apply_level_changes(self._governor.evaluate(name))
        rewards = figures.pop("episode_rewards")
        hot_memories, hot_bytes = self._hot.held(tenant)
        levels = self._governor.levels()
        level = (
            levels.get(tenant, 0)
            if tenant is not None
            else max(levels.values(), default=0)
        )
        budget = self._governor.budget(tenant) if tenant is not None else None
        from datetime import datetime

        return MemoryEconomy(
            tenant=tenant,
            measured_at=datetime.fromtimestamp(now, UTC),
            backend=self._sql.dialect.name,
            tiers=[
                TierUsage(
                    tier="hot", memories=hot_memories, bytes=hot_bytes, scope="process"
                ),
                TierUsage(
                    tier="warm", memories=figures["memories"], bytes=disk, scope="store"
                ),
            ],
            bytes_on_disk=disk,
            bytes_by_part=parts,
            outcomes_7d=len(rewards),
            mean_reward_7d=round(sum(rewards) / len(rewards), 4) if rewards else None,
            improvement_rate=_trend(rewards),
            hot_hit_rate=self._hot.hit_rate(tenant),
            degradation_level=level,
            budget=budget.model_dump() if budget is not None else None,
            **figures,
            **self._meter.report(tenant),
        )

    def set_budget(
        self,
        tenant: str,
        budget: MemoryBudget | dict[str, Any] | None = None,
        **limits: Any,
    ) -> MemoryBudget | None:
        """Set (or with no budget and no limits, remove) a tenant's budget in this process;
        ``tenant="*"`` sets the one for every tenant without its own. Returns the budget now in
        force for ``tenant``. A negative limit is a ``ConfigurationError`` naming it.

        >>> memory.set_budget("acme", max_memories=100_000, query_p95_ms=80)  # doctest: +SKIP
        """
        if not isinstance(tenant, str) or not tenant:
            from deltacore.errors import ConfigurationError

            raise ConfigurationError(
                "tenant", f"must be a tenant name or '*', got {tenant!r}"
            )
        new = (
            MemoryBudget.build(budget, **limits)
            if budget is not None or limits
            else None
        )
        self._governor.set_budget(tenant, new)
        self._apply_level_changes(self._governor.evaluate(tenant))
        return self._governor.budget(tenant)

    # ---- the write and read paths -------------------------------------------------------------

    def _governed_ingest(
        self, batch: list[Any], channel: Channel | None, write: Callable[[list[Any], Channel | None], IngestResult] | None = None
    ) -> IngestResult:
        """``write``: what takes the batch once the governor admits it (default: the write path;
        staged writes: the inbox)."""
        tenants = Counter(_tenant_of(item) for item in batch)
        primary = next(iter(tenants), "default")
        with self._telemetry.operation("create_memory", primary) as op:
            for tenant in tenants:
                self._apply_level_changes(self._governor.evaluate(tenant))
                if refuses(self._governor.level(tenant)):
                    self._governor.controller(tenant).refused()
                    raise self._overloaded(tenant, "write")
            self._check_quotas(batch, tenants)
            result = (write or self._pipeline.run)(batch, channel)
            op.records = len(result.stored or result.staged)
            if len(result.stored) == 1:
                op.record_id = result.stored[0]
            return result

    def _check_quotas(self, batch: list[Any], tenants: Counter[str]) -> None:
        limited = [
            tenant for tenant in tenants if self._governor.has_write_limits(tenant)
        ]
        if not limited:
            return
        with self._sql.reader() as conn:
            usage = {tenant: self._economy.usage(conn, tenant) for tenant in limited}
        for tenant in limited:
            texts = [_text_of(item) for item in batch if _tenant_of(item) == tenant]
            incoming = {
                "memories": len(texts),
                "bytes": sum(
                    len(text.encode("utf-8", "surrogatepass")) for text in texts
                )
                + usage[tenant]["vector_bytes"] * len(texts),
                "tokens_24h": sum(self._tokens.count(text) for text in texts),
            }
            self._governor.check_write(tenant, usage[tenant], incoming)

    def _governed_query(self, criteria: QueryCriteria, trace: dict[str, Any] | None = None) -> list[MemoryPacket]:
        """``trace`` (``query(explain=True)``) receives what the orchestrator chose and why."""
        tenant = criteria.tenant
        start = time.perf_counter()
        self._apply_level_changes(self._governor.evaluate(tenant))
        level = self._governor.level(tenant)
        controller = self._governor.controller(tenant)
        with self._telemetry.operation("search_memory", tenant, criteria.text) as op:
            op.level = level
            if (
                not controller.admit()
            ):  # level 5 runs only refuse_concurrency queries at once
                raise self._overloaded(tenant, "query")
            try:
                if not writes_queued(level):
                    self._drain_for_read()  # read-your-writes across processes, when the outbox can drain (health.py)
                plan = read_plan(
                    level,
                    self._retriever.budget(criteria),
                    criteria.top_k,
                    self._governor.policy,
                )
                packets: list[MemoryPacket] = self._retriever.query(criteria, plan, trace=trace)
            finally:
                controller.release()
            op.records = len(packets)
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        self._meter.record_query(
            tenant, elapsed_ms, len(packets), sum(p.token_cost or 0 for p in packets)
        )
        if self._governor.governed(tenant):
            self._governor.controller(tenant).observe(elapsed_ms)
            self._apply_level_changes(self._governor.evaluate(tenant))
        return packets

    def _apply_outbox_after_write(self) -> int:
        """The outbox step of a write: skipped while a tenant of this process is at level 4+."""
        if any(writes_queued(level) for level in self._governor.levels().values()):
            return 0
        return self.apply_outbox()

    def _apply_level_changes(self, changes: Sequence[LevelChange]) -> None:
        if not changes:
            return
        with self._sql.writer() as conn:
            for change in changes:
                self._sql.log_system_event(
                    conn, change.tenant, "DEGRADATION_LEVEL", change.payload()
                )
        for change in changes:
            log.warning(
                "tenant %s: degradation level %d -> %d (%s)",
                change.tenant,
                change.from_level,
                change.to_level,
                change.reason,
            )
            self._telemetry.level_changed(change.tenant, change.to_level)
        if any(
            writes_queued(c.from_level) and not writes_queued(c.to_level)
            for c in changes
        ):
            self._apply_outbox_after_write()  # the queued vector writes go out now

    def _overloaded(self, tenant: str, operation: str) -> OverloadedError:
        budget = self._governor.budget(tenant)
        window = self._meter.tenant(tenant).window.summary()
        retry = self._governor.controller(tenant).retry_after()
        return OverloadedError(
            tenant,
            operation,
            window.p95_ms,
            budget.query_p95_ms if budget else None,
            retry,
        )


def _trend(rewards: Sequence[float]) -> float | None:
    """Least-squares slope of reward per episode (None below 3 episodes)."""
    if len(rewards) < 3:
        return None
    import numpy as np

    slope = np.polyfit(
        np.arange(len(rewards), dtype=float), np.asarray(rewards, dtype=float), 1
    )[0]
    return round(float(slope), 6)
