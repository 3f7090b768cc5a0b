"""Ingest time of one event as its text grows: the worst kinds of input, with and without the gateway.

The worst inputs for the write path's text passes are long runs without spaces: letters and
digits mixed, CJK, a base64 blob in ``tool_args``, one-letter words joined by hyphens. Each
size is ingested as one new event (a fresh ``dedupe_key``, so none is a duplicate) into a store
with the fake embedder, so the figures are the engine's own time.

    python benchmarks/ingest_linearity.py [--out docs/results/ingest_linearity.json]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import code_version, command_line, machine, versions  # noqa: E402

from deltacore import DeltaCore, DeltaCoreConfig  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402

SIZES = (1_000, 10_000, 100_000)


def _mixed(size: int, rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))


def _event(kind: str, size: int, rng: random.Random, serial: int) -> dict[str, Any]:
    meta = {"dedupe_key": serial}
    if kind == "mixed":
        return {"text": _mixed(size, rng), "meta": meta}
    if kind == "cjk":
        return {"text": "a1 " + "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(size - 3)), "meta": meta}
    if kind == "hyphenated":
        return {"text": "1-" * (size // 2), "meta": meta}
    blob = base64.b64encode(rng.randbytes(size * 3 // 4)).decode()
    return {"kind": "tool_call", "tool_name": "upload", "text": "upload", "tool_args": {"blob": blob}, "meta": meta}


KINDS = ("mixed", "cjk", "hyphenated", "base64_args")


def measure(gateway: bool, repeats: int) -> dict[str, dict[str, float]]:
    rng = random.Random(11)
    serial = 0
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        config = DeltaCoreConfig(path=Path(folder), embedder=FakeEmbedder(), trust={"enabled": gateway})
        memory = DeltaCore.open(config=config)
        try:
            memory.ingest([{"text": "the first write of a tenant plants its canaries"}])
            for kind in KINDS:
                figures[kind] = {}
                for size in SIZES:
                    best = float("inf")
                    for _ in range(repeats):
                        serial += 1
                        event = _event(kind, size, rng, serial)
                        started = time.perf_counter()
                        memory.ingest([event])
                        best = min(best, time.perf_counter() - started)
                    figures[kind][str(size)] = round(best, 4)
        finally:
            memory.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs/results/ingest_linearity.json")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many ingests per size")
    args = parser.parse_args()
    started = code_version()
    results = {"with_gateway": measure(True, args.repeats), "without_gateway": measure(False, args.repeats)}
    print(f"{'input':<14}{'gateway':<9}" + "".join(f"{size:>12,}" for size in SIZES) + "   (seconds per event)")
    for arm, figures in results.items():
        for kind, row in figures.items():
            print(f"{kind:<14}{'on' if arm == 'with_gateway' else 'off':<9}" + "".join(f"{row[str(s)]:>12.4f}" for s in SIZES))
    payload = {
        "command": command_line("benchmarks/ingest_linearity.py", sys.argv[1:]),
        "code": started,
        "machine": machine(),
        "versions": versions(),
        "sizes": list(SIZES),
        "seconds_per_event": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
