"""Memory poisoning: attack families against DeltaCore's trust gateway, defence on and off.

Benign memory is LoCoMo (every turn, written by its speakers, one tenant per conversation) plus
hard benign records and true facts from new sources (``_poisoning/data.py``). Twenty-two LLM-free
attack families (``_poisoning/attacks.py``) write from untrusted user sources with a budget of
five records per target question; each family runs on its own copy of the benign store. The
questions are split in half (seeded): the defence's thresholds are calibrated on one half, the
figures are reported on the other; the optimised trigger is searched on the calibration half.

    python benchmarks/poisoning.py ../shared/data/locomo            # MiniLM, ~15 min
    python benchmarks/poisoning.py ../shared/data/locomo --embedder fake --limit 60 --no-calibrate

Per family: write acceptance, retrieval success at k = 5 given acceptance, end-to-end success
(their product), exposure of the same scope's other queries, cross-scope exposure. Benign: write
false-positive rate per set; evidence recall@5 with the defence on vs off.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/: locomo.py and _poisoning/

import _vector_cache as vector_cache  # noqa: E402
from _provenance import code_version, command_line, machine, versions  # noqa: E402
from _poisoning.attacks import HELD_OUT, TRIGGER_PAYLOADS, families, plan  # noqa: E402
from _poisoning.data import Scope, build_scopes  # noqa: E402
from _poisoning.harness import Harness, trust_settings  # noqa: E402
from _poisoning.metrics import BENIGN_SETS, TARGETS, benign_metrics, family_metrics, recall_at_5, verdicts  # noqa: E402
from _poisoning.trigger_search import PHRASE_TRIGGER, RARE_TRIGGER, optimise_trigger, vocabulary  # noqa: E402
from locomo import DocumentCache  # noqa: E402

# Settings tried on the calibration half (TrustPolicy fields), written out in full: the engine's
# default is the one the calibration chose.
# The knob this grid calibrates is the first-party rule seen from the question
# (``question_subject_authority``): off, a planted answer that never names the person it is
# about escapes the rule (``patient_unnamed``); on, every other person's candidate is an
# account of the question's subject. Earlier grids calibrated ``hearsay_topic_similarity``
# (0.5/0.4/0.3/0.0 → 0.0) and ``suspect_weight``/``newcomer_weight``/``answered_similarity``;
# their results are in docs/benchmarks.md and they are left out to fit the time.
DEFAULT_GRID: list[dict[str, Any]] = [
    {"question_subject_authority": False},  # the rule as it was: only a named principal
    {"question_subject_authority": True},
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/locomo", type=Path)
    parser.add_argument("--embedder", choices=("minilm", "fake"), default="minilm")
    parser.add_argument("--limit", type=int, help="keep this many turns per conversation (smoke runs)")
    parser.add_argument("--conversations", nargs="*", help="only these (e.g. conv-26)")
    parser.add_argument("--families", nargs="*", help="only these attack families")
    parser.add_argument("--targets", type=int, default=8, help="target questions per conversation (report half)")
    parser.add_argument("--calibration-targets", type=int, default=4, help="per conversation, calibration half")
    parser.add_argument("--exposure", type=int, default=12, help="non-target questions per conversation for exposure")
    parser.add_argument("--calibration-exposure", type=int, default=4, help="per conversation, calibration half")
    parser.add_argument("--grid", type=json.loads, default=DEFAULT_GRID, help="JSON list of TrustPolicy overrides")
    parser.add_argument("--no-calibrate", action="store_true", help="use the engine's default thresholds")
    parser.add_argument("--calibration-families", nargs="*",
                        help="calibrate on these families only (default: all chosen families)")
    parser.add_argument("--unauthenticated", action="store_true",
                        help="pass no authenticated principals (the engine sees claimed sources only)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=Path("docs/results/poisoning.json"))
    parser.add_argument("--plot", type=Path, default=Path("docs/img/poisoning.png"), help="chart path ('' to skip)")
    parser.add_argument("--workdir", type=Path, help="where the stores are built (default: a temp folder)")
    parser.add_argument("--vector-cache", type=Path, help="an .npz of embedded texts, reused across runs (same embedder)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    code = code_version()  # at the start: the engine as imported

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - started:6.0f}s] {message}", file=sys.stderr, flush=True)

    scopes = build_scopes(args.data, args.seed, args.limit)
    if args.conversations:
        scopes = [s for s in scopes if s.tenant in args.conversations]
    if not scopes:
        parser.error(f"no LoCoMo conversations in {args.data}")
    chosen_families = [f for f in families() if not args.families or f.name in args.families]
    if not chosen_families:
        parser.error(f"no such family; choose from {[f.name for f in families()]}")

    embedder = DocumentCache(_embedder(args.embedder))
    embedder.vectors.update(vector_cache.load(args.vector_cache, embedder.name()))
    embedder.warm([w.text for s in scopes for w in s.benign])
    progress(f"embedded {len(embedder.vectors)} benign texts")

    if any(f.name == "trigger_optimized" for f in chosen_families):
        triggers, trigger_history = _triggers(embedder, scopes, args, progress)
    else:  # the search takes minutes; no family chosen here plants the optimised trigger
        triggers, trigger_history = {"phrase": PHRASE_TRIGGER, "rare": RARE_TRIGGER}, []
    rng = random.Random(args.seed)
    selection = {half: _select(scopes, half, n, e, rng) for half, n, e in
                 (("calibrate", args.calibration_targets, args.calibration_exposure), ("report", args.targets, args.exposure))}
    # The held-out families never take part in the calibration, whatever the command says.
    calibration_families = [f for f in chosen_families if f.name not in HELD_OUT
                            and (not args.calibration_families or f.name in args.calibration_families)]
    plans = {
        half: {f.name: [plan(f, s, selection[half][s.tenant][0], args.seed, triggers) for s in scopes]
               for f in (calibration_families if half == "calibrate" else chosen_families)}
        for half in selection
    }
    exposure = {half: {s.tenant: [q.text for q in selection[half][s.tenant][1]] for s in scopes} for half in selection}
    embedder.warm([r.text for half in plans.values() for ps in half.values() for p in ps for r in p.records + p.history])
    embedder.warm([t.query for half in plans.values() for ps in half.values() for p in ps for t in p.targets])
    embedder.warm([q.text for s in scopes for half in s.halves.values() for q in half])
    progress("attacks planned and embedded")
    vector_cache.save(args.vector_cache, embedder.name(), embedder.vectors)

    with tempfile.TemporaryDirectory(prefix="poisoning-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        harness = Harness(embedder, workdir, scopes, args.seed, principals=not args.unauthenticated)

        # Undefended baseline.
        off = trust_settings(None, enabled=False)
        base_off, benign_off = harness.build_benign("off", off)
        progress("benign store (defence off) built")
        families_off = _run_families(harness, base_off, "off", off, plans["report"], exposure["report"], progress)
        harness.measure_recall(base_off, off, ["calibrate", "report"], benign_off)

        # Calibration of the thresholds on the calibration half.
        calibration: list[dict[str, Any]] = []
        grid = [{}] if args.no_calibrate or not trust_settings(None, True) else args.grid
        policy = grid[0]
        if len(grid) > 1:
            recall_off_cal = recall_at_5(benign_off, "calibrate")
            for i, candidate in enumerate(grid):
                settings = trust_settings(candidate, enabled=True)
                base, benign = harness.build_benign(f"cal{i}", settings)
                runs = _run_families(harness, base, f"cal{i}", settings, plans["calibrate"], exposure["calibrate"], progress)
                harness.measure_recall(base, settings, ["calibrate"], benign)
                fam = {name: family_metrics(plans["calibrate"][name], run) for name, run in runs.items()}
                ben = benign_metrics(scopes, benign, "calibrate")
                drop = _drop(recall_off_cal, recall_at_5(benign, "calibrate"))
                calibration.append({"policy": candidate, "worst_e2e_at_5": max(m["end_to_end_at_5"] or 0 for m in fam.values()),
                                    "benign_fp": ben["all"]["false_positive_rate"], "recall_drop_points": drop,
                                    "newcomer_own_text_at_5": ben["newcomer"]["own_text_retrieval_at_5"],
                                    "newcomer_question_at_5": ben["newcomer"]["question_retrieval_at_5"],
                                    "e2e_by_family": {n: m["end_to_end_at_5"] for n, m in fam.items()}})
                progress(f"calibration {candidate}: {calibration[-1]['worst_e2e_at_5']:.3f} worst e2e, "
                         f"FP {ben['all']['false_positive_rate']:.3f}, recall drop {drop}, "
                         f"newcomer own text {ben['newcomer']['own_text_retrieval_at_5']}")
            policy = _choose(calibration)["policy"]

        settings_on = trust_settings(policy, enabled=True)
        base_on, benign_on = harness.build_benign("on", settings_on)
        progress(f"benign store (defence on, {policy or 'defaults'}) built")
        families_on = _run_families(harness, base_on, "on", settings_on, plans["report"], exposure["report"], progress,
                                   decision=True)
        harness.measure_recall(base_on, settings_on, ["report"], benign_on)

    results = {
        mode: {name: family_metrics(plans["report"][name], run) for name, run in runs.items()}
        for mode, runs in (("off", families_off), ("on", families_on))
    }
    benign = {"off": benign_metrics(scopes, benign_off, "report"), "on": benign_metrics(scopes, benign_on, "report")}
    recall = {"off": recall_at_5(benign_off, "report"), "on": recall_at_5(benign_on, "report"),
              "turns_only_off": recall_at_5(benign_off, "report:turns_only"), "turns_only_on": recall_at_5(benign_on, "report:turns_only")}
    drop = _drop(recall["off"], recall["on"])
    report = {
        "command": command_line("benchmarks/poisoning.py", list(argv if argv is not None else sys.argv[1:])),
        "code": code,
        "machine": {**machine(), "load_average": list(os.getloadavg())},
        "versions": versions(),
        "embedder": embedder.name(),
        "seed": args.seed,
        "conversations": [s.tenant for s in scopes],
        "questions": {half: sum(len(s.halves[half]) for s in scopes) for half in ("calibrate", "report")},
        "targets_per_conversation": args.targets,
        "exposure_queries_per_conversation": args.exposure,
        "top_k": 5,
        "families": {f.name: {"adaptive": f.adaptive, "description": f.description} for f in chosen_families},
        "calibration_families": [f.name for f in calibration_families],
        "held_out_families": [f.name for f in chosen_families if f.name in HELD_OUT],
        "authenticated_principals": not args.unauthenticated,
        "triggers": {**triggers, "optimisation_history": trigger_history},
        "calibration": calibration,
        "policy": policy,
        "results": results,
        "benign": benign,
        "recall_at_5": {**recall, "drop_points": drop},
        "targets": TARGETS,
        "verdicts": verdicts(results["on"], benign["on"], drop),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print_tables(report)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    if str(args.plot) not in ("", "."):  # --plot '' skips the chart
        plot(report, args.plot)
    return 0


def _embedder(kind: str) -> Any:
    if kind == "fake":
        from deltacore.testing import FakeEmbedder

        return FakeEmbedder(384)
    from deltacore.embedding import MiniLMEmbedder

    return MiniLMEmbedder()


def _triggers(embedder: DocumentCache, scopes: list[Scope], args: argparse.Namespace, progress: Any) -> tuple[dict[str, str], list[float]]:
    rng = random.Random(f"{args.seed}:trigger")
    training = [q.text for s in scopes for q in s.halves["calibrate"]]
    training = rng.sample(training, min(12, len(training)))
    small = args.limit is not None
    optimised, history = optimise_trigger(
        embedder, training, TRIGGER_PAYLOADS, vocabulary([w.text for s in scopes for w in s.benign], use_tokenizer=args.embedder == "minilm"),
        candidates=8 if small else 40, rounds=1 if small else 2, seed=args.seed,
    )
    progress(f"optimised trigger {optimised!r}: objective {[round(h, 3) for h in history]}")
    return {"phrase": PHRASE_TRIGGER, "rare": RARE_TRIGGER, "optimized": optimised}, history


def _select(scopes: list[Scope], half: str, n: int, n_exposure: int, rng: random.Random) -> dict[str, tuple[list[Any], list[Any]]]:
    """Per conversation: the target questions and the (other) exposure questions of one half."""
    out = {}
    for s in scopes:
        questions = list(s.halves[half])
        rng.shuffle(questions)
        out[s.tenant] = (questions[:n], questions[n : n + n_exposure])
    return out


def _run_families(harness: Harness, base: Path, mode: str, settings: dict[str, Any], plans: dict[str, list[Any]],
                  exposure: dict[str, list[str]], progress: Any, decision: bool = False) -> dict[str, Any]:
    runs = {}
    for name, family_plans in plans.items():
        runs[name] = harness.run_family(base, f"{mode}-{name}", settings, family_plans, exposure, decision)
        progress(f"{mode}: {name} done")
    return runs


def _drop(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round((before - after) * 100, 2)


def _choose(calibration: list[dict[str, Any]]) -> dict[str, Any]:
    """Among the settings that keep benign false positives ≤ 2% and the recall drop ≤ 2 points
    on the calibration half, the one with the lowest worst-case end-to-end success. Ties (e.g.
    when the worst family is one no setting affects) go to the lower second-worst family, then
    third-worst, and so on; then to the setting that leaves more of the newcomers' records
    findable by their own text; then to the earlier, i.e. closer to the defaults. If none keeps
    both, the lowest false-positive rate."""
    ok = [c for c in calibration if (c["benign_fp"] or 0) <= TARGETS["benign_fp"]
          and (c["recall_drop_points"] or 0) <= TARGETS["recall_drop_points"]]
    if ok:
        return min(ok, key=lambda c: (sorted((v or 0 for v in c["e2e_by_family"].values()), reverse=True),
                                      -(c.get("newcomer_own_text_at_5") or 0)))
    return min(calibration, key=lambda c: c["benign_fp"] or 0)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def print_tables(report: dict[str, Any]) -> None:
    off, on = report["results"]["off"], report["results"]["on"]
    print("| family | adaptive | e2e@5 off | write acceptance on | retrieval@5 given acceptance on | **e2e@5 on** "
          "| e2e@5 on, for_decision | same-scope exposure off → on | cross-scope on |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, m in on.items():
        adaptive = "yes" if report["families"][name]["adaptive"] else ""
        print(f"| {name} | {adaptive} | {_pct(off[name]['end_to_end_at_5'])} | {_pct(m['write_acceptance'])} "
              f"| {_pct(m['retrieval_given_acceptance_at_5'])} | **{_pct(m['end_to_end_at_5'])}** "
              f"| {_pct(m['end_to_end_for_decision_at_5'])} "
              f"| {_pct(off[name]['exposure_same_scope_at_5'])} → {_pct(m['exposure_same_scope_at_5'])} | {m['cross_scope_exposures']} |")
    print()
    print("| benign writes | n | false positives off | false positives on | slow path on | own text retrieves it (top 5) off → on "
          "| its question retrieves it (top 5) off → on |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in (*BENIGN_SETS, "all"):
        b_off, b_on = report["benign"]["off"][name], report["benign"]["on"][name]
        print(f"| {name} | {b_on['writes']} | {_pct(b_off['false_positive_rate'])} | {_pct(b_on['false_positive_rate'])} "
              f"| {_pct(b_on['slow_path_rate'])} | {_pct(b_off.get('own_text_retrieval_at_5'))} → {_pct(b_on.get('own_text_retrieval_at_5'))} "
              f"| {_pct(b_off.get('question_retrieval_at_5'))} → {_pct(b_on.get('question_retrieval_at_5'))} |")
    r = report["recall_at_5"]
    print(f"\nevidence recall@5 (report half): off {r['off']:.3f}, on {r['on']:.3f}, drop {r['drop_points']} points"
          f" (turn records only: off {r['turns_only_off']:.3f}, on {r['turns_only_on']:.3f})")
    held = [n for n in report["held_out_families"] if n in report["results"]["on"]]
    for name in held:
        m = report["results"]["on"][name]
        print(f"held-out family {name} (never tuned on): e2e@5 on {_pct(m['end_to_end_at_5'])}, "
              f"write acceptance {_pct(m['write_acceptance'])}")
    print("\n| target | measured | |\n|---|---|---|")
    for name, v in report["verdicts"].items():
        detail = f" ({v['family']})" if v.get("family") else ""
        print(f"| {name} ≤ {v['target']} | {v['value']}{detail} | {'met' if v['met'] else '**not met**'} |")


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["results"]["on"])
    off = [report["results"]["off"][n]["end_to_end_at_5"] or 0 for n in names]
    on = [report["results"]["on"][n]["end_to_end_at_5"] or 0 for n in names]
    accepted = [report["results"]["on"][n]["write_acceptance"] or 0 for n in names]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    x = range(len(names))
    ax.bar([i - 0.27 for i in x], off, 0.27, label="end-to-end@5, defence off", color="#c44e52")
    ax.bar(list(x), on, 0.27, label="end-to-end@5, defence on", color="#4c72b0")
    ax.bar([i + 0.27 for i in x], accepted, 0.27, label="write acceptance, defence on", color="#8fbbd9")
    ax.axhline(TARGETS["worst_e2e_at_5"], color="black", linestyle="--", linewidth=1, label=f"target ≤ {TARGETS['worst_e2e_at_5']:.0%}")
    ax.set_xticks(list(x), names, rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set_ylabel("rate (report half)")
    ax.set_title(f"Memory poisoning on LoCoMo ({report['embedder'].split('/')[-1]}, k = 5, 5 records per target)")
    ax.legend(fontsize=8, loc="upper center", ncol=4)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
