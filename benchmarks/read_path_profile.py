#!/usr/bin/env python
"""Where a query's time goes: each router and read-path step of DeltaCore, timed one by one.

The throughput benchmark (``ingest_query.py``) says how long a query takes; this says which part
of it. It builds (or reuses) a store of the same synthetic memories and questions, runs the
default routing, and prints per step: how many queries ran it, total, mean, p90 and max (ms).

    python benchmarks/read_path_profile.py --size 100000 --store /tmp/dc-profile-100k

Steps are wrapped with a timer on the store's own objects (nothing else changes); a step that
runs inside another (a router's lexical half) is counted in both.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest_query  # noqa: E402 - the same generators and embedders


def _timed(owner: Any, attribute: str, label: str, spent: dict[str, list[float]]) -> None:
    inner: Callable[..., Any] = getattr(owner, attribute)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label].append((time.perf_counter() - start) * 1000.0)

    setattr(owner, attribute, wrapper)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--store", type=Path, required=True, help="store folder (built if empty)")
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--seed", type=int, default=20250106, help="as ingest_query.py")
    args = parser.parse_args(argv)

    from deltacore import DeltaCore
    from deltacore.retrieval import orchestrator

    memory = DeltaCore.open(args.store, embedder=ingest_query.build_embedder("fake"))
    try:
        if memory.stats().events == 0:
            events = ingest_query.make_memories(args.size, args.seed)
            for start in range(0, len(events), 256):
                memory.ingest(events[start : start + 256])
        questions = ingest_query.make_questions(args.queries + 5, args.seed)
        spent: dict[str, list[float]] = collections.defaultdict(list)
        retriever = memory._retriever  # noqa: SLF001 - the steps being timed
        for name, router in retriever._routers.items():  # noqa: SLF001
            _timed(router, "search", f"router {name}", spent)
        for name, expander in retriever._expanders.items():  # noqa: SLF001
            _timed(expander, "expand", f"expander {name}", spent)
        _timed(retriever, "_packets", "packets", spent)
        if retriever._defence is not None:  # noqa: SLF001
            _timed(retriever._defence, "rerank", "trust defence", spent)  # noqa: SLF001
        _timed(orchestrator, "analyze", "query analysis", spent)
        for question in questions[:5]:
            memory.query(question, top_k=10)
        spent.clear()
        totals = []
        for question in questions[5:]:
            start = time.perf_counter()
            memory.query(question, top_k=10)
            totals.append((time.perf_counter() - start) * 1000.0)
    finally:
        memory.close()
    print(f"{'step':<22} {'queries':>7} {'total ms':>9} {'mean':>7} {'p90':>7} {'max':>7}")
    for label, values in sorted(spent.items(), key=lambda item: -sum(item[1])):
        v = np.asarray(values)
        print(f"{label:<22} {len(v):>7} {v.sum():>9.1f} {v.mean():>7.2f} {np.percentile(v, 90):>7.2f} {v.max():>7.2f}")
    t = np.asarray(totals)
    print(f"{'whole query':<22} {len(t):>7} {t.sum():>9.1f} {t.mean():>7.2f} {np.percentile(t, 90):>7.2f} {t.max():>7.2f}")
    print(f"whole query p50 {np.percentile(t, 50):.2f} ms, p95 {np.percentile(t, 95):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
