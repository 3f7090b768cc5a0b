#!/usr/bin/env python
"""Graceful degradation under overload: the governor holds query p95 near its target.

One embedded store (SQLite + embedded Chroma, FakeEmbedder) of ``--size`` synthetic agent
memories (``ingest_query.make_memories``). The run, twice — governor off (no p95 target) and on
(``MemoryBudget(query_p95_ms=target)``), same phases, same questions:

* ``--light`` seconds of one client with 50 ms think time,
* ``--overload`` seconds of ``--threads`` clients asking back to back (a refused query —
  level 5 — backs off for ``min(retry_after, 0.1)`` s, as a polite client does),
* ``--recover`` seconds of one light client again.

Before that, each level's read plan is measured alone (one client, no load): its p50/p95 and
its recall relative to full operation (overlap@k of its answers with level 0's answers, on
``--probes`` questions). The recall cost of the run is that overlap, averaged over the queries
the governor served during overload at the level it served them.

The target is ``--target-ms`` or, by default, 1.5 × level 0's p95 measured alone.

    python benchmarks/degradation.py --size 3000 --threads 6 --overload 30

Writes ``benchmarks/results/degradation.json`` and ``docs/img/degradation.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions  # noqa: E402
from ingest_query import build_embedder, loadavg, make_memories, make_questions  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "degradation.json"
DEFAULT_PNG = ROOT / "docs" / "img" / "degradation.png"


def timed(memory: Any, question: str, k: int) -> tuple[float, list[str]]:
    start = time.perf_counter()
    ids = [p.id for p in memory.query(question, top_k=k)]
    return (time.perf_counter() - start) * 1000.0, ids


def per_level(memory: Any, probes: list[str], k: int) -> dict[int, dict[str, float]]:
    """Each level's latency alone and recall relative to level 0 (pinned, one client)."""
    answers: dict[int, list[list[str]]] = {}
    report: dict[int, dict[str, float]] = {}
    for level in (0, 1, 2, 3):
        memory.set_budget("default", pin_level=level)
        for question in probes[:5]:
            timed(memory, question, k)  # warm (HOT load, caches)
        latencies, found = [], []
        for question in probes:
            ms, ids = timed(memory, question, k)
            latencies.append(ms)
            found.append(ids)
        answers[level] = found
        overlap = np.mean([len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(found, answers[0])])
        report[level] = {
            "p50_ms": round(float(np.percentile(latencies, 50)), 2),
            "p95_ms": round(float(np.percentile(latencies, 95)), 2),
            "recall_vs_level0": round(float(overlap), 3),
        }
    memory.set_budget("default")
    return report


def run_timeline(memory: Any, questions: list[str], args: argparse.Namespace, target: float | None) -> dict[str, Any]:
    from deltacore import OverloadedError

    memory.set_budget("default", query_p95_ms=target) if target else memory.set_budget("default")
    governor = memory._governor  # the benchmark samples the level the engine acts on
    records: list[tuple[float, float, int, bool]] = []  # (end time, ms, level, served)
    levels: list[tuple[float, int]] = []
    lock = threading.Lock()
    start = time.monotonic()
    overload_from, overload_to = args.light, args.light + args.overload
    end = overload_to + args.recover
    stop = threading.Event()

    def client(index: int, light: bool) -> None:
        position = index * 997
        while not stop.is_set():
            now = time.monotonic() - start
            if now >= end:
                return
            in_overload = overload_from <= now < overload_to
            if not light and not in_overload:
                if now >= overload_to:
                    return
                time.sleep(min(0.05, overload_from - now))
                continue
            question = questions[position % len(questions)]
            position += 1
            level = governor.level("default")
            try:
                ms, _ = timed(memory, question, args.top_k)
                served = True
            except OverloadedError as refused:
                ms, served = 0.0, False
                time.sleep(min(refused.retry_after, 0.1))
            with lock:
                records.append((time.monotonic() - start, ms, level, served))
            if light:
                time.sleep(0.05)

    def sampler() -> None:
        while not stop.is_set() and time.monotonic() - start < end + 0.5:
            memory._apply_level_changes(governor.evaluate("default"))  # logged like any change
            levels.append((time.monotonic() - start, governor.level("default")))
            time.sleep(0.1)

    threads = [threading.Thread(target=client, args=(0, True))]
    threads += [threading.Thread(target=client, args=(i + 1, False)) for i in range(args.threads)]
    watcher = threading.Thread(target=sampler)
    load_before = loadavg()
    for thread in [*threads, watcher]:
        thread.start()
    for thread in threads:
        thread.join()
    # Load has ended: one idle period for the governor to come back to level 0.
    deadline = time.monotonic() + 4 * args.dwell + 2
    while time.monotonic() < deadline and governor.level("default") != 0:
        memory._apply_level_changes(governor.evaluate("default"))
        time.sleep(0.1)
    stop.set()
    watcher.join()
    recovered_at = next((t for t, level in levels if t >= overload_to and level == 0), None)
    return {
        "target_ms": target,
        "records": records,
        "levels": levels,
        "overload": [overload_from, overload_to],
        "end": end,
        "back_to_level0_s_after_load": None if recovered_at is None else round(recovered_at - overload_to, 2),
        "final_level": governor.level("default"),
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
    }


def summarize(run: dict[str, Any], recall: dict[int, dict[str, float]], settle: float) -> dict[str, Any]:
    start, stop = run["overload"]
    during = [r for r in run["records"] if start + settle <= r[0] < stop]
    served = [r for r in during if r[3]]
    latencies = [r[1] for r in served]
    weights = [recall[min(r[2], 3)]["recall_vs_level0"] for r in served]
    return {
        "overload_queries": len(during),
        "served": len(served),
        "refused": len(during) - len(served),
        "served_p50_ms": round(float(np.percentile(latencies, 50)), 2) if latencies else None,
        "served_p95_ms": round(float(np.percentile(latencies, 95)), 2) if latencies else None,
        "served_per_s": round(len(served) / max(stop - start - settle, 1e-9), 1),
        "recall_vs_level0": round(float(np.mean(weights)), 3) if weights else None,
        "levels_served": {str(level): sum(1 for r in served if r[2] == level) for level in range(6)},
    }


def buckets(run: dict[str, Any], width: float = 1.0) -> tuple[list[float], list[float | None]]:
    edges = np.arange(0, run["end"] + width, width)
    xs, p95s = [], []
    for left in edges[:-1]:
        values = [r[1] for r in run["records"] if r[3] and left <= r[0] < left + width]
        xs.append(float(left + width / 2))
        p95s.append(float(np.percentile(values, 95)) if values else None)
    return xs, p95s


def draw(off: dict[str, Any], on: dict[str, Any], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5), sharex=True, height_ratios=[2, 1])
    for run, label, style in ((off, "governor off", "tab:red"), (on, "governor on", "tab:blue")):
        xs, p95s = buckets(run)
        top.plot(xs, [np.nan if v is None else v for v in p95s], label=f"{label}: p95 per second", color=style)
    top.axhline(on["target_ms"], color="black", linestyle="--", linewidth=1, label=f"target {on['target_ms']:.0f} ms")
    for ax in (top, bottom):
        ax.axvspan(*on["overload"], color="0.92", zorder=0)
    top.set_ylabel("query p95 (ms)")
    top.set_yscale("log")
    top.legend(fontsize=8, loc="upper right")
    top.set_title(title, fontsize=9)
    times, levels = zip(*on["levels"]) if on["levels"] else ((), ())
    bottom.step(times, levels, where="post", color="tab:blue")
    bottom.set_ylim(-0.3, 5.3)
    bottom.set_yticks(range(6))
    bottom.set_ylabel("level")
    bottom.set_xlabel("seconds (shaded: overload)")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    plt.close(figure)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=3000, help="memories in the store (default 3000: fits HOT)")
    parser.add_argument("--threads", type=int, default=6, help="clients during the overload (default 6)")
    parser.add_argument("--light", type=float, default=5.0, help="seconds of light load first")
    parser.add_argument("--overload", type=float, default=30.0, help="seconds of overload")
    parser.add_argument("--recover", type=float, default=10.0, help="seconds of light load after")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds of overload left out of the summary")
    parser.add_argument("--dwell", type=float, default=1.0, help="GovernorPolicy.dwell_seconds")
    parser.add_argument("--target-ms", type=float, default=None, help="p95 target (default 1.5 × level-0 p95 alone)")
    parser.add_argument("--probes", type=int, default=100, help="questions for each level's recall")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20250106)
    parser.add_argument("--out-json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--out-png", type=Path, default=DEFAULT_PNG)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from deltacore import DeltaCore

    code = code_version()
    folder = Path(tempfile.mkdtemp(prefix="dc-degrade-"))
    started = time.time()
    try:
        memory = DeltaCore.open(folder, embedder=build_embedder("fake"), governor={"dwell_seconds": args.dwell})
        events = make_memories(args.size, args.seed)
        for i in range(0, len(events), 256):
            memory.ingest(events[i : i + 256])
        questions = make_questions(400, args.seed)
        recall = per_level(memory, make_questions(args.probes, args.seed + 5), args.top_k)
        target = args.target_ms or round(1.5 * recall[0]["p95_ms"], 1)
        print(f"levels alone: {json.dumps(recall)}\ntarget: {target} ms", file=sys.stderr)
        off = run_timeline(memory, questions, args, None)
        memory._governor.controller("default").level = 0
        on = run_timeline(memory, questions, args, target)
        on["target_ms"] = target
        memory.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = {
        "benchmark": "degradation",
        "command": command_line("benchmarks/degradation.py", sys.argv[1:]),
        "started_utc": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": versions(),
        "code": code,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "target_ms": target,
        "levels_alone": recall,
        "governor_off": {**summarize(off, recall, args.settle), "loadavg": [off["loadavg_before"], off["loadavg_after"]]},
        "governor_on": {
            **summarize(on, recall, args.settle),
            "back_to_level0_s_after_load": on["back_to_level0_s_after_load"],
            "final_level": on["final_level"],
            "loadavg": [on["loadavg_before"], on["loadavg_after"]],
        },
        "timeline_on": {"levels": on["levels"], "p95_per_s": buckets(on)},
        "timeline_off": {"p95_per_s": buckets(off)},
    }
    args.out_json.parent.mkdir(parents=True, exist_ok=True)
    args.out_json.write_text(json.dumps(report, indent=1))
    title = (
        f"{args.size:,} memories, {args.threads} clients for {args.overload:.0f} s, target {target:.0f} ms, "
        f"load {on['loadavg_before']}"
    )
    draw(off, on, args.out_png, title)
    for name in ("governor_off", "governor_on"):
        print(name, json.dumps(report[name]))
    print(f"wrote {args.out_json} and {args.out_png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
