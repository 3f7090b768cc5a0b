#!/usr/bin/env python
"""Self-learning: does an agent get better at its tasks with DeltaCore, and survive drift?

A seeded, LLM-free operations world (``benchmarks/_selflearn/world.py``): "deploy S to E" and
"recover the J job of S" over 16 services, each with hidden rules (a pending migration before a
deploy, an approval in production, the one rollout strategy / restart mode that works, a queue
to drain), multi-step episodes with only a terminal reward, irrelevant tools, flaky tools (random
timeouts), a **schema change** (``deploy``'s ``env`` renamed ``environment``) and a **rule
change** (a change freeze: staging deploys need an approval too). The tools are real LangChain
``StructuredTool``s; the agent (``_selflearn/policy.py``) runs each plan as one LangChain run
calling them through ``BaseTool.invoke``. The same seeded policy runs with three memories
(``_selflearn/memories.py``): none; a plain vector memory (every episode embedded, the most
similar one recalled, outcomes not learned); DeltaCore (LangChain callback handler +
``recall_decisions`` + ``record_outcome``).

Reported per system, averaged over seeds (± standard deviation across seeds): success rate per
window of episodes (plot), final success (last 50 episodes), episodes needed to get back to 80 %
of the pre-change success after the schema change and after the rule change, and for DeltaCore
the credit accuracy: the share of credit weight its ``OutcomeReport``s put on the tool steps the
world's rules actually required.

Usage (the figures in docs/benchmarks.md come from)::

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False \\
        .venv/bin/python benchmarks/self_learning.py --seeds 5 --jobs 2

``--embedder fake`` (the deterministic ``deltacore.testing.FakeEmbedder``) runs without the model.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _provenance import code_version, command_line, machine  # noqa: E402
from _selflearn.memories import DeltaCoreMemory, NaiveMemory, NoMemory  # noqa: E402
from _selflearn.policy import choose, execute  # noqa: E402
from _selflearn.world import World, WorldConfig  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ("none", "naive", "deltacore")
FINAL = 50
"""Final success = the last this many episodes."""
RECOVERY_WINDOW = 10
"""Recovered when the success rate over this many episodes reaches 80 % of the level before."""
PRE_WINDOW = 30
"""The "before" level: success over this many episodes before the change."""


def run_system(system: str, seed: int, config: WorldConfig, embedder: Any, folder: Path) -> dict[str, Any]:
    """One memory system on one seeded world: the per-episode record."""
    world = World(seed, config)
    if system == "none":
        memory: NoMemory = NoMemory()
    elif system == "naive":
        memory = NaiveMemory(embedder)
    else:
        memory = DeltaCoreMemory(embedder, folder / f"deltacore-{seed}")
    rng = random.Random(f"policy-{seed}")  # the same policy stream for every system
    ids = random.Random(f"runs-{seed}-{system}")
    record: dict[str, Any] = {"success": [], "reused": [], "credit": []}
    started = time.perf_counter()
    try:
        for episode, task in enumerate(world.tasks()):
            world.begin(episode, task)
            callbacks = memory.callbacks(world)
            tools = {tool.name: tool for tool in world.tools()}
            choice = choose(task, memory.advise(task, world), tools, rng)
            run_id = str(uuid.UUID(int=ids.getrandbits(128), version=4))
            memory.reused(choice, run_id, task)
            executed = execute(world, task, choice.plan, run_id, callbacks)
            executed.reused = choice.reused
            learned = memory.learn(executed)
            record["success"].append(executed.success)
            record["reused"].append(choice.reused)
            if "credit" in learned:
                record["credit"].append({**learned["credit"], "success": executed.success})
    finally:
        memory.close()
    record["seconds"] = round(time.perf_counter() - started, 1)
    return record


# ---- metrics --------------------------------------------------------------------------------------


def rate(values: list[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def windows(success: list[bool], width: int) -> list[float]:
    return [rate(success[start : start + width]) for start in range(0, len(success), width)]


def recovery(success: list[bool], change: int) -> int | None:
    """Episodes after ``change`` until the success rate over the next RECOVERY_WINDOW episodes
    is back to 80 % of the rate over the PRE_WINDOW episodes before it (None: never)."""
    before = rate(success[max(0, change - PRE_WINDOW) : change])
    for offset in range(0, len(success) - change - RECOVERY_WINDOW + 1):
        if rate(success[change + offset : change + offset + RECOVERY_WINDOW]) >= 0.8 * before:
            return offset
    return None


def credit_accuracy(credit: list[dict[str, Any]]) -> dict[str, Any]:
    """Share of credit weight on needed tool steps, over successful episodes that had at least
    one unneeded tool step (elsewhere the share is 1 whatever the engine does)."""
    contested = [c for c in credit if c["success"] and c["unneeded"] > 0]
    shares = [c["needed"] / (c["needed"] + c["unneeded"]) for c in contested]
    return {"mean": statistics.fmean(shares) if shares else None, "episodes": len(shares)}


def spread(values: list[float]) -> dict[str, Any]:
    values = [v for v in values if v is not None]
    if not values:
        return {"mean": None, "std": None, "min": None, "max": None, "n": 0}
    return {
        "mean": statistics.fmean(values),
        "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def summarise(runs: dict[str, list[dict[str, Any]]], config: WorldConfig, width: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system, records in runs.items():
        per_seed_windows = [windows(r["success"], width) for r in records]
        schema = [recovery(r["success"], config.schema_change_at) for r in records]
        rule = [recovery(r["success"], config.rule_change_at) for r in records]
        summary = {
            "final_success": spread([rate(r["success"][-FINAL:]) for r in records]),
            "overall_success": spread([rate(r["success"]) for r in records]),
            "pre_schema_change_success": spread(
                [rate(r["success"][config.schema_change_at - PRE_WINDOW : config.schema_change_at]) for r in records]
            ),
            "recovery_schema_change": {**spread([float(v) for v in schema if v is not None]), "per_seed": schema},
            "recovery_rule_change": {**spread([float(v) for v in rule if v is not None]), "per_seed": rule},
            "window_success": {
                "mean": [statistics.fmean(col) for col in zip(*per_seed_windows)],
                "std": [statistics.pstdev(col) for col in zip(*per_seed_windows)],
            },
            "reuse_rate": spread([rate(r["reused"]) for r in records]),
            "seconds_per_seed": spread([r["seconds"] for r in records]),
        }
        if any(r["credit"] for r in records):
            accuracy = [credit_accuracy(r["credit"]) for r in records]
            summary["credit_accuracy"] = {
                **spread([a["mean"] for a in accuracy]),
                "contested_episodes": sum(a["episodes"] for a in accuracy),
            }
        out[system] = summary
    return out


# ---- provenance of the figures ---------------------------------------------------------------------


# ---- output ------------------------------------------------------------------------------------------

LABELS = {"none": "no memory", "naive": "naive vector memory", "deltacore": "DeltaCore"}


def _pct(stats: dict[str, Any]) -> str:
    return "–" if stats["mean"] is None else f"{100 * stats['mean']:.1f} ± {100 * stats['std']:.1f}"


def _episodes(stats: dict[str, Any]) -> str:
    never = sum(1 for v in stats["per_seed"] if v is None)
    text = "–" if stats["mean"] is None else f"{stats['mean']:.1f} ± {stats['std']:.1f}"
    return text + (f" ({never} seed(s) never)" if never else "")


def table(report: dict[str, Any]) -> str:
    rows = [
        "| system | final success (last 50) % | overall % | recovery after schema change (episodes) "
        "| recovery after rule change (episodes) | credit accuracy |",
        "|---|---|---|---|---|---|",
    ]
    for system, s in report["results"].items():
        credit = s.get("credit_accuracy")
        credit_text = "–" if not credit or credit["mean"] is None else f"{credit['mean']:.3f} ± {credit['std']:.3f}"
        rows.append(
            f"| {LABELS[system]} | {_pct(s['final_success'])} | {_pct(s['overall_success'])} "
            f"| {_episodes(s['recovery_schema_change'])} | {_episodes(s['recovery_rule_change'])} | {credit_text} |"
        )
    return "\n".join(rows)


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width, config = report["window"], report["world"]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for system, s in report["results"].items():
        mean, std = s["window_success"]["mean"], s["window_success"]["std"]
        x = [width * i + width / 2 for i in range(len(mean))]
        ax.plot(x, [100 * v for v in mean], marker="o", label=LABELS[system])
        ax.fill_between(x, [100 * (m - d) for m, d in zip(mean, std)], [100 * (m + d) for m, d in zip(mean, std)], alpha=0.15)
    for at, label in ((config["schema_change_at"], "schema change"), (config["rule_change_at"], "rule change")):
        ax.axvline(at, color="grey", linestyle="--", linewidth=1)
        ax.text(at + 2, 3, label, fontsize=8, color="grey")
    ax.set_ylim(0, 100)
    ax.set_xlim(0, config["episodes"])
    ax.set_xlabel("episode")
    ax.set_ylabel(f"success rate per {width} episodes (%)")
    commit = report["code"]["commit"][:10]
    ax.set_title(f"Self-learning ops world, {len(report['seeds'])} seeds, {report['embedder']} embedder ({commit})")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def run_seed(seed: int, systems: list[str], config: WorldConfig, embedder_name: str, quiet: bool) -> dict[str, Any]:
    """Every system on one seed (one worker process with ``--jobs``)."""
    embedder = make_embedder(embedder_name)
    records = {}
    # A tmpfs when there is one: the stores' fsyncs would otherwise measure the disk of a
    # shared VM, not learning (the figures are success rates; time is only reported).
    base = "/dev/shm" if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="selflearn-", dir=base) as tmp:
        for system in systems:
            records[system] = record = run_system(system, seed, config, embedder, Path(tmp))
            if not quiet:
                final = rate(record["success"][-FINAL:])
                print(f"seed {seed} {system:9s} final {final:.2f} in {record['seconds']}s", file=sys.stderr, flush=True)
    return records


def make_embedder(name: str) -> Any:
    if name == "fake":
        from deltacore.testing import FakeEmbedder

        return FakeEmbedder()
    import torch

    torch.set_num_threads(1)  # stable on a shared 2-core machine
    from deltacore.embedding import MiniLMEmbedder

    return MiniLMEmbedder()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="number of seeds (0 … n-1)")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--schema-change-at", type=int, help="default: 40 %% of the episodes")
    parser.add_argument("--rule-change-at", type=int, help="default: two thirds of the episodes")
    parser.add_argument("--services", type=int, default=16, help="services in the world (at most 24)")
    parser.add_argument("--window", type=int, default=25, help="episodes per point of the success curve")
    parser.add_argument("--embedder", choices=["minilm", "fake"], default="minilm")
    parser.add_argument("--systems", nargs="*", choices=SYSTEMS, default=list(SYSTEMS))
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "results" / "self_learning.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "img" / "self_learning.png")
    parser.add_argument("--jobs", type=int, default=1, help="seeds run in parallel processes")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    config = WorldConfig(
        episodes=args.episodes,
        schema_change_at=args.schema_change_at if args.schema_change_at is not None else int(args.episodes * 0.4),
        rule_change_at=args.rule_change_at if args.rule_change_at is not None else int(args.episodes * 2 / 3),
        services=args.services,
    )
    if not 1 <= args.services <= 24:
        parser.error("--services must be between 1 and 24")
    code = code_version()  # at the start: the tree may move while a long run goes on
    jobs = [(seed, args.systems, config, args.embedder, args.quiet) for seed in range(args.seeds)]
    if args.jobs > 1 and args.seeds > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(args.jobs, args.seeds)) as pool:
            per_seed = pool.starmap(run_seed, jobs)
    else:
        per_seed = [run_seed(*job) for job in jobs]
    runs = {system: [records[system] for records in per_seed] for system in args.systems}

    report = {
        "command": command_line("benchmarks/self_learning.py", list(argv if argv is not None else sys.argv[1:])),
        "seeds": list(range(args.seeds)),
        "embedder": args.embedder,
        "window": args.window,
        "world": vars(config),
        "results": summarise(runs, config, args.window),
        "per_seed_success": {system: ["".join("1" if s else "0" for s in r["success"]) for r in records] for system, records in runs.items()},
        "machine": machine(),
        "code": code,
    }
    print(table(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    plot(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
