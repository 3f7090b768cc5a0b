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
    if args.database_url:
        settings["database_url"] = args.database_url
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


def erase(memory: DeltaCore, people: list[Subject], how: str) -> list[float]:
    """Erase ``people``; seconds per request (one figure for the whole batch)."""
    seconds = []
    if how == "delete":
        for person in people:
            started = time.perf_counter()
            memory.delete(entity=person.name)
            memory.delete(user_id=person.user_id)
            seconds.append(time.perf_counter() - started)
    elif how == "forget":
        for person in people:
            started = time.perf_counter()
            memory.forget(person.name, identifiers=person.identifiers[1:])  # type: ignore[attr-defined]
            seconds.append(time.perf_counter() - started)
    else:
        started = time.perf_counter()
        memory.forget_many(  # type: ignore[attr-defined]
            [{"subject": p.name, "identifiers": p.identifiers[1:]} for p in people]
        )
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(
    memory: DeltaCore, planted: dict, erased: list[Subject], retained: list[Subject], never: list[Subject]
) -> dict:
    import numpy as np

    per_subject = len(erased[0].identifiers)
    started = time.perf_counter()
    audit = memory.verify_erasure(
        None,
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
        None, identifiers=[i for p in never for i in p.identifiers], controls=[p.name for p in retained]
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
            seconds = erase(memory, erased, how)
            log(f"[{how}] erased 10 subjects in {sum(seconds):.1f} s" + ("" if args.no_audit else "; auditing"))
            figures = {} if args.no_audit else measure(memory, planted, erased, retained, never)
        finally:
            memory.close()
        figures["erase_seconds"] = [round(s, 3) for s in seconds]
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
        "--erase", nargs="+", choices=("delete", "forget", "forget-batch"), default=["delete", "forget"]
    )
    parser.add_argument("--embedder", choices=("fake", "minilm"), default="fake")
    parser.add_argument("--database-url", help="PostgreSQL URL of an empty database (Chroma stays embedded)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--json", type=Path, default=Path("docs/results/erasure.json"))
    parser.add_argument("--workdir", type=Path, help="where the stores are built (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the stores (to look at the bytes yourself)")
    parser.add_argument("--no-audit", action="store_true", help="only time the erasures (large stores)")
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
        "backend": "postgresql" if args.database_url else "sqlite",
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
