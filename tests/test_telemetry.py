"""OpenTelemetry spans (GenAI memory conventions) and metrics, read back through the SDK's
in-memory span exporter and metric reader; a no-op when disabled or not installed."""

from __future__ import annotations

import subprocess
import sys

import pytest
from deltacore import InvalidQueryError, OverloadedError
from deltacore.governor import telemetry as telemetry_module
from deltacore.governor.telemetry import NO_TELEMETRY, telemetry_for
from deltacore.governor_policy import TelemetryPolicy


@pytest.fixture
def otel(monkeypatch):
    """An SDK tracer and meter provider recording in memory (the suite runs with
    OTEL_SDK_DISABLED=true, which would make SDK providers hand out no-op tracers)."""
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        InMemorySpanExporter,
    )

    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[reader])
    yield (
        exporter,
        reader,
        {"tracer_provider": tracer_provider, "meter_provider": meter_provider},
    )
    tracer_provider.shutdown()
    meter_provider.shutdown()


def spans_of(exporter, operation: str) -> list:
    return [
        s
        for s in exporter.get_finished_spans()
        if s.attributes.get("gen_ai.operation.name") == operation
    ]


def metric_points(reader) -> dict[str, list]:
    points: dict[str, list] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                points.setdefault(metric.name, []).extend(metric.data.data_points)
    return points


def test_memory_operations_are_spans_with_genai_memory_attributes(backend, otel):
    exporter, _, providers = otel
    memory = backend.open(telemetry=providers)
    try:
        memory.ingest(
            [
                {
                    "text": f"the api runs on port {8000 + i}",
                    "tenant": "acme",
                    "episode_id": "ep",
                }
                for i in range(3)
            ]
        )
        one = memory.add("a single memory", tenant="acme")
        packets = memory.query("which port does the api use?", tenant="acme", top_k=2)
        memory.record_outcome("ep", 1.0, tenant="acme")
        memory.delete([one], tenant="acme")

        [batch, single] = spans_of(exporter, "create_memory")
        assert batch.name == "create_memory acme"
        assert batch.attributes["gen_ai.provider.name"] == "deltacore"
        assert batch.attributes["gen_ai.memory.store.id"] == "acme"
        assert batch.attributes["gen_ai.memory.record.count"] == 3
        assert single.attributes["gen_ai.memory.record.id"] == one
        [search] = spans_of(exporter, "search_memory")
        assert search.attributes["gen_ai.memory.record.count"] == len(packets) == 2
        assert search.attributes["deltacore.degradation.level"] == 0
        assert (
            "gen_ai.memory.query.text" not in search.attributes
        )  # opt-in: it may hold personal data
        [update] = spans_of(exporter, "update_memory")
        assert (
            update.attributes["gen_ai.memory.record.count"] == 3
        )  # one credit update per step
        [delete] = spans_of(exporter, "delete_memory")
        assert delete.attributes["gen_ai.memory.record.count"] == 1
    finally:
        memory.close()


def test_errors_are_marked_and_query_text_is_opt_in(memory_factory, otel):
    exporter, _, providers = otel
    memory = memory_factory(telemetry={**providers, "capture_content": True})
    memory.add("the deploy failed on friday")
    memory.query("what failed?", top_k=1)
    with pytest.raises(InvalidQueryError):
        memory.query("what failed?", routers=["no-such-router"])
    memory.set_budget("default", pin_level=5)
    assert memory._governor.controller("default").admit()  # another query is running
    with pytest.raises(OverloadedError):
        memory.query("what failed?")
    ok, bad_router, refused = spans_of(exporter, "search_memory")
    assert ok.attributes["gen_ai.memory.query.text"] == "what failed?"
    assert "error.type" not in ok.attributes and ok.status.is_ok
    assert (
        bad_router.attributes["error.type"] == "InvalidQueryError"
        and not bad_router.status.is_ok
    )
    assert (
        refused.attributes["error.type"] == "OverloadedError"
        and refused.attributes["deltacore.degradation.level"] == 5
    )


def test_metrics_count_durations_records_and_the_level(memory_factory, otel):
    _, reader, providers = otel
    memory = memory_factory(telemetry=providers)
    memory.ingest([{"text": f"memory {i}"} for i in range(4)])
    for _ in range(3):
        memory.query("memory", top_k=2)
    memory.set_budget("default", pin_level=2)
    points = metric_points(reader)
    durations = {
        p.attributes["gen_ai.operation.name"]: p
        for p in points["gen_ai.client.operation.duration"]
    }
    assert (
        durations["search_memory"].count == 3 and durations["create_memory"].count == 1
    )
    assert durations["search_memory"].sum > 0
    records = {
        p.attributes["gen_ai.operation.name"]: p.value
        for p in points["deltacore.memory.records"]
    }
    assert records == {"create_memory": 4, "search_memory": 6}
    [level] = points["deltacore.governor.level"]
    assert level.value == 2 and level.attributes["gen_ai.memory.store.id"] == "default"


def test_disabled_or_absent_telemetry_records_nothing(
    memory_factory, otel, monkeypatch
):
    exporter, _, providers = otel
    memory = memory_factory(telemetry={**providers, "enabled": False})
    memory.add("nothing is traced")
    memory.query("traced?")
    assert exporter.get_finished_spans() == ()
    # Without opentelemetry installed the engine gets the no-op, and never imports it.
    real_find_spec = telemetry_module.importlib.util.find_spec
    monkeypatch.setattr(
        telemetry_module.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "opentelemetry" else real_find_spec(name, *a),
    )
    assert telemetry_for(TelemetryPolicy()) is NO_TELEMETRY


def test_import_deltacore_does_not_import_opentelemetry():
    code = "import sys, deltacore; print('opentelemetry' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout.strip()
        == "False"
    )


@pytest.fixture
def memory_factory(tmp_path):
    from deltacore import DeltaCore
    from deltacore.testing import FakeEmbedder

    opened = []

    def open_store(**settings):
        store = DeltaCore.open(
            tmp_path / f"store{len(opened)}", embedder=FakeEmbedder(), **settings
        )
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        store.close()
