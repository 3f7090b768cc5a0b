"""Rolling latency windows and per-process counters: what ``monitor()`` reports as measured by
this process, and what the degradation controller judges. Pure bookkeeping, thread-safe."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from deltacore.model.economy import LatencySummary

MAX_SAMPLES = 4096
"""Samples a window keeps at most (the oldest go first), so a burst cannot grow it unbounded."""


class LatencyWindow:
    """Latencies (ms) of the last ``seconds``, at most MAX_SAMPLES of them."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._samples: deque[tuple[float, float]] = deque(maxlen=MAX_SAMPLES)
        self._lock = threading.Lock()

    def add(self, latency_ms: float, now: float | None = None) -> None:
        with self._lock:
            self._samples.append((time.monotonic() if now is None else now, latency_ms))

    def values(self, now: float | None = None) -> list[float]:
        cutoff = (time.monotonic() if now is None else now) - self.seconds
        with self._lock:
            while self._samples and self._samples[0][0] < cutoff:
                self._samples.popleft()
            return [value for _, value in self._samples]

    def summary(self, now: float | None = None) -> LatencySummary:
        return summarize(self.values(now))


def summarize(values: Iterable[float]) -> LatencySummary:
    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return LatencySummary()
    p50, p95, p99 = np.percentile(data, [50, 95, 99])
    return LatencySummary(
        count=int(data.size),
        p50_ms=round(float(p50), 3),
        p95_ms=round(float(p95), 3),
        p99_ms=round(float(p99), 3),
    )


@dataclass
class TenantMeter:
    """One tenant's figures in this process."""

    window: LatencyWindow
    routers: dict[str, LatencyWindow]
    queries: int = 0
    empty_queries: int = 0
    tokens_packed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class ProcessMeter:
    """Every tenant's latency windows and counters in this process."""

    def __init__(self, window_seconds: float) -> None:
        self.window_seconds = window_seconds
        self._tenants: dict[str, TenantMeter] = {}
        self._lock = threading.Lock()

    def tenant(self, tenant: str) -> TenantMeter:
        meter = self._tenants.get(tenant)
        if meter is None:
            with self._lock:
                meter = self._tenants.setdefault(
                    tenant,
                    TenantMeter(
                        LatencyWindow(self.window_seconds),
                        defaultdict(lambda: LatencyWindow(self.window_seconds)),
                    ),
                )
        return meter

    def record_query(
        self, tenant: str, latency_ms: float, returned: int, tokens: int
    ) -> None:
        meter = self.tenant(tenant)
        meter.window.add(latency_ms)
        with meter.lock:
            meter.queries += 1
            meter.empty_queries += returned == 0
            meter.tokens_packed += tokens

    def record_router(self, tenant: str, router: str, latency_ms: float) -> None:
        meter = self.tenant(tenant)
        with meter.lock:
            window = meter.routers[router]
        window.add(latency_ms)

    def known(self, tenant: str | None) -> list[TenantMeter]:
        with self._lock:
            if tenant is None:
                return list(self._tenants.values())
            return [self._tenants[tenant]] if tenant in self._tenants else []

    def report(self, tenant: str | None) -> dict[str, object]:
        """The process-scope figures of ``MemoryEconomy`` (merged over tenants for None)."""
        meters = self.known(tenant)
        now = time.monotonic()
        latencies = [v for m in meters for v in m.window.values(now)]
        by_router: dict[str, list[float]] = defaultdict(list)
        for meter in meters:
            with meter.lock:
                windows = dict(meter.routers)
            for name, window in windows.items():
                by_router[name].extend(window.values(now))
        queries = sum(m.queries for m in meters)
        empty = sum(m.empty_queries for m in meters)
        return {
            "window_seconds": self.window_seconds,
            "queries": queries,
            "query_latency": summarize(latencies),
            "router_latency": {
                name: summarize(values)
                for name, values in sorted(by_router.items())
                if values
            },
            "retrieval_miss_rate": round(empty / queries, 4) if queries else None,
            "tokens_packed": sum(m.tokens_packed for m in meters),
        }
