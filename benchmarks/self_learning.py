#!/usr/bin/env python
"""Self-learning: does a FIXED agent get better at tool-using tasks with DeltaCore's advice,
generalise across entities, stay calibrated, and survive drift?

The agent (``_selflearn/policy.py``) holds no learning: per episode it ingests the user's task
message (``meta["task"]`` = kind, fields, entity, tags, attributes), asks the engine
``recall_plans(task, tools)``, follows the best plan when its ``probability >= 0.5`` and
explores otherwise (a fixed, seeded policy: random valid calls from the tools on offer), ingests
each tool call and its result as events (``meta["error"]`` = exception type and message on a
failure, as an adapter writes it) and calls ``record_outcome(±1)``. Mapping remembered calls
onto the task, evidence, ranking, credit, calibration and migrations are the engine's.

Four seeded, LLM-free worlds (``--world``):

* ``ops`` — the TUNING world (``_selflearn/world.py``): deploys and job recoveries with hidden
  per-service rules, irrelevant tools, flaky tools, a parameter rename and a rule change.
* ``heldout`` — a world the engine's tuning never sees (``_selflearn/heldout.py``): a data
  platform (connector syncs, table backfills with random dates, dataset grants) with different
  tools, task kinds, entities and hidden rules: an ENTITY-SPECIFIC rule (only Postgres
  connectors need their credentials refreshed first), three tool-schema changes mid-run (a
  rename at 30 %, an added parameter with a default at 45 %, a dropped parameter at 55 %), a
  hidden-rule change at 70 % (every writer grant needs a review), transient failures (timeouts
  and 429 rate limits) and a trailing read-only ``check_status`` step (``readOnlyHint``) that
  never matters.
* ``fresh`` — a third world (``_selflearn/fresh.py``), written before the last round of engine
  changes and run only once they were final: a device fleet (firmware updates, device
  restarts, site badges) with a model-specific precondition, a hidden per-device constant,
  a parameter rename at 35 %, a dropped parameter at 50 % and a hidden-rule change at 65 %.
* ``unseen`` — a fourth world (``_selflearn/unseen.py``), written after the others had been
  read while tuning, and run only to be reported: a parcel courier (shipments, refunds, depot
  closing) with a sector-specific precondition, a hidden per-customer service, two parameter
  renames (30 %, 55 %) and a hidden-rule change at 70 %.

Peers, same seeds and worlds, same policy stream (``_selflearn/memories.py``): no memory; a
naive vector memory (a plain Chroma collection on the same vectors: the calls of the most
similar past success, its field values replaced by this task's); a drift-blind table of the
last successful plan per (task kind, entity); a drift-aware reference (the same table, its calls
migrated to the tools on offer).

Metrics, per system, mean ± std over seeds: success over the last 50 episodes and overall;
recovery after each change (episodes until the success rate over the next 10 is back to 80 %
of the 30 before); the share of episodes that followed advice and their success; for DeltaCore
credit accuracy (over followed plans with at least one step the world did not need: the share
where a step the world's rules required got the highest ``PlanStep.credit``; and, stricter, the
share of (needed, unneeded) step pairs that credit orders right) and the expected
calibration error of ``Plan.probability`` against the outcome when followed (10 bins), with a
reliability diagram.

Usage (the figures in docs/benchmarks.md come from)::

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/self_learning.py --world ops --seeds 5 --jobs 2
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/self_learning.py --world heldout --seeds 5 --jobs 2
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/self_learning.py --world fresh --seeds 5 --jobs 2

With schemas (issue 18): ``--systems deltacore deltacore_sleep`` runs the same store and policy
twice in one process, the second with ``consolidate()`` after every ``--consolidate-every`` (25)
episodes, so success with and without consolidation compares on one task stream.

Quick mode (the smoke test): ``--fake-embedder --episodes 60 --seeds 1``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _provenance import code_version, command_line, machine
from _selflearn.fresh import FleetWorld
from _selflearn.heldout import DataWorld
from _selflearn.memories import (
    DeltaCoreMemory,
    DriftAwareTable,
    NaiveVectorMemory,
    NoMemory,
    PlanTable,
)
from _selflearn.policy import run_episode
from _selflearn.unseen import CourierWorld
from _selflearn.world import OpsWorld, WorldConfig

ROOT = Path(__file__).resolve().parent.parent
WORLDS = {"ops": OpsWorld, "heldout": DataWorld, "fresh": FleetWorld, "unseen": CourierWorld}
SYSTEMS = ("none", "naive", "table", "reference", "deltacore", "deltacore_sleep")
LABELS = {
    "none": "no memory",
    "naive": "naive vector memory",
    "table": "drift-blind plan table",
    "reference": "drift-aware plan table (reference)",
    "deltacore": "DeltaCore",
    "deltacore_sleep": "DeltaCore + consolidate()",
}
DEFAULT_SYSTEMS = ("none", "naive", "table", "reference", "deltacore")
CONSOLIDATE_EVERY = 25
"""``deltacore_sleep``: the same store, policy and stream as ``deltacore``, with a
``consolidate()`` cycle after every this many episodes (``--consolidate-every``)."""
FINAL = 50
RECOVERY_WINDOW = 10
PRE_WINDOW = 30
BINS = 10


def make_system(system: str, embedder: Any, folder: Path, writes: str = "step", every: int = CONSOLIDATE_EVERY) -> Any:
    if system == "none":
        return NoMemory()
    if system == "naive":
        return NaiveVectorMemory(embedder)
    if system == "table":
        return PlanTable()
    if system == "reference":
        return DriftAwareTable()
    return DeltaCoreMemory(embedder, folder, writes, every if system == "deltacore_sleep" else 0)


def run_system(
    system: str,
    seed: int,
    world_name: str,
    config: WorldConfig,
    embedder: Any,
    folder: Path,
    writes: str = "step",
    every: int = CONSOLIDATE_EVERY,
) -> dict:
    """One system on one seeded world: the per-episode record."""
    world = WORLDS[world_name](seed, config)
    memory = make_system(system, embedder, folder / f"{system}-{seed}", writes, every)
    rng = random.Random(
        f"policy-{seed}"
    )  # the same exploration stream for every system
    ids = random.Random(f"episodes-{seed}")
    record: dict[str, Any] = {
        "success": [],
        "followed": [],
        "credit_pairs": [],
        "offers": [],
        "calibration": [],
        "credit": [],
    }
    started = time.perf_counter()
    try:
        for index, task in enumerate(world.tasks()):
            world.begin(index, task)
            episode = run_episode(world, task, memory, rng, ids)
            record["success"].append(episode.success)
            record["followed"].append(episode.followed)
            plans = getattr(memory, "last_plans", None)
            if (
                plans is not None
            ):  # diagnostics: the engine's best offer, followed or not
                best = plans[0] if plans else None
                record["offers"].append(
                    None
                    if best is None
                    else {
                        "p": round(float(best.probability), 3),
                        "flags": sorted(best.flags),
                        "n": best.evidence.episodes,
                    }
                )
            advice = episode.advice
            if advice is not None and advice.probability is not None:
                record["calibration"].append((advice.probability, episode.success))
            if advice is not None and advice.credit:
                unneeded = [
                    i
                    for i in range(len(episode.steps))
                    if i not in episode.needed_steps
                ]
                if unneeded and episode.needed_steps:
                    top = max(range(len(advice.credit)), key=lambda i: advice.credit[i])
                    record["credit"].append(top in episode.needed_steps)
                    pairs = [
                        advice.credit[n] > advice.credit[u]
                        for n in episode.needed_steps
                        for u in unneeded
                    ]
                    record["credit_pairs"].append(rate(pairs))
    finally:
        memory.close()
    if getattr(memory, "cycles", None):
        record["cycles"] = memory.cycles
    record["seconds"] = round(time.perf_counter() - started, 1)
    return record


# ---- metrics --------------------------------------------------------------------------------------


def rate(values: list[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def windows(success: list[bool], width: int) -> list[float]:
    return [
        rate(success[start : start + width]) for start in range(0, len(success), width)
    ]


def recovery(success: list[bool], change: int) -> int | None:
    """Episodes after ``change`` until the success rate over the next RECOVERY_WINDOW episodes
    is back to 80 % of the rate over the PRE_WINDOW episodes before it (None: never)."""
    before = rate(success[max(0, change - PRE_WINDOW) : change])
    for offset in range(len(success) - change - RECOVERY_WINDOW + 1):
        if (
            rate(success[change + offset : change + offset + RECOVERY_WINDOW])
            >= 0.8 * before
        ):
            return offset
    return None


def reliability(pairs: list[tuple[float, bool]]) -> dict[str, Any]:
    """Expected calibration error over BINS equal-width bins, and the diagram's points."""
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(BINS)]
    for p, ok in pairs:
        bins[min(BINS - 1, int(p * BINS))].append((p, ok))
    points = [
        {
            "confidence": statistics.fmean(p for p, _ in b),
            "accuracy": rate([ok for _, ok in b]),
            "n": len(b),
        }
        for b in bins
        if b
    ]
    ece = (
        sum(pt["n"] * abs(pt["confidence"] - pt["accuracy"]) for pt in points)
        / len(pairs)
        if pairs
        else None
    )
    return {"ece": ece, "points": points, "n": len(pairs)}


def spread(values: list[float | None]) -> dict[str, Any]:
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return {"mean": None, "std": None, "min": None, "max": None, "n": 0}
    return {
        "mean": statistics.fmean(values),
        "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def summarise(
    runs: dict[str, list[dict[str, Any]]], changes: dict[str, int], width: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system, records in runs.items():
        per_seed_windows = [windows(r["success"], width) for r in records]
        summary: dict[str, Any] = {
            "final_success": spread([rate(r["success"][-FINAL:]) for r in records]),
            "overall_success": spread([rate(r["success"]) for r in records]),
            "recovery": {},
            "window_success": {
                "mean": [statistics.fmean(col) for col in zip(*per_seed_windows)],
                "std": [statistics.pstdev(col) for col in zip(*per_seed_windows)],
            },
            "followed_rate": spread([rate(r["followed"]) for r in records]),
            "success_when_followed": spread(
                [
                    rate([s for s, f in zip(r["success"], r["followed"]) if f])
                    for r in records
                ]
            ),
            "seconds_per_seed": spread([r["seconds"] for r in records]),
        }
        for name, at in changes.items():
            per_seed = [recovery(r["success"], at) for r in records]
            summary["recovery"][name] = {
                **spread([float(v) for v in per_seed if v is not None]),
                "per_seed": per_seed,
            }
        if any("cycles" in r for r in records):
            summary["consolidation_cycles"] = [r.get("cycles", []) for r in records]
        if system.startswith("deltacore"):
            summary["credit_accuracy"] = {
                **spread([rate(r["credit"]) if r["credit"] else None for r in records]),
                "contested_plans": sum(len(r["credit"]) for r in records),
                # Stricter: the share of (needed, unneeded) step pairs ordered right by credit.
                "pairwise": spread(
                    [
                        statistics.fmean(r["credit_pairs"])
                        if r["credit_pairs"]
                        else None
                        for r in records
                    ]
                ),
            }
            pooled = reliability([tuple(p) for r in records for p in r["calibration"]])
            summary["calibration"] = {
                **pooled,
                "ece_per_seed": [
                    reliability([tuple(p) for p in r["calibration"]])["ece"]
                    for r in records
                ],
            }
        out[system] = summary
    return out


# ---- output ----------------------------------------------------------------------------------------


def _pct(stats: dict[str, Any]) -> str:
    return (
        "–"
        if stats["mean"] is None
        else f"{100 * stats['mean']:.1f} ± {100 * stats['std']:.1f}"
    )


def _episodes(stats: dict[str, Any]) -> str:
    never = sum(1 for v in stats["per_seed"] if v is None)
    text = "–" if stats["mean"] is None else f"{stats['mean']:.1f}"
    return text + (f" ({never} never)" if never else "")


def table(report: dict[str, Any]) -> str:
    changes = list(report["world"]["changes"])
    head = [
        "system",
        "last-50 success %",
        "overall %",
        "followed %",
        "success when followed %",
    ]
    head += [f"recovery: {c} (episodes)" for c in changes] + ["credit accuracy", "ECE"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, s in report["results"].items():
        credit, cal = s.get("credit_accuracy"), s.get("calibration")
        cells = [LABELS[system], _pct(s["final_success"]), _pct(s["overall_success"]), _pct(s["followed_rate"]),
                 _pct(s["success_when_followed"])]  # fmt: skip
        cells += [_episodes(s["recovery"][c]) for c in changes]
        cells.append(
            "–"
            if not credit or credit["mean"] is None
            else f"{credit['mean']:.3f} ({credit['contested_plans']})"
        )
        cells.append(
            "–" if not cal or cal["ece"] is None else f"{cal['ece']:.3f} ({cal['n']})"
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width, world = report["window"], report["world"]
    fig, (ax, rel) = plt.subplots(
        1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [2, 1]}
    )
    for system, s in report["results"].items():
        mean, std = s["window_success"]["mean"], s["window_success"]["std"]
        x = [width * i + width / 2 for i in range(len(mean))]
        ax.plot(x, [100 * v for v in mean], marker="o", label=LABELS[system])
        lo, hi = (
            [100 * (m - d) for m, d in zip(mean, std)],
            [100 * (m + d) for m, d in zip(mean, std)],
        )
        ax.fill_between(x, lo, hi, alpha=0.12)
    for name, at in world["changes"].items():
        ax.axvline(at, color="grey", linestyle="--", linewidth=1)
        ax.text(
            at + 1,
            2,
            name.split(":")[0],
            fontsize=7,
            color="grey",
            rotation=90,
            va="bottom",
        )
    ax.set_ylim(0, 100)
    ax.set_xlim(0, world["episodes"])
    ax.set_xlabel("episode")
    ax.set_ylabel(f"success per {width} episodes (%)")
    ax.set_title(
        f"{report['world_name']} world, {len(report['seeds'])} seeds, {report['embedder']} embedder"
    )
    ax.legend(loc="lower right", fontsize=8)
    cal = report["results"].get("deltacore", {}).get("calibration")
    rel.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
    if cal and cal["points"]:
        xs = [p["confidence"] for p in cal["points"]]
        ys = [p["accuracy"] for p in cal["points"]]
        rel.scatter(
            xs, ys, s=[10 + 200 * p["n"] / cal["n"] for p in cal["points"]], zorder=3
        )
        rel.plot(xs, ys, linewidth=1)
        rel.set_title(
            f"DeltaCore reliability (followed plans), ECE {cal['ece']:.3f}", fontsize=9
        )
    rel.set_xlim(0, 1)
    rel.set_ylim(0, 1)
    rel.set_xlabel("Plan.probability")
    rel.set_ylabel("observed success")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def make_embedder(fake: bool) -> Any:
    if fake:
        from deltacore.testing import FakeEmbedder

        return FakeEmbedder()
    import torch

    torch.set_num_threads(1)  # stable on a shared 2-core machine
    from deltacore.embedding import MiniLMEmbedder

    return MiniLMEmbedder()


def run_seed(
    seed: int,
    systems: list[str],
    world: str,
    config: WorldConfig,
    fake: bool,
    quiet: bool,
    writes: str = "step",
    every: int = CONSOLIDATE_EVERY,
) -> dict:
    """Every system on one seed (one worker process with ``--jobs``)."""
    embedder = make_embedder(fake)
    records = {}
    # A tmpfs when there is one: the stores' fsyncs would otherwise measure the disk of a
    # shared VM, not learning (the figures are success rates; time is only reported).
    base = (
        "/dev/shm"
        if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK)
        else None
    )
    with tempfile.TemporaryDirectory(prefix="selflearn-", dir=base) as tmp:
        for system in systems:
            records[system] = record = run_system(
                system, seed, world, config, embedder, Path(tmp), writes, every
            )
            if not quiet:
                final = rate(record["success"][-FINAL:])
                print(
                    f"{world} seed {seed} {system:9s} last-50 {final:.2f} in {record['seconds']}s",
                    file=sys.stderr,
                    flush=True,
                )
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--world",
        choices=sorted(WORLDS),
        default="ops",
        help="ops = tuning, heldout = held out, fresh = never seen while tuning",
    )
    parser.add_argument(
        "--seeds", type=int, default=5, help="number of seeds (0 … n-1)"
    )
    parser.add_argument(
        "--seed-list", type=int, nargs="*", help="run these seeds instead of 0 … n-1"
    )
    parser.add_argument(
        "--records-out", type=Path, help="write one seed's raw records here and stop"
    )
    parser.add_argument(
        "--from-records",
        type=Path,
        nargs="*",
        help="summarise seeds saved with --records-out",
    )
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument(
        "--entities", type=int, default=16, help="entities in the world (at most 24)"
    )
    parser.add_argument(
        "--window", type=int, default=25, help="episodes per point of the success curve"
    )
    parser.add_argument(
        "--fake-embedder",
        action="store_true",
        help="deltacore.testing.FakeEmbedder, not MiniLM",
    )
    parser.add_argument("--systems", nargs="*", choices=SYSTEMS, default=list(DEFAULT_SYSTEMS),
                        help="deltacore_sleep: DeltaCore with consolidate() every --consolidate-every episodes")
    parser.add_argument("--consolidate-every", type=int, default=CONSOLIDATE_EVERY,
                        help="episodes between two consolidate() cycles of deltacore_sleep")
    parser.add_argument(
        "--json", type=Path, help="default docs/results/self_learning_<world>.json"
    )
    parser.add_argument(
        "--plot", type=Path, help="default docs/img/self_learning_<world>.png"
    )
    parser.add_argument(
        "--writes",
        choices=["step", "episode"],
        default="step",
        help="DeltaCore: ingest each call/result as it happens (step), or the episode's steps in one batch",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="seeds run in parallel processes"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.entities <= 24:
        parser.error("--entities must be between 1 and 24")
    json_path = (
        args.json or ROOT / "docs" / "results" / f"self_learning_{args.world}.json"
    )
    plot_path = args.plot or ROOT / "docs" / "img" / f"self_learning_{args.world}.png"

    config = WorldConfig(episodes=args.episodes, entities=args.entities)
    WORLDS[args.world](
        0, config
    )  # fills config.changes from the world's change fractions
    code = code_version()  # at the start: the tree may move while a long run goes on
    started = time.time()
    seeds = args.seed_list if args.seed_list is not None else list(range(args.seeds))
    jobs = [
        (
            seed,
            args.systems,
            args.world,
            config,
            args.fake_embedder,
            args.quiet,
            args.writes,
            args.consolidate_every,
        )
        for seed in seeds
    ]
    if args.from_records:
        # Seeds run as separate processes (--seed-list N --records-out F), summarised together.
        per_seed, seeds = [], []
        for path in args.from_records:
            saved = json.loads(Path(path).read_text())
            seeds.append(saved["seed"])
            per_seed.append(saved["records"])
        code = json.loads(Path(args.from_records[0]).read_text())["code"]
    elif args.jobs > 1 and len(seeds) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(
            min(args.jobs, len(seeds))
        ) as pool:
            per_seed = pool.starmap(run_seed, jobs)
    else:
        per_seed = [run_seed(*job) for job in jobs]
    if args.records_out:
        assert len(seeds) == 1, "--records-out takes one seed (--seed-list N)"
        args.records_out.write_text(
            json.dumps({"seed": seeds[0], "records": per_seed[0], "code": code}) + "\n"
        )
        return 0
    runs = {
        system: [records[system] for records in per_seed] for system in args.systems
    }

    report = {
        "command": command_line(
            "benchmarks/self_learning.py",
            list(argv if argv is not None else sys.argv[1:]),
        ),
        "world_name": args.world,
        "seeds": seeds,
        "embedder": "fake" if args.fake_embedder else "minilm",
        "window": args.window,
        "writes": args.writes,
        "world": {
            "episodes": config.episodes,
            "entities": config.entities,
            "changes": dict(config.changes),
        },
        "results": summarise(runs, config.changes, args.window),
        "deltacore_offers": [r["offers"] for r in runs.get("deltacore", [])],
        "per_seed_success": {
            s: ["".join("1" if x else "0" for x in r["success"]) for r in recs]
            for s, recs in runs.items()
        },
        "wall_seconds": round(time.time() - started, 1),
        "load_average": os.getloadavg(),
        "machine": machine(),
        "code": code,
    }
    print(table(report))
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    plot(report, plot_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
