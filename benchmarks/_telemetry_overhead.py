"""``ingest_query.py --telemetry``: what OpenTelemetry spans and metrics cost a query.

One store, one data set, the same questions; every question is asked twice, once with the
engine's telemetry switched to the SDK (a tracer provider with a ``SimpleSpanProcessor`` into an
in-memory exporter, a meter provider with an in-memory reader: every span and metric is really
recorded) and once with the no-op, in random order per question, so a burst of load from
another process hits both alike. Ingest batches alternate the same way. Also measured alone:
the cost of one instrumented operation (enter and leave a span, record the metrics).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np


def _sdk() -> tuple[Any, Any, dict[str, Any]]:
    os.environ.pop("OTEL_SDK_DISABLED", None)  # the SDK would hand out no-op tracers
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
    return exporter, reader, {"tracer_provider": tracer_provider, "meter_provider": MeterProvider(metric_readers=[reader])}


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(float(np.percentile(values, 50)), 3),
        "p95_ms": round(float(np.percentile(values, 95)), 3),
        "mean_ms": round(float(np.mean(values)), 3),
    }


def run(args: Any, make_memories: Any, make_questions: Any, build_embedder: Any, loadavg: Any, provenance: dict[str, Any]) -> int:
    from deltacore import DeltaCore
    from deltacore.governor.telemetry import NO_TELEMETRY

    size = args.sizes[0]
    exporter, _reader, providers = _sdk()
    folder = Path(tempfile.mkdtemp(prefix="dc-otel-", dir=args.workdir))
    rng = random.Random(args.seed)
    started = time.time()
    load = [loadavg()]
    try:
        memory = DeltaCore.open(folder, embedder=build_embedder("fake"), telemetry=providers)
        on, off = memory._telemetry, NO_TELEMETRY
        assert on.enabled, "opentelemetry-api is not installed: nothing to measure"
        events = make_memories(size, args.seed)
        ingest: dict[str, list[float]] = {"on": [], "off": []}
        for number, i in enumerate(range(0, len(events), args.batch_size)):
            mode = "on" if number % 2 == 0 else "off"
            memory._telemetry = on if mode == "on" else off
            begin = time.perf_counter()
            memory.ingest(events[i : i + args.batch_size])
            ingest[mode].append((time.perf_counter() - begin) * 1000.0 / len(events[i : i + args.batch_size]))
        load.append(loadavg())
        questions = make_questions(args.queries, args.seed)
        for question in make_questions(args.warmup, args.seed + 1):
            memory.query(question, top_k=args.top_k)
        latencies: dict[str, list[float]] = {"on": [], "off": []}
        paired: list[float] = []
        for question in questions:
            order = ["on", "off"]
            rng.shuffle(order)
            pair = {}
            for mode in order:
                memory._telemetry = on if mode == "on" else off
                begin = time.perf_counter()
                memory.query(question, top_k=args.top_k)
                pair[mode] = (time.perf_counter() - begin) * 1000.0
                latencies[mode].append(pair[mode])
            paired.append(pair["on"] - pair["off"])
            if len(exporter.get_finished_spans()) > 2000:
                exporter.clear()
        load.append(loadavg())
        memory._telemetry = on
        spans = len(exporter.get_finished_spans())
        # One instrumented operation alone: the span, its attributes, the duration histogram.
        repeats = 20_000
        begin = time.perf_counter()
        for _ in range(repeats):
            with on.operation("search_memory", "default") as op:
                op.records, op.level = 10, 0
        per_operation_us = (time.perf_counter() - begin) / repeats * 1e6
        begin = time.perf_counter()
        for _ in range(repeats):
            with off.operation("search_memory", "default") as op:
                op.records, op.level = 10, 0
        noop_us = (time.perf_counter() - begin) / repeats * 1e6
        memory.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    query_on, query_off = _stats(latencies["on"]), _stats(latencies["off"])
    report = {
        "benchmark": "ingest_query --telemetry",
        **provenance,
        "started_utc": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        "settings": {"size": size, "queries": args.queries, "top_k": args.top_k, "batch_size": args.batch_size, "embedder": "fake"},
        "loadavg": load,
        "query_on": query_on,
        "query_off": query_off,
        "query_p95_overhead_pct": round((query_on["p95_ms"] / query_off["p95_ms"] - 1) * 100, 2),
        "query_paired_median_diff_ms": round(float(np.median(paired)), 4),
        "ingest_ms_per_event_on": round(float(np.median(ingest["on"])), 4),
        "ingest_ms_per_event_off": round(float(np.median(ingest["off"])), 4),
        "operation_cost_us": {"sdk": round(per_operation_us, 2), "noop": round(noop_us, 2)},
        "spans_recorded_last_batch": spans,
    }
    out = args.telemetry_json
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k not in ("machine", "versions", "code")}, indent=2))
    print(f"TARGET telemetry overhead on query p95 <= 5%: {report['query_p95_overhead_pct']:.1f}% -> "
          f"{'PASS' if report['query_p95_overhead_pct'] <= 5 else 'FAIL'}", file=sys.stderr)
    return 0
