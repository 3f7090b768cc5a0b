"""Sleep-cycle consolidation on a long noisy agent stream built from LoCoMo dev conversations.

Each conversation is ingested as in ``benchmarks/locomo.py`` (one tenant per conversation,
speaker as actor, session as scope), and every turn twice more as a re-telling in the same
session a few seconds later — one with a lead-in ("Like I said, …"), one lower-cased with its
final punctuation changed — plus, per session, a tool episode repeated three times (a calendar
lookup and its result). Then ``consolidate()`` runs once per tenant with the default policy,
through the public API, with 50 registered probe texts per tenant (turn texts drawn with a
fixed seed; never the benchmark's questions).

Measured:

- live WARM items after consolidation, as a share of the raw event count;
- LoCoMo evidence recall@10 (every question of categories 1–4) before and after, where a
  retrieved memory covers the turn it is, the turn it re-tells, or every turn a merged memory
  derives from; and, as a peer in the same run, a store given only the original turns;
- unique facts lost: evidence turns no longer readable by id with the text the store held
  before the cycle (ingest strips surrounding whitespace; those turns are counted apart);
- query p95 of a reader thread asking the tenant's own questions while its cycle runs. Each
  query is labelled by the store it ran against, from the cycle's ``progress("apply", …)``
  reports: *before the apply* (it ended before the first apply transaction committed) is
  compared with the same reader on the same store just before the cycle; *after the apply* (it
  started after the last commit: the gate's second pass and the cycle's end run beside it) with
  the same reader on the consolidated store just after the cycle; a query that overlapped the
  commits is counted *across the apply* and in neither. The whole window against the idle store
  before the cycle (the figure reported before the split) is kept as ``combined``. A group of
  fewer than :data:`MIN_GROUP` queries gets no ratio.

The policy's defaults were chosen on conversations 26 and 30 (the tuned set); conversations 41,
42 and 43 are the held-out set, reported separately and never tuned on. Each set runs in its
own stores.

    python benchmarks/consolidation.py ../shared/data/locomo            # both sets
    python benchmarks/consolidation.py ../shared/data/locomo --sets heldout
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions
from locomo import Conversation, DocumentCache, load

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

K = 10
PROBES = 50


def retellings(text: str) -> list[str]:
    """Two re-tellings of a turn: a lead-in, and a lower-cased copy with other punctuation."""
    bare = text.rstrip(" .!?")
    return [f"Like I said, {text}", bare[:1].lower() + bare[1:] + "..."]


def stream(conv: Conversation, noisy: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for t in conv.turns:
        scope = {"tenant": conv.name, "session_id": f"session_{t.session}", "episode_id": f"session_{t.session}"}
        events.append({"id": f"{conv.name}:{t.dia_id}", "text": t.text, "actor": t.speaker, "ts": t.ts, **scope})
        if noisy:
            for n, text in enumerate(retellings(t.text), start=1):
                events.append({"id": f"{conv.name}:{t.dia_id}:r{n}", "text": text, "actor": t.speaker,
                               "ts": t.ts + timedelta(seconds=10 * n), **scope})
    if noisy:
        sessions = sorted({t.session for t in conv.turns})
        for s in sessions:
            first = next(t for t in conv.turns if t.session == s)
            for n in range(3):
                ts = first.ts + timedelta(seconds=5 + n)
                scope = {"tenant": conv.name, "session_id": f"session_{s}", "episode_id": f"session_{s}"}
                events.append({"id": f"{conv.name}:tool:{s}:{n}:call", "kind": "tool_call", "tool_name": "calendar_lookup",
                               "tool_args": {"date": first.ts.date().isoformat()},
                               "text": f"calendar_lookup date={first.ts.date().isoformat()}", "ts": ts, **scope})
                events.append({"id": f"{conv.name}:tool:{s}:{n}:result", "kind": "tool_result",
                               "tool_name": "calendar_lookup",
                               "text": f"calendar_lookup returned: {first.speaker} has a chat scheduled on "
                                       f"{first.ts.date().isoformat()}", "ts": ts + timedelta(seconds=1), **scope})
    return events


def covered(packet: Any) -> set[str]:
    """The LoCoMo turns (dia ids) a retrieved memory stands for."""
    ids = packet.meta.get("derives_from") or [packet.id]
    out = set()
    for event_id in ids:
        rest = event_id.split(":", 1)[1] if ":" in event_id else ""
        if rest and not rest.startswith("tool:"):
            out.add(rest.rsplit(":", 1)[0] if rest.endswith((":r1", ":r2")) else rest)
    return out


def recall(memory: Any, conversations: list[Conversation]) -> tuple[float, list[float]]:
    values, latencies = [], []
    for conv in conversations:
        for q in conv.questions:
            started = time.perf_counter()
            packets = memory.query(q.text, tenant=conv.name, top_k=K, include_deltas=False)
            latencies.append(time.perf_counter() - started)
            found: set[str] = set()
            for p in packets:
                found |= covered(p)
            values.append(len(set(q.evidence) & found) / len(q.evidence))
    return 100.0 * statistics.fmean(values), latencies


def live_count(memory: Any, tenant: str) -> int:
    count, after = 0, None
    while True:
        page = memory.events(tenant=tenant, after=after, limit=1000)
        count += len(page)
        if len(page) < 1000:
            return count
        after = page[-1].id


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return 1000.0 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


TUNED = ("conv-26", "conv-30")
"""Where the policy's defaults (merge threshold, gate metric, tolerances) were chosen."""
HELDOUT = ("conv-41", "conv-42", "conv-43")
"""Never tuned on: the defaults are checked here as they are."""
IDLE_QUERIES = 100
MIN_GROUP = 20
"""Fewer queries than this in a group: its p95 is one of a handful, reported as too few."""


class Reader:
    """A second thread querying the same store and tenant, timing each query; the same loop
    runs idle and during a cycle, so the two p95s are comparable."""

    def __init__(self, memory: Any, conv: Conversation) -> None:
        self.memory, self.conv = memory, conv
        self.latencies: list[float] = []
        self.spans: list[tuple[float, float]] = []
        """(start, end) of each query, perf_counter seconds: to place it before or after the apply."""
        self.stop = threading.Event()

    def run(self, limit: int | None = None) -> None:
        questions = self.conv.questions[:50]
        while not self.stop.is_set() and (limit is None or len(self.latencies) < limit):
            q = questions[len(self.latencies) % len(questions)]
            started = time.perf_counter()
            self.memory.query(q.text, tenant=self.conv.name, top_k=K, include_deltas=False)
            ended = time.perf_counter()
            self.spans.append((started, ended))
            self.latencies.append(ended - started)


class ApplyMarks:
    """The cycle's progress callback: when its first and last apply transactions committed."""

    def __init__(self) -> None:
        self.first_commit: float | None = None
        self.last_commit: float | None = None
        self.gate_done: float | None = None
        self.load_at_apply: tuple[float, ...] | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if phase == "apply" and done == 0:
            self.load_at_apply = os.getloadavg()
        if phase == "apply" and done >= 1 and self.first_commit is None:
            self.first_commit = now
        if phase == "apply" and done == total and done >= 1:
            self.last_commit = now
        if phase == "gate":
            self.gate_done = now


def split(reader: Reader, marks: ApplyMarks) -> dict[str, list[float]]:
    """The reader's during-cycle latencies by the store state each query ran against."""
    groups: dict[str, list[float]] = {"before_apply": [], "across_apply": [], "after_apply": []}
    first = marks.first_commit if marks.first_commit is not None else float("inf")
    last = marks.last_commit if marks.last_commit is not None else float("inf")
    for (start, end), latency in zip(reader.spans, reader.latencies):
        if end <= first:
            groups["before_apply"].append(latency)
        elif start >= last:
            groups["after_apply"].append(latency)
        else:
            groups["across_apply"].append(latency)
    return groups


def compared(during: list[float], idle: list[float]) -> dict[str, Any]:
    """p95 of a during-cycle group against its idle reference, or why there is no ratio."""
    out: dict[str, Any] = {"queries": len(during), "idle_queries": len(idle),
                           "p95_ms": round(p95(during), 1) if during else None,
                           "idle_p95_ms": round(p95(idle), 1) if idle else None}
    if len(during) < MIN_GROUP or len(idle) < MIN_GROUP:
        out["ratio"] = None
        out["note"] = f"too few queries for a p95 ratio (< {MIN_GROUP})"
    else:
        out["ratio"] = round(p95(during) / p95(idle), 2)
    return out


def idle_p95(memory: Any, conv: Conversation) -> tuple[list[float], tuple[float, ...]]:
    reader = Reader(memory, conv)
    thread = threading.Thread(target=reader.run, args=(IDLE_QUERIES,))
    thread.start()
    thread.join()
    return reader.latencies, os.getloadavg()


def run_set(conversations: list[Conversation], embedder: Any) -> dict[str, Any]:
    from deltacore import DeltaCore

    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        clean = DeltaCore.open(Path(tmp) / "clean", embedder=embedder)
        noisy = DeltaCore.open(Path(tmp) / "noisy", embedder=embedder)
        for conv in conversations:
            for store, is_noisy in ((clean, False), (noisy, True)):
                events = stream(conv, is_noisy)
                embedder.warm([e["text"] for e in events])
                for start in range(0, len(events), 256):
                    result = store.ingest(events[start : start + 256])
                    assert not result.rejected, result.rejected
            rng = random.Random(0)
            probes = [t.text for t in rng.sample(conv.turns, min(PROBES, len(conv.turns)))]
            noisy.register_probes(probes, tenant=conv.name)
            rows[conv.name] = {"raw": live_count(noisy, conv.name)}
            print(f"{conv.name}: {rows[conv.name]['raw']} raw events", file=sys.stderr, flush=True)
        recall_clean, _ = recall(clean, conversations)
        recall_before, _ = recall(noisy, conversations)
        evidence = {(c.name, e) for c in conversations for q in c.questions for e in q.evidence}
        # What the store acknowledged before any cycle: ingest strips surrounding whitespace, and
        # consolidation is judged on keeping what was stored, not on that normalisation.
        stored = {(name, dia): noisy.get(f"{name}:{dia}").text for name, dia in evidence}
        texts = {(c.name, t.dia_id): t.text for c in conversations for t in c.turns}
        normalised = sum(stored[key] != texts[key] for key in evidence)

        reports = {}
        idle_all: list[float] = []
        during_all: list[float] = []
        after_all: list[float] = []
        groups_all: dict[str, list[float]] = {"before_apply": [], "across_apply": [], "after_apply": []}
        for conv in conversations:
            idle, idle_load = idle_p95(noisy, conv)
            reader = Reader(noisy, conv)
            marks = ApplyMarks()
            asker = threading.Thread(target=reader.run)
            asker.start()
            started = time.perf_counter()
            try:
                report = noisy.consolidate(tenant=conv.name, progress=marks)
            finally:
                reader.stop.set()
                asker.join()
            seconds = round(time.perf_counter() - started, 2)
            during_load = os.getloadavg()
            # The same loop on the consolidated store: the reference for the queries that ran after
            # the apply (the gate's second pass follows it, on a store a third the size).
            after, after_load = idle_p95(noisy, conv)
            groups = split(reader, marks)
            for name, values in groups.items():
                groups_all[name] += values
            after_all += after
            idle_all += idle
            during_all += reader.latencies
            reports[conv.name] = report.model_dump(mode="json")
            rows[conv.name].update(live=live_count(noisy, conv.name), merged=report.merged,
                                   hidden=report.originals_hidden, rolled_back=report.rolled_back,
                                   precision_before=report.precision_before, precision_after=report.precision_after,
                                   fidelity=report.fidelity, seconds=seconds,
                                   p95_idle_ms=round(p95(idle), 1), load_idle=idle_load,
                                   p95_during_ms=round(p95(reader.latencies), 1) if reader.latencies else None,
                                   queries_during=len(reader.latencies), load_during=during_load,
                                   p95_idle_after_ms=round(p95(after), 1), load_idle_after=after_load,
                                   load_at_apply=marks.load_at_apply,
                                   apply_window_s=round(marks.last_commit - marks.first_commit, 2)
                                   if marks.last_commit is not None and marks.first_commit is not None else None,
                                   after_apply_window_s=round(started + seconds - marks.last_commit, 2)
                                   if marks.last_commit is not None else None,
                                   yields=report.yields, yield_seconds=report.yield_seconds,
                                   yield_overruns=report.yield_overruns,
                                   split=split_report(groups, idle, after))
            print(f"{conv.name}: {rows[conv.name]}", file=sys.stderr, flush=True)
        recall_after, _ = recall(noisy, conversations)
        lost = 0
        for conv_name, dia in evidence:
            try:
                lost += noisy.get(f"{conv_name}:{dia}").text != stored[(conv_name, dia)]
            except KeyError:
                lost += 1
        clean.close()
        noisy.close()
    raw = sum(r["raw"] for r in rows.values())
    live = sum(r["live"] for r in rows.values())
    idle_ms, during_ms = p95(idle_all), p95(during_all) if during_all else None
    return {
        "conversations": rows,
        "raw_events": raw,
        "live_after": live,
        "live_share": round(live / raw, 4),
        "recall_at_10": {"clean_store": round(recall_clean, 2), "noisy_before": round(recall_before, 2),
                         "noisy_after": round(recall_after, 2)},
        "evidence_turns": len(evidence),
        "unique_facts_lost": lost,
        "evidence_whitespace_normalised_at_ingest": normalised,
        "query_p95_ms": {"idle": round(idle_ms, 1), "during_cycle": round(during_ms, 1) if during_ms else None,
                         "ratio": round(during_ms / idle_ms, 2) if during_ms else None,
                         "idle_after_cycle": round(p95(after_all), 1) if after_all else None,
                         "idle_queries": len(idle_all), "during_queries": len(during_all)},
        "query_p95_split": split_report(groups_all, idle_all, after_all),
        "cycles": reports,
    }


def split_report(groups: dict[str, list[float]], idle: list[float], after: list[float]) -> dict[str, Any]:
    return {
        "before_apply_vs_idle_before": compared(groups["before_apply"], idle),
        "after_apply_vs_idle_after": compared(groups["after_apply"], after),
        "across_apply": {"queries": len(groups["across_apply"]),
                         "p95_ms": round(p95(groups["across_apply"]), 1) if groups["across_apply"] else None},
        "combined_vs_idle_before": compared([v for g in groups.values() for v in g], idle),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/locomo", type=Path)
    parser.add_argument("--json", type=Path, default=Path("docs/results/consolidation.json"))
    parser.add_argument("--plot", type=Path, default=Path("docs/img/consolidation_growth.png"))
    parser.add_argument("--sets", nargs="+", choices=("tuned", "heldout"), default=["tuned", "heldout"])
    parser.add_argument("--embedder", choices=("minilm", "fake"), default="minilm")
    args = parser.parse_args(argv)
    by_name = {c.name: c for c in load(args.data)}
    wanted = {"tuned": TUNED, "heldout": HELDOUT}
    sets = {name: [by_name[c] for c in wanted[name] if c in by_name] for name in args.sets}
    for name, conversations in sets.items():
        if len(conversations) != len(wanted[name]):
            parser.error(f"the {name} set needs {', '.join(wanted[name])} in {args.data}")
    if args.embedder == "fake":
        from deltacore.testing import FakeEmbedder

        model: Any = FakeEmbedder(384)
    else:
        from deltacore.embedding import MiniLMEmbedder

        model = MiniLMEmbedder()
    embedder = DocumentCache(model)
    report_json: dict[str, Any] = {
        "command": command_line("benchmarks/consolidation.py", list(argv if argv is not None else sys.argv[1:])),
        "embedder": embedder.name(),
        "machine": machine(),
        "code": code_version(),
        "versions": versions(),
        "sets": {},
    }
    for name, conversations in sets.items():
        started = time.perf_counter()
        result = run_set(conversations, embedder)
        result.update(seconds=round(time.perf_counter() - started, 1), load=os.getloadavg())
        report_json["sets"][name] = result
        latency = result["query_p95_ms"]
        print(f"[{name}] live WARM after consolidation: {result['live_after']}/{result['raw_events']} = "
              f"{100 * result['live_share']:.1f}% of raw")
        print(f"[{name}] recall@10: clean store {result['recall_at_10']['clean_store']:.2f}, "
              f"noisy before {result['recall_at_10']['noisy_before']:.2f}, after {result['recall_at_10']['noisy_after']:.2f}")
        print(f"[{name}] unique facts lost: {result['unique_facts_lost']} of {result['evidence_turns']} evidence turns")
        print(f"[{name}] query p95: idle {latency['idle']} ms, during a cycle {latency['during_cycle']} ms "
              f"(combined ratio {latency['ratio']}), load {result['load']}")
        honest = result["query_p95_split"]
        for label, key in (("before the apply vs idle before", "before_apply_vs_idle_before"),
                           ("after the apply vs idle after", "after_apply_vs_idle_after")):
            group = honest[key]
            ratio = group["ratio"] if group["ratio"] is not None else group["note"]
            print(f"[{name}] query p95 {label}: {group['p95_ms']} / {group['idle_p95_ms']} ms = {ratio} "
                  f"({group['queries']} / {group['idle_queries']} queries)")
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report_json, indent=2, default=str) + "\n")
    plot({f"{c} ({name})": row for name, result in report_json["sets"].items()
          for c, row in result["conversations"].items()}, args.plot)
    return 0


def plot(rows: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(rows)
    fig, ax = plt.subplots(figsize=(10, 3.8))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [rows[n]["raw"] for n in names], width=0.4, label="raw events")
    ax.bar([x + 0.2 for x in xs], [rows[n]["live"] for n in names], width=0.4, label="live WARM after one cycle")
    ax.set_xticks(list(xs), names, fontsize=8)
    ax.set_ylabel("memories")
    ax.set_title("Consolidation: live memories vs raw events (LoCoMo dev, noisy stream)")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    raise SystemExit(main())
