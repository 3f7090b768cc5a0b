"""Per-step hook overhead: what recording one tool step costs the agent: background vs inline vector writes, and staged writes.

Modes: ``inline`` and ``background`` are ``DeltaCoreConfig.vector_writes`` with each step written
in full; ``staged`` is background vector writes with each step written by
``ingest(..., staged=True)`` (the LangChain handler's default, ``staged_tool_steps=True``): the hook
pays one durable inbox append, and the write path runs later (a worker once the steps pause, or
the next read: the query after the episode, or the handler's episode-end write).

A step is one tool call and its result. Two ways of recording it are timed:

- ``langchain``: a real LangChain tool invoked inside a ``@chain`` episode with
  ``DeltaCoreCallbackHandler`` attached; the time spent inside the handler's ``on_tool_start``
  and ``on_tool_end`` (what the hook adds to the step) is measured;
- ``engine``: ``DeltaCore.ingest`` of the ``tool_call`` and then of the ``tool_result`` (what
  any hook ends up doing).

Episodes of ``--episode-steps`` steps; ``--think-ms`` sleeps between steps (the model's turn,
during which a background writer works; 0 = steps back to back, the worst case for it). After
each episode one query is timed: with background writes it first applies what is pending
(read-your-writes), so the embedding cost moved out of the hooks shows up there; with staged
writes, so does the write path itself (for the LangChain handler, in its episode-end write, timed
as ``episode_end``).

    python benchmarks/hook_overhead.py --embedder fake --steps 300 [--modes staged] [--think-ms 50] [--out FILE]
    python benchmarks/hook_overhead.py --embedder minilm --steps 100
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(_percentile(values, 0.50), 2),
        "p95_ms": round(_percentile(values, 0.95), 2),
        "p99_ms": round(_percentile(values, 0.99), 2),
        "mean_ms": round(statistics.fmean(values), 2),
    }


def _embedder(name: str) -> Any:
    if name == "fake":
        return FakeEmbedder()
    from deltacore import MiniLMEmbedder

    return MiniLMEmbedder()


def _engine_steps(memory: DeltaCore, episodes: int, steps: int, think: float, staged: bool) -> tuple[list[float], list[float], list[float]]:
    timings: list[float] = []
    queries: list[float] = []
    for e in range(episodes):
        episode = f"engine-{e}"
        memory.ingest([{"kind": "message", "role": "user", "text": f"reconcile the orders of customer {e}", "episode_id": episode}])
        for s in range(steps):
            call_id = f"{episode}:c{s}"
            started = time.perf_counter()
            memory.ingest([{"id": call_id, "kind": "tool_call", "tool_name": "lookup_order", "tool_args": {"order": f"{e}-{s}"}, "episode_id": episode}], staged=staged)
            memory.ingest([{"kind": "tool_result", "tool_name": "lookup_order", "text": f"order {e}-{s} shipped on day {s}", "parent_ids": [call_id], "episode_id": episode}], staged=staged)
            timings.append((time.perf_counter() - started) * 1000)
            time.sleep(think)
        started = time.perf_counter()
        memory.query(f"order {e}-3 shipped", top_k=5)
        queries.append((time.perf_counter() - started) * 1000)
    return timings, queries, []


def _langchain_steps(memory: DeltaCore, episodes: int, steps: int, think: float, staged: bool) -> tuple[list[float], list[float], list[float]]:
    from langchain_core.runnables import RunnableConfig, chain
    from langchain_core.tools import tool

    from deltacore.adapters.langchain import DeltaCoreCallbackHandler

    timings: list[float] = []
    episode_ends: list[float] = []
    spent = [0.0]

    class TimedHandler(DeltaCoreCallbackHandler):
        def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            super().on_tool_start(*args, **kwargs)
            spent[0] += time.perf_counter() - started

        def on_tool_end(self, *args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            super().on_tool_end(*args, **kwargs)
            spent[0] += time.perf_counter() - started
            timings.append(spent[0] * 1000)
            spent[0] = 0.0

        def on_chain_end(self, *args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            super().on_chain_end(*args, **kwargs)
            if kwargs.get("parent_run_id") is None:  # the episode's outcome: a direct write
                episode_ends.append((time.perf_counter() - started) * 1000)

    @tool
    def lookup_order(order: str) -> str:
        """Look an order up."""
        return f"order {order} shipped"

    @chain
    def episode(task: str, config: RunnableConfig) -> str:
        for s in range(steps):
            lookup_order.invoke({"name": "lookup_order", "args": {"order": f"{task}-{s}"}, "id": f"call-{s}", "type": "tool_call"}, config=config)
            time.sleep(think)
        return "done"

    handler = TimedHandler(memory, name="bench", staged_tool_steps=staged)
    queries: list[float] = []
    for e in range(episodes):
        episode.invoke(f"customer{e}", config={"callbacks": [handler], "run_name": "episode"})
        started = time.perf_counter()
        memory.query(f"order customer{e}-3 shipped", top_k=5)
        queries.append((time.perf_counter() - started) * 1000)
    return timings, queries, episode_ends


def run(embedder: str, mode: str, hook: str, steps: int, episode_steps: int, think_ms: float) -> dict[str, Any]:
    episodes = max(1, steps // episode_steps)
    with tempfile.TemporaryDirectory() as folder:
        staged = mode == "staged"
        vector_writes = "background" if staged else mode
        memory = DeltaCore.open(path=Path(folder) / "store", embedder=_embedder(embedder), vector_writes=vector_writes)
        try:
            memory.add("the first write of a tenant plants its canaries and loads the embedder")
            memory.query("warm up the read path", top_k=1)
            measure = _engine_steps if hook == "engine" else _langchain_steps
            timings, queries, episode_ends = measure(memory, episodes, episode_steps, think_ms / 1000, staged)
            stats = memory.stats()
            assert stats.vectors == stats.events, (stats.vectors, stats.events)  # every write indexed
        finally:
            started = time.perf_counter()
            memory.close()
            close_ms = (time.perf_counter() - started) * 1000
    return {
        "embedder": embedder,
        "mode": mode,
        "vector_writes": vector_writes,
        "staged_writes": staged,
        "hook": hook,
        "think_ms": think_ms,
        "step": _summary(timings),
        "query_after_episode": _summary(queries),
        "episode_end": _summary(episode_ends) if episode_ends else None,
        "close_ms": round(close_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["fake", "minilm"], default="fake")
    parser.add_argument("--steps", type=int, default=300, help="tool steps per configuration")
    parser.add_argument("--episode-steps", type=int, default=10)
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause between steps (the model's turn)")
    parser.add_argument("--hooks", default="langchain,engine")
    parser.add_argument("--modes", default="background,inline,staged", help="inline, background (vector writes), staged")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    load_before = os.getloadavg()
    results = [
        run(args.embedder, mode, hook, args.steps, args.episode_steps, args.think_ms)
        for hook in args.hooks.split(",")
        for mode in args.modes.split(",")
    ]
    report = {
        "benchmark": "hook_overhead",
        "command": command_line("benchmarks/hook_overhead.py", sys.argv[1:]),
        "code": code_version(),
        "machine": machine(),
        "versions": versions(),
        "load_average_1_5_15": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]},
        "results": results,
    }
    print("| hook | mode | think ms | step p50 ms | step p95 ms | step p99 ms | query after episode p50 / p95 ms | episode end p50 / p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        s, q, end = r["step"], r["query_after_episode"], r["episode_end"]
        ends = f"{end['p50_ms']} / {end['p95_ms']}" if end else "–"
        print(f"| {r['hook']} | {r['mode']} | {r['think_ms']:g} | {s['p50_ms']} | {s['p95_ms']} | {s['p99_ms']} | {q['p50_ms']} / {q['p95_ms']} | {ends} |")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
