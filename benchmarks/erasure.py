#!/usr/bin/env python
"""Erasure, checked byte by byte: what a subject leaves behind after ``delete`` and ``forget``.

A store of N agent memories (the synthetic ops memories of ``ingest_query.py``) holds 20
synthetic people: 10 to erase and 10 to retain; 10 more are never inserted. Each person appears in
a user message (name and phone), a tool call with their data in its arguments and its result, a
fact, an agent note that names them only in its text, and a document-channel write; a query
about each is logged (retrieval log), the episode gets an outcome and a step gets feedback, so
derived data exists. Then the 10 are erased, one request each:

* ``delete``        today's ``delete(entity=name)`` then ``delete(user_id=…)`` (the baseline the
                    issue measured: it proves the scanner sees);
* ``forget``        ``forget(name, identifiers=[e-mail, phone, user id])``, one subject at a time;
* ``forget-batch``  the same 10 requests in one ``forget_many`` call (one physical pass).
* ``forget-then-batch``  the first ``--subjects`` one at a time, then the others in one
                    ``forget_many`` call, in the same store (one store build for both timings:
                    at 100,000 memories a build takes about 10 minutes).

and ``verify_erasure`` audits the store (``deltacore.compliance.audit``): probes through every
router, a byte scan of every file under the store folder (strings in UTF-8, UTF-16, JSON-escaped,
case-folded, base64; the subjects' vectors exactly and as near-duplicates), SQL scans of every
text column, and the membership test, with the 10 retained people as controls and the 10
never-inserted ones as the membership baseline. A second audit looks for the never-inserted
people (false positives). Reported: residue bytes per file class, subjects with residue, retained
people intact (all their events) and retrievable (a query about them returns one), never-inserted
false positives, and the time each erasure took.

    python benchmarks/erasure.py                       # 10k memories, fake embedder, delete + forget
    python benchmarks/erasure.py --small --erase delete
    python benchmarks/erasure.py --erase forget forget-batch --memories 100000
    python benchmarks/erasure.py --erase forget --database-url postgresql+psycopg://… --chroma-url http://127.0.0.1:8000
    python benchmarks/erasure.py --erase forget --concurrent-queries   # a second process queries meanwhile

With ``--concurrent-queries`` a second process opens the same store and queries it in a loop,
first while nothing else happens (idle, ``--idle-seconds``) and then while the erasures run; the
report gives that process's query latency (p50, p95) in both windows of the same run.

Synthetic data only, generated from ``--seed``: nothing is read from or copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _provenance import code_version, command_line, machine, versions  # noqa: E402
from ingest_query import make_memories  # noqa: E402

from deltacore import DeltaCore, Event  # noqa: E402
from deltacore.ingest.write_set import embedding_text  # noqa: E402

FIRST = ["Quillon", "Maribeth", "Thaddeus", "Ysolde", "Corwin", "Elowen", "Ignatius", "Rosalind", "Bartholo",
         "Wilhelmina", "Lysander", "Ottoline", "Percival", "Seraphine", "Anselm", "Clementine", "Evander",
         "Philippa", "Leopold", "Genevieve", "Cassius", "Henrietta", "Ambrose", "Marigold", "Fitzwilliam",
         "Isadora", "Barnaby", "Octavia", "Ptolemy", "Winifred"]  # fmt: skip
LAST = ["Vantongeren", "Oyelaran", "Kristiansund", "Abernathy", "Zwanenburg", "Castellanos", "Thorvaldsen",
        "Okonkwo-Reyes", "Pemberton", "Lindqvist", "Marchetti", "Haverkamp", "Delacroix", "Szymanski",
        "Quarshie", "Featherstone", "Ravensworth", "Ellingboe", "Nakashima", "Brightwater", "Fairweather",
        "Kowalczyk", "Montgomery", "Achterberg", "Villanueva", "Ashcombe", "Blackwood", "Oosterhuis",
        "Stavropoulos", "Wetherby"]  # fmt: skip
CITIES = ["Tromsø", "Ljubljana", "Valparaíso", "Winnipeg", "Tartu", "Cluj-Napoca", "Bergen", "Porto"]
EVENTS_PER_SUBJECT = 6


@dataclass
class Subject:
    name: str
    email: str
    phone: str
    user_id: str
    city: str
    order: int

    @property
    def identifiers(self) -> list[str]:
        return [self.name, self.email, self.phone, self.user_id]

    @property
    def questions(self) -> list[str]:
        return [f"where does {self.name} live?", f"what is the phone number of {self.name}?"]


def make_subjects(seed: int) -> list[Subject]:
    rng = random.Random(seed)
    firsts, lasts = rng.sample(FIRST, 30), rng.sample(LAST, 30)
    people = []
    for first, last in zip(firsts, lasts, strict=True):
        slug = f"{first}.{last}".lower().replace("-", "")
        people.append(
            Subject(
                name=f"{first} {last}",
                email=f"{slug}@mail.example",
                phone=f"+47 {rng.randint(400, 999)} {rng.randint(10, 99)} {rng.randint(100, 999)}",
                user_id=f"user-{slug}",
                city=rng.choice(CITIES),
                order=rng.randint(10000, 99999),
            )
        )
    return people


def subject_events(person: Subject, index: int) -> list[tuple[dict[str, Any], str]]:
    """The six writes of one person, each with the channel it really came from."""
    episode = f"subject-ep-{index:03d}"
    scope = {"user_id": person.user_id, "episode_id": episode, "session_id": f"subject-s-{index:03d}"}
    return [
        (
            {
                "text": f"Hi, this is {person.name}. Please call me on {person.phone} about order {person.order}.",
                "role": "user",
                "actor": person.name,
                "entities": [person.name],
                **scope,
            },
            "user",
        ),
        (
            {
                "text": "update the customer record",
                "kind": "tool_call",
                "tool_name": "crm_update",
                "tool_args": {"customer": person.name, "email": person.email, "phone": person.phone},
                **scope,
            },
            "agent",
        ),
        (
            {
                "text": f"crm_update ok: {person.name} <{person.email}> moved to {person.city}",
                "kind": "tool_result",
                "tool_name": "crm_update",
                **scope,
            },
            "tool",
        ),
        (
            {"text": f"{person.name} lives in {person.city}", "kind": "fact", "entities": [person.name], **scope},
            "agent",
        ),
        # Names the person only in its text: no entity, no user id.
        ({"text": f"Reminder: {person.name} wants a refund for order {person.order}.", "role": "assistant"}, "agent"),
        (
            {"text": f"Contract signed by {person.name} ({person.email}), delivery to {person.city}.", **scope},
            "document",
        ),
    ]


def build_store(folder: Path, args: argparse.Namespace, people: list[Subject], log: Any) -> tuple[DeltaCore, dict]:
    """The store, with the background memories and the inserted people; returns their event ids
    and vectors."""
    from deltacore.testing import FakeEmbedder

    embedder = FakeEmbedder() if args.embedder == "fake" else None
    settings: dict[str, Any] = {"embedder": embedder} if embedder is not None else {}
    settings.update(backend_settings(args))
    memory = DeltaCore.open(folder, **settings)
    background = make_memories(args.memories - EVENTS_PER_SUBJECT * len(people), args.seed)
    started = time.perf_counter()
    for begin in range(0, len(background), 2000):
        memory.ingest(background[begin : begin + 2000])
    log(f"  {len(background)} background memories in {time.perf_counter() - started:.1f} s")
    planted: dict[str, dict[str, Any]] = {}
    for index, person in enumerate(people):
        ids, texts = [], []
        for event, channel in subject_events(person, index):
            result = memory.ingest([event], channel=channel)
            ids.extend(result.event_ids)
            texts.append(embedding_text(Event(**event)))
        # Derived data: a logged retrieval (its query holds the name), an outcome, feedback.
        episode = f"subject-ep-{index:03d}"
        for question in person.questions:
            hits = memory.query(question, top_k=5)
            memory.record_retrieval([p.id for p in hits], episode_id=episode, query=question)
        memory.record_outcome(episode, 1.0)
        memory.feedback(ids[0], 0.5)
        planted[person.name] = {"ids": ids, "vectors": memory.embed(texts)}
    return memory, planted


def backend_settings(args: argparse.Namespace) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    if args.database_url:
        settings["database_url"] = args.database_url
    if args.chroma_url:
        settings["chroma_url"] = args.chroma_url
    if args.chroma_server_path:
        settings["chroma_server_path"] = str(args.chroma_server_path)
    return settings


QUERIER = """
import json, sys, time
from pathlib import Path
from deltacore import DeltaCore
from deltacore.testing import FakeEmbedder
folder, settings, questions, out, stop = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])
memory = DeltaCore.open(folder, embedder=FakeEmbedder() if settings.pop("fake") else None, **settings)
memory.query(questions[0], top_k=5)  # warm: caches and the embedder
samples = []
out.with_suffix(".ready").write_text("ready")
i = 0
while not stop.exists():
    began = time.time()
    try:
        memory.query(questions[i % len(questions)], top_k=5)
        samples.append((began, time.time() - began, 1))
    except Exception as exc:  # a failed query is a figure, not the end of the run
        samples.append((began, time.time() - began, 0))
        print("query failed:", exc, file=sys.stderr)
    i += 1
memory.close()
out.write_text(json.dumps(samples))
"""


def start_querier(folder: Path, args: argparse.Namespace, questions: list[str], workdir: Path) -> tuple[Any, Path, Path]:
    """A second process querying the store in a loop until ``stop`` exists; its samples
    (start time, seconds) land in ``out``."""
    import subprocess

    out, stop = workdir / "querier.json", workdir / "querier.stop"
    settings = {"fake": args.embedder == "fake", **backend_settings(args)}
    child = subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", QUERIER, str(folder), json.dumps(settings), json.dumps(questions), str(out), str(stop)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    while not out.with_suffix(".ready").exists():
        if child.poll() is not None:
            raise RuntimeError("the querying process exited before it was ready")
        time.sleep(0.2)
    return child, out, stop


def latency(samples: list[list[float]], windows: list[tuple[float, float]]) -> dict[str, Any]:
    import numpy as np

    inside = [(s, ok) for began, s, ok in samples if any(low <= began <= high for low, high in windows)]
    answered = [s for s, ok in inside if ok]
    failed = len(inside) - len(answered)
    if not answered:
        return {"queries": len(inside), "failed": failed}
    ms = np.array(answered) * 1000
    return {"queries": len(inside), "failed": failed, "p50_ms": round(float(np.percentile(ms, 50)), 1),
            "p95_ms": round(float(np.percentile(ms, 95)), 1)}  # fmt: skip


def erase(
    memory: DeltaCore, people: list[Subject], how: str, windows: list[tuple[float, float]] | None = None,
    certificates: list[Any] | None = None,
) -> list[float]:
    """Erase ``people``; seconds per request (one figure for the whole batch). Each request's
    wall-clock window is appended to ``windows``, each certificate to ``certificates``."""
    windows = [] if windows is None else windows
    certificates = [] if certificates is None else certificates
    seconds = []
    if how == "delete":
        for person in people:
            started = time.perf_counter()
            memory.delete(entity=person.name)
            memory.delete(user_id=person.user_id)
            seconds.append(time.perf_counter() - started)
    elif how == "forget":
        for person in people:
            started, wall = time.perf_counter(), time.time()
            certificates.append(memory.forget(person.name, identifiers=person.identifiers[1:]))  # type: ignore[attr-defined]
            seconds.append(time.perf_counter() - started)
            windows.append((wall, time.time()))
    else:
        started, wall = time.perf_counter(), time.time()
        certificates.extend(memory.forget_many(  # type: ignore[attr-defined]
            [{"subject": p.name, "identifiers": p.identifiers[1:]} for p in people]
        ))
        seconds.append(time.perf_counter() - started)
        windows.append((wall, time.time()))
    return seconds


def postgres_files(memory: DeltaCore) -> tuple[Path | None, Path | None]:
    """The database's relation folder and the cluster's WAL folder, when this process can read
    them (the server runs on this machine and we may read its data directory)."""
    from sqlalchemy import text

    with memory._sql.engine.connect() as conn:  # noqa: SLF001 - a benchmark looking at the server's files
        data = Path(conn.execute(text("SHOW data_directory")).scalar_one())
        oid = conn.execute(text("SELECT oid FROM pg_database WHERE datname = current_database()")).scalar_one()
    base, wal = data / "base" / str(oid), data / "pg_wal"
    readable = base.is_dir() and os.access(base, os.R_OK | os.X_OK)
    return (base if readable else None), (wal if readable and wal.is_dir() else None)


def wal_residue(wal: Path, people: list[Subject]) -> dict[str, int]:
    """How many of ``people`` still appear (UTF-8 name) in the WAL segments: outside a
    library's reach, reported to state the limit with a figure."""
    found: dict[str, int] = {}
    needles = {p.name: p.name.encode() for p in people}
    for segment in sorted(wal.iterdir()):
        if segment.is_file():
            data = segment.read_bytes()
            for name, needle in needles.items():
                if needle in data:
                    found[name] = found.get(name, 0) + 1
    return {"segments": sum(1 for s in wal.iterdir() if s.is_file()), "subjects_in_wal": len(found)}


def measure(
    memory: DeltaCore, planted: dict, erased: list[Subject], retained: list[Subject], never: list[Subject],
    extra_folders: list[Path] | None = None,
) -> dict:
    import numpy as np

    extra_folders = list(extra_folders or [])
    per_subject = len(erased[0].identifiers)
    started = time.perf_counter()
    audit = memory.verify_erasure(
        None,
        extra_folders=extra_folders,
        identifiers=[i for p in erased for i in p.identifiers],
        vectors=np.vstack([planted[p.name]["vectors"] for p in erased]),
        controls=[p.name for p in retained],
        questions=[q for p in erased for q in p.questions],
        baseline=[p.name for p in never],
        erased_event_ids=[i for p in erased for i in planted[p.name]["ids"]],
    )
    audit_seconds = time.perf_counter() - started
    with_residue = set()
    for finding in (*audit.byte_findings, *audit.sql_findings, *audit.probe_findings):
        with_residue.add(finding.identifier // per_subject)
    for finding in audit.vector_findings:
        with_residue.add(finding.vector // EVENTS_PER_SUBJECT)
    false_positive = memory.verify_erasure(
        None, extra_folders=extra_folders, identifiers=[i for p in never for i in p.identifiers], controls=[p.name for p in retained]
    )
    flagged_never = {f.identifier // per_subject for f in (*false_positive.byte_findings, *false_positive.sql_findings)}
    flagged_never |= {f.identifier // per_subject for f in false_positive.probe_findings}
    intact = retrievable = 0
    for person in retained:
        present = {e.id for e in memory.events(limit=1000, user_id=person.user_id)}
        present |= {i for i in planted[person.name]["ids"] if _exists(memory, i)}
        intact += all(i in present for i in planted[person.name]["ids"])
        answers = memory.query(f"what did {person.name} ask for?", top_k=5)
        retrievable += any(person.name in a.text for a in answers)
    return {
        "verdict": audit.verdict.value,
        "audit_seconds": round(audit_seconds, 1),
        "residue_bytes": audit.residue_bytes(),
        "byte_findings": len(audit.byte_findings),
        "vector_findings": len(audit.vector_findings),
        "sql_findings": sorted({f"{f.table}.{f.column}" for f in audit.sql_findings}),
        "probe_findings": len(audit.probe_findings),
        "routers_returning_subject": {r.router: r.hits for r in audit.routers if r.hits},
        "subjects_with_residue": len(with_residue),
        "membership": audit.membership.model_dump() if audit.membership else None,
        "control_membership": audit.control_membership.model_dump() if audit.control_membership else None,
        "controls_seen": sum(c.seen for c in audit.controls),
        "files": {f.file: f.size for f in audit.files},
        "regions": sorted({f"{f.file}:{f.region}" for f in audit.byte_findings if f.region}),
        "encodings_found": sorted({f.encoding for f in audit.byte_findings}),
        "not_checked": [f"{n.what}: {n.why}" for n in audit.not_checked],
        "retained_intact": intact,
        "retained_retrievable": retrievable,
        "never_inserted_flagged": len(flagged_never),
        "never_inserted_verdict": false_positive.verdict.value,
    }


def _exists(memory: DeltaCore, event_id: str) -> bool:
    from deltacore import NotFoundError

    try:
        memory.get(event_id)
    except NotFoundError:
        return False
    return True


def run(how: str, args: argparse.Namespace, people: list[Subject], log: Any) -> dict:
    erased, retained, never = people[:10], people[10:20], people[20:30]
    workdir = Path(tempfile.mkdtemp(prefix=f"erasure-{how}-", dir=args.workdir))
    try:
        log(f"[{how}] building a store of {args.memories} memories in {workdir}")
        memory, planted = build_store(workdir / "store", args, erased + retained, log)
        try:
            if how != "delete" and not hasattr(memory, "forget"):
                return {"skipped": "this build of DeltaCore has no forget()"}
            windows: list[tuple[float, float]] = []
            concurrent: dict[str, Any] = {}
            if args.concurrent_queries:
                questions = [q for p in retained for q in p.questions]
                child, out, stop = start_querier(workdir / "store", args, questions, workdir)
                idle_start = time.time()
                time.sleep(args.idle_seconds)
                idle = [(idle_start, time.time())]
            to_erase = erased[: args.subjects] if args.no_audit else erased
            certificates: list[Any] = []
            batch: list[float] = []
            if how == "forget-then-batch":
                to_erase = erased
                seconds = erase(memory, erased[: args.subjects], "forget", windows, certificates)
                if erased[args.subjects :]:
                    batch = erase(memory, erased[args.subjects :], "forget-batch", windows, certificates)
            else:
                seconds = erase(memory, to_erase, how, windows, certificates)
            if args.concurrent_queries:
                stop.write_text("stop")
                child.wait(timeout=600)
                samples = json.loads(out.read_text())
                concurrent = {"idle": latency(samples, idle), "during_forget": latency(samples, windows)}
                log(f"[{how}] second process: idle {concurrent['idle']}, during forget {concurrent['during_forget']}")
            log(f"[{how}] erase seconds {[round(x, 1) for x in seconds]}" + (f", batch of the rest {batch[0]:.1f} s" if batch else ""))
            log(f"[{how}] erased {len(to_erase)} subjects in {sum(seconds) + sum(batch):.1f} s" + ("" if args.no_audit else "; auditing"))
            extra = [Path(f) for f in args.extra_folder]
            if args.chroma_server_path:
                extra.append(args.chroma_server_path)
            failed_steps = sorted({f"{p.backend}: {p.action}: {p.detail}"[:200] for c in certificates for p in c.physical if not p.ok})
            index = memory._vectors.current()  # noqa: SLF001 - what the vector index lists after the erasures
            listed = index.names_of("default") if index is not None else []
            wal = None
            if args.scan_pg_files and args.database_url:
                base, wal = postgres_files(memory)
                if base is not None:
                    extra.append(base)
                else:
                    log(f"[{how}] the PostgreSQL data directory is not readable by this process: relation files not scanned")
            figures = {} if args.no_audit else measure(memory, planted, erased, retained, never, extra)
            if extra:
                figures["extra_folders"] = [str(f) for f in extra]
            figures["failed_physical_steps"] = failed_steps
            figures["collections_listed_after"] = len(listed)
            if wal is not None:
                figures["postgres_wal"] = wal_residue(wal, erased)
        finally:
            memory.close()
        figures["erase_seconds"] = [round(s, 3) for s in seconds]
        if batch:
            figures["batch_of"] = len(erased) - args.subjects
            figures["batch_seconds"] = round(batch[0], 3)
        if concurrent:
            figures["second_process_query"] = concurrent
        if how != "forget-batch":
            figures["erase_seconds_median"] = round(statistics.median(seconds), 3)
        return figures
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000, help="memories in the store (default 10 000)")
    parser.add_argument("--small", action="store_true", help="1 000 memories: a quick run")
    parser.add_argument(
        "--erase", nargs="+", choices=("delete", "forget", "forget-batch", "forget-then-batch"), default=["delete", "forget"]
    )
    parser.add_argument("--embedder", choices=("fake", "minilm"), default="fake")
    parser.add_argument("--database-url", help="PostgreSQL URL of an empty database (Chroma stays embedded)")
    parser.add_argument("--chroma-url", help="a Chroma server (default: embedded Chroma under the store folder)")
    parser.add_argument("--concurrent-queries", action="store_true", help="a second process queries during the erasures")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="idle window of the second process (default 20)")
    parser.add_argument("--extra-folder", action="append", default=[], help="also byte-scan this folder (a Chroma server's --path)")
    parser.add_argument(
        "--chroma-server-path", type=Path,
        help="the Chroma server's --path on this machine: given to the store (chroma_server_path) and byte-scanned",
    )
    parser.add_argument(
        "--scan-pg-files", action="store_true", help="PostgreSQL: byte-scan the database's relation files and count WAL residue"
    )
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--json", type=Path, default=Path("docs/results/erasure.json"))
    parser.add_argument("--workdir", type=Path, help="where the stores are built (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the stores (to look at the bytes yourself)")
    parser.add_argument("--no-audit", action="store_true", help="only time the erasures (large stores)")
    parser.add_argument(
        "--subjects", type=int, default=10,
        help="with --no-audit: erase only the first N of the 10 (large stores); with forget-then-batch: N one at a time",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.small:
        args.memories = 1_000

    def log(message: str) -> None:
        if not args.quiet:
            print(message, flush=True)

    people = make_subjects(args.seed)
    label = (
        f"{args.memories}_{args.embedder}"
        + ("_postgres" if args.database_url else "")
        + ("_chroma_server" if args.chroma_url else "")
        + ("_concurrent" if args.concurrent_queries else "")
        + ("_timing" if args.no_audit else "")
    )
    report = {
        "command": command_line("benchmarks/erasure.py", sys.argv[1:] if argv is None else argv),
        "code": code_version(),
        "machine": machine(),
        "versions": versions(),
        "load_before": os.getloadavg(),
        "memories": args.memories,
        "embedder": args.embedder,
        "backend": ("postgresql" if args.database_url else "sqlite") + (" + chroma server" if args.chroma_url else " + embedded chroma"),
        "runs": {},
    }
    for how in args.erase:
        report["runs"][how] = run(how, args, people, log)
        report["runs"][how]["load_after"] = os.getloadavg()
        _print(how, report["runs"][how])
    if args.json:
        existing = json.loads(args.json.read_text()) if args.json.exists() else {}
        existing[label] = report
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(existing, indent=2, ensure_ascii=False) + "\n")
        log(f"wrote {args.json} [{label}]")
    return 0


def _print(how: str, figures: dict) -> None:
    if "skipped" in figures:
        print(f"{how:<13} skipped: {figures['skipped']}")
        return
    if "verdict" not in figures:
        print(f"{how:<13} erase {figures['erase_seconds']} s (not audited)")
        return
    residue = ", ".join(f"{k} {v}" for k, v in sorted(figures["residue_bytes"].items())) or "none"
    print(
        f"{how:<13} {figures['verdict']:<19} residue bytes: {residue}; subjects with residue "
        f"{figures['subjects_with_residue']}/10; retained intact {figures['retained_intact']}/10, retrievable "
        f"{figures['retained_retrievable']}/10; never-inserted flagged {figures['never_inserted_flagged']}/10; "
        f"erase {figures['erase_seconds']} s; audit {figures['audit_seconds']} s"
    )


if __name__ == "__main__":
    raise SystemExit(main())
