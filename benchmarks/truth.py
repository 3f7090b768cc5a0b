"""What is still true: current values, values as of a date, history, and no collateral damage.

A generated, seeded timeline world (``_truth/world.py``): a few hundred fact slots over people,
services and projects, each changing 0–5 times over the year that ends today; statements in many
phrasings (third person, first person with the speaker as actor, tool-result JSON, corrections,
"as of DATE"), from users, tools, documents and peer agents; paraphrased repeats; old values
restated by low-trust sources after they changed; look-alike slots (Ana/Anna, home/work city,
staging/production); late arrivals with their true time; three unrelated memories per statement.
Template sets with disjoint phrasings and vocabularies: ``tune`` (the engine may be tuned
on it), ``heldout`` (never tuned on, but its templates have been read: "seen-heldout") and
``fresh`` (``_truth/fresh.py``: other attributes, JSON shapes and words, its own random stream;
run for reports only, never while tuning) and ``fresh2`` (``_truth/fresh2.py``: written and committed
before the next round of engine work and run only once it was final; casual change shapes and
distractors that name a subject and another value without setting the slot) and ``fresh3``
(``_truth/fresh3.py``: written blind, by someone who never read the engine; dentists, commutes,
office devices in two wings, standup times, office sites; "has since gone over to", passive,
dialogue and log-line changes, dates in several formats) and ``fresh4`` (``_truth/fresh4.py``: also
written blind, from the benchmark alone; banks, gyms, cars, a line manager beside a look-alike
mentor, lab instruments in two look-alike rooms with a custodian and an open ticket, procedure
revisions, lab groups' request channels, studies' budget codes, budget holders and report dates;
e-mail, ticket, log, table, "Key: value" and meeting-note shapes, "since WEEKDAY") and ``fresh5``
(``_truth/fresh5.py``: blind as well; mobile numbers, time zones, plans and look-alike billing and
delivery addresses, repository branches main/develop with CI status, base image and reviewer,
licences, weekly sync slots, customer accounts' managers, renewals and support tiers; chat,
@mention/emoji, YAML/INI/CSV, commit, changelog, Dockerfile diff, invite and CRM audit shapes,
hedges, questions and negations as distractors) and ``fresh6`` (``_truth/fresh6.py``: blind too;
pharmacies, diets, airline seats and look-alike default and backup payment cards, smart-home devices
in two look-alike flats with connection state, Wi-Fi network and warranty end, the hub app of a
device type, club venues, shops' opening hours, suppliers and keyholders; voice transcripts, SMS
shorthand, e-mails with signatures, receipts, telemetry JSON, forms, calendar and to-do items) and
``fresh7`` (``_truth/fresh7.py``: blind too; a haulage fleet: drivers' home depots, shift patterns, vans
and look-alike primary and relief routes, yard equipment in two look-alike yards with a status,
an inspection date and a responsible person, equipment contractors, crews' radio talkgroups, runs'
departure times, hauliers and lead drivers; rota lines, workshop tickets, status boards, CSV and pipe
tables, e-mails, "04MAR27" dates), ``fresh8`` (``_truth/fresh8.py``: written blind, read from session 21 on; a hospital: resident
doctors' ward placements, rota patterns, bleeps and look-alike clinical and educational supervisors,
medical devices on two look-alike wards with a status, a software version and a maintenance due
date, device vendors, hospital teams' bleeps and extensions, clinics' start times, rooms and lead
clinicians; handover lists, EHR-style audit lines, eRoster, EBME and switchboard notices, FHIR-like
tool results, "04-03-2027", "4/3/27" and "20270304" dates) and ``fresh9`` (``_truth/fresh9.py``: blind
too; a TV soap's production office: cast members' dressing rooms, agents, contract ends and
look-alike stand-ins and stunt doubles, kit on two look-alike stages with a status, a rig position
and an operator, hire companies, departments' bases, episodes' directors, TX dates and edit
suites) and ``fresh10`` (``_truth/fresh10.py``: blind too; a hotel group's operations: apprentices'
home properties, shift patterns, appraisal dates and look-alike workplace buddies and college
assessors, guest outlets at two look-alike city-centre hotels with a status, opening hours and an
outlet manager, the companies running outlet types as concessions, departments' heads, booked
functions' dates, function rooms and events coordinators; staff lists, duty logs, BEOs, compendium
revisions, "04-MAR-27" and "04/03/2027" dates) and ``fresh11`` (``_truth/fresh11.py``: blind too; a
regional water utility's field operations: operators' crews, utes, confined space refresher dates and
look-alike water and sewage treatment plants they are nominated for, plant equipment at two look-alike
water treatment plants with a status, a PLC program version and a maintaining fitter, the contractors
servicing equipment types, sections' prestart places, capital works jobs' shutdown dates, contractors
and superintendent's representatives; crew sheets, fleet lists, shift logs, interruption notices,
"4/03/2027", "2027-03-04" and "Thu 4/3" dates) and ``fresh12`` (``_truth/fresh12.py``: blind too; a
regional airport's ground operations: ground staff's home bases, shift patterns, airside pass expiry
dates and look-alike primary and relief team leaders, ground support equipment on two look-alike
aprons with a status, a software build and a responsible engineer, the contractors maintaining
equipment types, departments' briefing rooms, scheduled turns' stands, departure times and turnaround
coordinators; "ramp control:" radio lines, ops log and handover notes, NOTAM-like GSE notices,
key=value config lines, "=>" allocation lines, "04 Mar 2027", "04MAR27 0912Z" and "4 March" dates) and
``fresh13`` (``_truth/fresh13.py``: blind too; a Puget Sound container terminal: steady workers' work
areas, assigned container handling units, physical due dates and look-alike day and night foremen,
terminal equipment on two look-alike piers with a status, controller firmware and an assigned
mechanic, the vendors holding equipment types' service agreements, departments' radio channels,
vessel calls' ETAs, berths and supercargoes; steady boards, foreman matrices, upper-case TOS audit
lines, "Tower to all gangs" radio calls, equipment log lines, long-range schedules, "Mar 04, 2027",
"03/04/27" and "202703040915" dates) and ``fresh14`` (``_truth/fresh14.py``: blind too; a city
newsroom and broadcaster: journalists' beats, hot desks, press card expiry dates and look-alike print
and web editors, broadcast kit in two look-alike studios with a status, a software version and a
technician, the vendors holding kit types' maintenance contracts, sections' morning conference rooms,
specials' publish dates, output slots and producers; beat lists, edit chains, CMS-style audit lines,
engineering boards and kit logs, running orders, planning grids, e-mails, "has been moved onto the …
beat", "hands over to", "4/3/27", "4 Mar", "March 4th" and "Thu 04.03.2027" dates).
Arms on the same vectors: vector top-k, BM25, hybrid RRF, the newest of the top-20 semantic hits,
and DeltaCore through its public API.

    python benchmarks/truth.py --templates all                   # MiniLM, all sixteen sets
    python benchmarks/truth.py --quick --embedder fake           # seconds

Figures (issue 15): current value at rank 1 (changed slots), as-of value at rank 1, history
("before X?") at rank 1, collateral rate (unchanged slots next to a changed look-alike whose
statement is flagged or pushed out of the top 5), paraphrases counted as contradictions, stale
detection precision/recall (service status observations), wall time per arm.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/: locomo.py and _truth/

import _vector_cache as vector_cache  # noqa: E402
from _provenance import code_version, command_line, machine, versions  # noqa: E402
from _truth.arms import DeltaCoreArm, Peers, embedding_texts  # noqa: E402
from _truth.metrics import TARGETS, arm_metrics, verdicts  # noqa: E402
from _truth.sets import NAMES as TEMPLATE_SETS  # noqa: E402
from _truth.world import World, build_world, default_anchor  # noqa: E402
from locomo import DocumentCache  # noqa: E402

ARMS = ("vector top-k", "BM25", "hybrid RRF", "newest of top-20", "DeltaCore")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--templates", choices=TEMPLATE_SETS + ("both", "all"),
                        default="both", help=f"both = tune + heldout; all = {' + '.join(TEMPLATE_SETS)}")
    parser.add_argument("--slots", type=int, default=200, help="fact slots per world")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", choices=("minilm", "fake"), default="minilm")
    parser.add_argument("--quick", action="store_true", help="a 40-slot world (smoke runs)")
    parser.add_argument("--anchor", type=lambda s: datetime.fromisoformat(s).replace(tzinfo=timezone.utc),
                        help="the world's 'today' (YYYY-MM-DD; default: today, UTC)")
    parser.add_argument("--out", type=Path, default=Path("docs/results/truth.json"))
    parser.add_argument("--plot", type=Path, default=Path("docs/img/truth.png"), help="chart path ('' to skip)")
    parser.add_argument("--vector-cache", type=Path, help="an .npz of embedded texts, reused across runs (same embedder)")
    parser.add_argument("--workdir", type=Path, help="where the DeltaCore stores are built (default: a temp folder)")
    parser.add_argument("--examples", type=int, default=4, help="DeltaCore misses to keep per question kind")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    code = code_version()  # at the start: the engine as imported
    slots = 40 if args.quick else args.slots

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - started:6.0f}s] {message}", file=sys.stderr, flush=True)

    anchor = args.anchor or default_anchor()
    sets = {"both": ("tune", "heldout"), "all": TEMPLATE_SETS}.get(args.templates, (args.templates,))
    worlds = [build_world(name, slots, args.seed, anchor) for name in sets]
    progress(f"worlds built: {', '.join(f'{w.template_set} {len(w.statements)} statements' for w in worlds)}")

    embedder = SharedVectors(_embedder(args.embedder))
    embedder.vectors.update(vector_cache.load(args.vector_cache, embedder.name()))
    cached = len(embedder.vectors)
    embed_started = time.perf_counter()
    embedder.warm([t for w in worlds for t in embedding_texts(w).values()] + [q.text for w in worlds for q in w.questions] + ["probe"])
    embed_seconds = time.perf_counter() - embed_started
    progress(f"embedded {len(embedder.vectors) - cached} texts in {embed_seconds:.0f}s ({cached} from the cache)")
    vector_cache.save(args.vector_cache, embedder.name(), embedder.vectors)

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="truth-") as tmp:
        workdir = args.workdir or Path(tmp)
        for world in worlds:
            answers = Peers(world, embedder).answer(world.questions)
            progress(f"{world.template_set}: peers answered {len(world.questions)} questions")
            answers["DeltaCore"] = DeltaCoreArm(world, embedder, workdir / f"deltacore-{world.template_set}").answer(world.questions)
            progress(f"{world.template_set}: DeltaCore ingested in {answers['DeltaCore'].index_seconds:.0f}s and answered")
            figures = {name: arm_metrics(world, answers[name]) for name in ARMS}
            dc = answers["DeltaCore"]
            results[world.template_set] = {
                "world": describe(world),
                "arms": figures,
                "deltacore": {"notes": dc.notes, **{k: v for k, v in dc.extras.items() if k != "conflict_records"}},
                "verdicts": verdicts(figures),
                "deltacore_misses": misses(world, dc.hits, args.examples),
            }

    report = {
        "command": command_line("benchmarks/truth.py", list(argv if argv is not None else sys.argv[1:])),
        "code": code,
        "machine": {**machine(), "load_average": list(os.getloadavg())},
        "versions": versions(),
        "embedder": embedder.name(),
        "embedding_seconds": round(embed_seconds, 1),
        "texts_embedded_by_the_arms": embedder.live[:50],
        "seed": args.seed,
        "slots": slots,
        "anchor": anchor.date().isoformat(),
        "top_k": 5,
        "targets": TARGETS,
        "results": results,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print_tables(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    if str(args.plot) not in ("", "."):
        plot(report, args.plot)
    return 0


class SharedVectors(DocumentCache):
    """Every stored text and question embedded once, up front; keeps what an arm still had to
    embed itself (only the engine's own canary memories, when every arm searches the shared
    vectors)."""

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self.live: list[str] = []

    def __call__(self, input: list[str]) -> Any:
        self.live += [text for text in input if text not in self.vectors]
        return super().__call__(input)


def _embedder(kind: str) -> Any:
    if kind == "fake":
        from deltacore.testing import FakeEmbedder

        return FakeEmbedder(384)
    from deltacore.embedding import MiniLMEmbedder

    return MiniLMEmbedder()


def describe(world: World) -> dict[str, Any]:
    from collections import Counter

    slots = world.slots.values()
    return {
        "slots": len(world.slots),
        "slots_by_entity": dict(Counter(s.entity_kind for s in slots)),
        "changed_slots": sum(s.changed for s in slots),
        "changes": sum(len(s.values) - 1 for s in slots),
        "unchanged_with_changed_lookalike": sum(not s.changed and any(world.slots[k].changed for k in s.lookalikes) for s in slots),
        "observation_slots": {"stale": sum(bool(s.stale) for s in slots), "fresh": sum(s.stale is False for s in slots)},
        "statements": len(world.statements),
        "statements_by_role": dict(sorted(Counter(s.role for s in world.statements).items())),
        "statements_by_channel": dict(sorted(Counter(s.channel for s in world.statements).items())),
        "paraphrase_pairs": len(world.paraphrase_pairs),
        "questions": dict(Counter(q.kind for q in world.questions)),
    }


def misses(world: World, hits: dict[str, Any], per_kind: int) -> dict[str, list[dict[str, Any]]]:
    """A few questions DeltaCore's rank 1 got wrong, with what it returned (for reading, not scoring)."""
    by_id = {s.id: s for s in world.statements}
    out: dict[str, list[dict[str, Any]]] = {}
    for q in world.questions:
        top = hits[q.id][0] if hits[q.id] else None
        got = by_id.get(top.id) if top else None
        if got is not None and got.slot == q.slot and got.value == q.expected:
            continue
        kind = q.kind if q.kind != "current" else ("current_changed" if world.slots[q.slot].changed else "current_unchanged")
        bucket = out.setdefault(kind, [])
        if len(bucket) < per_kind:
            bucket.append({"question": q.text, "expected": q.expected, "as_of": q.as_of,
                           "rank_1": got.text if got else None, "rank_1_role": got.role if got else None,
                           "rank_1_flags": sorted(top.flags) if top else []})
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def print_tables(report: dict[str, Any]) -> None:
    for name, result in report["results"].items():
        w = result["world"]
        print(f"\n{name} templates: {w['slots']} slots ({w['changed_slots']} changed, {w['changes']} changes), "
              f"{w['statements']} statements, questions {w['questions']}")
        print("| arm | current@1 changed | current@1 unchanged | rank 1 = old value | as-of@1 | history@1 "
              "| collateral (look-alike) | collateral (all unchanged) | paraphrase → conflict | stale P / R | index s | query ms |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for arm, m in result["arms"].items():
            print(f"| {arm} | {_pct(m.get('current_at_1_changed'))} | {_pct(m.get('current_at_1_unchanged'))} "
                  f"| {_pct(m.get('current_rank_1_is_old_value'))} | {_pct(m.get('as_of_at_1'))} | {_pct(m.get('history_at_1'))} "
                  f"| {_pct(m.get('collateral_lookalike'))} | {_pct(m.get('collateral_all_unchanged'))} "
                  f"| {_pct(m['paraphrase_as_contradiction'])} | {_pct(m['stale_precision'])} / {_pct(m['stale_recall'])} "
                  f"| {m['index_seconds']:.1f} | {m['query_ms_mean']:.1f} |")
        dc = result["deltacore"]
        print(f"DeltaCore: as_of {'supported' if dc.get('as_of_supported') else 'not supported'}; "
              f"belief API {dc.get('api')}; notes {dc.get('notes')}")
        for target, v in result["verdicts"].items():
            print(f"  {target}: {v['value']} (target {v['target']}) {'met' if v['met'] else 'NOT met'}")


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [("current_at_1_changed", "current@1\n(changed)"), ("as_of_at_1", "as-of@1"), ("history_at_1", "history@1"),
               ("collateral_lookalike", "collateral\n(look-alike, lower\nis better)")]
    sets = list(report["results"])
    fig, axes = plt.subplots(1, len(sets), figsize=(6.5 * len(sets), 4.4), squeeze=False)
    for ax, name in zip(axes[0], sets):
        arms = report["results"][name]["arms"]
        width = 0.8 / len(arms)
        for i, (arm, m) in enumerate(arms.items()):
            values = [m.get(key) or 0 for key, _ in metrics]
            ax.bar([x + i * width for x in range(len(metrics))], values, width, label=arm)
        ax.set_xticks([x + width * (len(arms) - 1) / 2 for x in range(len(metrics))], [label for _, label in metrics], fontsize=8)
        ax.axhline(TARGETS["current_at_1"], color="black", linestyle=":", linewidth=1)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{name} templates ({report['results'][name]['world']['slots']} slots)")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"What is still true (rank 1, k = 5; {report['embedder'].split('/')[-1]}; dotted: 0.90 target)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
