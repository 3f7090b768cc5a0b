"""OpenTelemetry spans and metrics for memory operations (the ``otel`` extra).

Spans follow the GenAI memory semantic conventions (development status,
open-telemetry/semantic-conventions-genai): ``gen_ai.operation.name`` is ``create_memory``
(ingest), ``search_memory`` (query), ``update_memory`` (outcomes and feedback that change
utilities) or ``delete_memory``; ``gen_ai.provider.name`` is ``deltacore``;
``gen_ai.memory.store.id`` is the tenant; ``gen_ai.memory.record.count`` the records written,
returned or deleted; ``gen_ai.memory.record.id`` the record of a one-record operation;
``gen_ai.memory.query.text`` only with ``TelemetryPolicy.capture_content`` (opt-in: personal
data); ``error.type`` on failure. ``deltacore.degradation.level`` says at which level it ran.

Metrics: ``gen_ai.client.operation.duration`` (histogram, seconds) by operation, tenant and
error; ``deltacore.memory.records`` (counter) and ``deltacore.governor.level`` (gauge).

Without ``opentelemetry-api`` installed, or with telemetry disabled, :func:`telemetry_for`
returns :data:`NO_TELEMETRY`, whose operations cost one context manager and import nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from collections.abc import Iterator
from typing import Any

from deltacore.governor_policy import TelemetryPolicy

PROVIDER = "deltacore"
INSTRUMENTATION = "deltacore"


class Operation:
    """What an operation learns as it runs: records touched, a record id, the level."""

    __slots__ = ("level", "record_id", "records")

    def __init__(self) -> None:
        self.records: int | None = None
        self.record_id: str | None = None
        self.level: int | None = None


class NoTelemetry:
    """Telemetry switched off (or OpenTelemetry not installed)."""

    enabled = False

    @contextlib.contextmanager
    def operation(
        self, name: str, tenant: str, query: str | None = None
    ) -> Iterator[Operation]:
        yield Operation()

    def level_changed(self, tenant: str, level: int) -> None:
        return None


NO_TELEMETRY = NoTelemetry()


class OpenTelemetry:
    """Spans and metrics through the OpenTelemetry API (providers from the policy or global)."""

    enabled = True

    def __init__(self, policy: TelemetryPolicy) -> None:
        from importlib.metadata import PackageNotFoundError, version

        from opentelemetry import metrics, trace

        try:
            __version__ = version("deltacore")
        except PackageNotFoundError:  # run from a source tree
            __version__ = "0"
        self._trace = trace
        self._capture = policy.capture_content
        self._tracer = trace.get_tracer(
            INSTRUMENTATION, __version__, tracer_provider=policy.tracer_provider
        )
        meter = metrics.get_meter(
            INSTRUMENTATION, __version__, meter_provider=policy.meter_provider
        )
        self._duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Duration of DeltaCore memory operations",
        )
        self._records = meter.create_counter(
            "deltacore.memory.records",
            unit="{record}",
            description="Memory records written, returned or deleted",
        )
        self._level = meter.create_gauge(
            "deltacore.governor.level",
            unit="{level}",
            description="The governor's degradation level (0-5) per tenant",
        )

    @contextlib.contextmanager
    def operation(
        self, name: str, tenant: str, query: str | None = None
    ) -> Iterator[Operation]:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": name,
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.memory.store.id": tenant,
        }
        if query is not None and self._capture:
            attributes["gen_ai.memory.query.text"] = query
        op = Operation()
        start = time.perf_counter()
        error: str | None = None
        with self._tracer.start_as_current_span(
            f"{name} {tenant}",
            kind=self._trace.SpanKind.INTERNAL,
            attributes=attributes,
            record_exception=True,
        ) as span:
            try:
                yield op
            except BaseException as exc:
                error = type(exc).__qualname__
                span.set_attribute("error.type", error)
                span.set_status(
                    self._trace.Status(self._trace.StatusCode.ERROR, str(exc)[:500])
                )
                raise
            finally:
                if op.records is not None:
                    span.set_attribute("gen_ai.memory.record.count", op.records)
                if op.record_id is not None:
                    span.set_attribute("gen_ai.memory.record.id", op.record_id)
                if op.level is not None:
                    span.set_attribute("deltacore.degradation.level", op.level)
                metric = {
                    "gen_ai.operation.name": name,
                    "gen_ai.memory.store.id": tenant,
                }
                if error is not None:
                    metric["error.type"] = error
                self._duration.record(time.perf_counter() - start, metric)
                if op.records:
                    self._records.add(op.records, metric)

    def level_changed(self, tenant: str, level: int) -> None:
        self._level.set(level, {"gen_ai.memory.store.id": tenant})


def telemetry_for(policy: TelemetryPolicy) -> NoTelemetry | OpenTelemetry:
    """OpenTelemetry when enabled and installed, else the no-op."""
    if not policy.enabled or importlib.util.find_spec("opentelemetry") is None:
        return NO_TELEMETRY
    try:
        return OpenTelemetry(policy)
    except (
        ImportError
    ):  # opentelemetry present but without the api's trace/metrics modules
        return NO_TELEMETRY
