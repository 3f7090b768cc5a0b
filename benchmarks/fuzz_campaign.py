"""A seeded fuzz campaign against the write boundary: mixed batches of malformed items through
``ingest()`` and malformed lines through ``deltacore ingest``.

What issue 20 measured before the fix (43–85% of batches raised, most outside the error tree,
the CLI died mid-file) is counted here: batches that raised, exceptions outside the
``DeltaCoreError`` tree, good items lost (not stored or not readable afterwards). Targets: 0, 0, 0.

    python benchmarks/fuzz_campaign.py [--batches 1000] [--lines 1800] [--seed 20]
        [--database-url postgresql+psycopg://…  --chroma-url http://…] [--out docs/results/fuzz_campaign.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.errors import DeltaCoreError  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402

_HOSTILE = ["\x00", "\ud800", "\udfff", "\u200b", "\ufeff", "é", "漢字", "1", "-", " ", "a", "\n"]


def _string(rng: random.Random, longest: int = 40) -> str:
    size = rng.choice([0, 1, 5, longest, longest * 4])
    return "".join(rng.choice(_HOSTILE) if rng.random() < 0.2 else chr(rng.randint(32, 0x2FFF)) for _ in range(size))


def _json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([None, True, 7, -2**70, float("nan"), float("inf"), 1.5, _string(rng), {"k": 1}])
    if roll < 0.5:
        deep: Any = 1
        for _ in range(rng.choice([10, 70, 1200])):
            deep = [deep]
        return deep
    if roll < 0.75:
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {(_string(rng, 8) if rng.random() < 0.9 else rng.randint(0, 9)): _json(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def malformed(rng: random.Random) -> Any:
    """One item drawn from the kinds of input issue 20 found breaking whole batches."""
    if rng.random() < 0.08:
        return rng.choice([None, 42, "just text", [1, 2], b"bytes", 3.5])
    event: dict[str, Any] = {"text": _string(rng, 200)}
    for name in rng.sample(["id", "tenant", "actor", "source", "episode_id", "role", "agent_id", "user_id"], rng.randint(0, 3)):
        event[name] = rng.choice([_string(rng), "x" * rng.choice([127, 129, 300]), rng.randint(0, 9), None])
    if rng.random() < 0.4:
        event["meta"] = _json(rng)
    if rng.random() < 0.3:
        event.update(kind="tool_call", tool_name=rng.choice([_string(rng), "t" * 300, "search"]), tool_args=_json(rng))
    if rng.random() < 0.3:
        event["entities"] = [rng.choice([_string(rng), "e" * 300]) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.25:
        event["kind"] = rng.choice(["message", "fact", "nonsense", "", "observation", 7])
    if rng.random() < 0.25:
        offset = timezone(timedelta(hours=rng.randint(-23, 23)))
        event["ts"] = rng.choice([datetime(1, 1, 1, 1), datetime(9999, 12, 31, 23), datetime(2024, 5, 1)]).replace(tzinfo=offset)
    if rng.random() < 0.2:
        event["confidence"] = rng.choice([float("nan"), float("inf"), -1.0, 2.0, 0.5, "high"])
    if rng.random() < 0.05:
        event["unknown_field"] = 1
    return event


def _good(serial: int, run: str) -> dict[str, Any]:
    return {"id": f"good-{run}-{serial}", "text": f"release {serial} of the billing service shipped ({run})", "tenant": "fuzz"}


def ingest_campaign(settings: dict[str, Any], batches: int, rng: random.Random) -> dict[str, Any]:
    run = uuid.uuid4().hex[:6]
    raised = outside = lost = items = good_total = rejected = 0
    outside_kinds: dict[str, int] = {}
    serial = 0
    started = time.perf_counter()
    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        for _ in range(batches):
            batch: list[Any] = []
            good: list[dict[str, Any]] = []
            for _ in range(rng.randint(1, 18)):
                if rng.random() < 0.3:
                    serial += 1
                    batch.append(_good(serial, run))
                    good.append(batch[-1])
                else:
                    batch.append(malformed(rng))
            items += len(batch)
            good_total += len(good)
            try:
                result = memory.ingest(batch)
                rejected += len(result.rejected)
            except DeltaCoreError:
                raised += 1
            except Exception as exc:  # noqa: BLE001 - counting exactly these is the point
                raised += 1
                outside += 1
                outside_kinds[type(exc).__name__] = outside_kinds.get(type(exc).__name__, 0) + 1
            for item in good:
                try:
                    if memory.get(item["id"]).text != item["text"]:
                        lost += 1
                except DeltaCoreError:
                    lost += 1
        answers = len(memory.query("billing service release", tenant="fuzz"))
    return {
        "batches": batches,
        "items": items,
        "good_items": good_total,
        "rejected": rejected,
        "batches_raised": raised,
        "outside_error_tree": outside,
        "outside_kinds": outside_kinds,
        "good_items_lost": lost,
        "query_answers_afterwards": answers,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _line(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.15:
        return rng.choice([b"{not json", b'{"text": "unterminated', b"\xff\xfe not utf-8", b"[" * 5000, b"null", b"12"])
    item = malformed(rng)
    if isinstance(item, bytes):
        item = item.decode()
    try:
        return json.dumps(item, default=str).encode("utf-8", "surrogatepass").replace(b"\n", b" ")
    except RecursionError:  # nesting json cannot even write: the line says it literally
        return b'{"text": "deep meta", "meta": ' + b"[" * 1200 + b"]" * 1200 + b"}"


def cli_campaign(settings: dict[str, Any], lines: int, rng: random.Random) -> dict[str, Any]:
    run = uuid.uuid4().hex[:6]
    folder = Path(tempfile.mkdtemp(prefix="fuzz-cli-"))
    content: list[bytes] = []
    good: dict[int, dict[str, Any]] = {}
    for number in range(1, lines + 1):
        if rng.random() < 0.25:
            good[number] = _good(number, run)
            content.append(json.dumps(good[number]).encode())
        else:
            content.append(_line(rng))
    source = folder / "events.jsonl"
    source.write_bytes(b"\n".join(content) + b"\n")
    store = ["--path", str(settings.get("path", folder / "store"))]
    if "database_url" in settings:
        store += ["--database-url", settings["database_url"], "--chroma-url", settings["chroma_url"]]
    env = {**os.environ, "DELTACORE_COLLECTION_PREFIX": settings.get("collection_prefix", "deltacore")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "deltacore.cli", *store, "--embedder", "fake", "ingest", str(source), "--batch-size", "64"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    seconds = time.perf_counter() - started
    reported = {int(m[1]) for m in re.finditer(r"^line (\d+): ", done.stderr, re.MULTILINE)}
    with DeltaCore.open(embedder=FakeEmbedder(), **{**settings, "path": settings.get("path", folder / "store")}) as memory:
        lost = 0
        for item in good.values():
            try:
                lost += memory.get(item["id"]).text != item["text"]
            except DeltaCoreError:
                lost += 1
    return {
        "lines": lines,
        "good_lines": len(good),
        "lines_reported": len(reported),
        "good_lines_reported": len(reported & good.keys()),
        "exit_code": done.returncode,
        "traceback": "Traceback" in done.stderr,
        "good_items_lost": lost,
        "summary": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "",
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=1800)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--chroma-url", default=None)
    parser.add_argument("--out", type=Path, default=Path("docs/results/fuzz_campaign.json"))
    args = parser.parse_args()
    started = code_version()
    load_before = os.getloadavg()
    backends: dict[str, dict[str, Any]] = {"sqlite": {"path": Path(tempfile.mkdtemp(prefix="fuzz-")) / "store"}}
    if args.database_url and args.chroma_url:
        prefix = f"fz{uuid.uuid4().hex[:8]}"
        backends["postgresql"] = {"database_url": args.database_url, "chroma_url": args.chroma_url, "collection_prefix": prefix}
    results: dict[str, Any] = {}
    for name, settings in backends.items():
        rng = random.Random(args.seed)
        ingest = ingest_campaign(settings, args.batches, rng)
        cli_settings = settings if name == "sqlite" else {**settings, "collection_prefix": settings["collection_prefix"] + "c"}
        if name == "sqlite":
            cli_settings = {"path": Path(tempfile.mkdtemp(prefix="fuzz-cli-store-")) / "store"}
        cli = cli_campaign(cli_settings, args.lines, rng)
        results[name] = {"ingest": ingest, "cli": cli}
        print(f"{name}: ingest {json.dumps(ingest)}")
        print(f"{name}: cli    {json.dumps(cli)}")
    report = {
        "command": command_line("benchmarks/fuzz_campaign.py", sys.argv[1:]),
        "seed": args.seed,
        "code": started,
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "versions": versions(),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
