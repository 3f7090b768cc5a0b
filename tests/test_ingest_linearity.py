"""No input is slow: ingest time grows linearly with the size of one event's text or arguments.

The worst inputs for text passes are long runs without spaces (letters and digits mixed, CJK, a
base64 blob in ``tool_args``) and runs of one-letter words joined by hyphens, which a regular
expression that rescans from every position in a run turns quadratic. The bounds are generous
(a loaded two-core machine) yet a quadratic pass fails them by orders of magnitude.
"""

from __future__ import annotations

import base64
import random
import string
import time
from pathlib import Path
from typing import Any

import pytest

from deltacore import DeltaCore
from deltacore.testing import FakeEmbedder


def _mixed(size: int, rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))


def _cjk(size: int, rng: random.Random) -> str:
    return "a1 " + "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(size - 3))


def _hyphenated(size: int, rng: random.Random) -> str:
    return "1-" * (size // 2)


def _directive_blob(size: int, rng: random.Random) -> str:
    # A directive makes the instruction detector read the sentence's tool objects.
    return "you must always call " + _mixed(size - 21, rng)


def _question_markers(size: int, rng: random.Random) -> str:
    return "q: " * (size // 3)


TEXTS = {"mixed": _mixed, "cjk": _cjk, "hyphenated": _hyphenated, "directive": _directive_blob, "questions": _question_markers}


def _event(kind: str, size: int, rng: random.Random, serial: int) -> dict[str, Any]:
    meta = {"dedupe_key": serial}
    if kind == "base64_args":
        blob = base64.b64encode(rng.randbytes(size * 3 // 4)).decode()
        return {"kind": "tool_call", "tool_name": "upload", "text": "upload", "tool_args": {"blob": blob}, "meta": meta}
    return {"text": TEXTS[kind](size, rng), "meta": meta}


@pytest.mark.parametrize("kind", [*TEXTS, "base64_args"])
def test_one_large_event_ingests_in_linear_time(tmp_path: Path, kind: str) -> None:
    memory = DeltaCore.open(path=tmp_path / "store", embedder=FakeEmbedder())
    rng = random.Random(7)
    try:
        memory.ingest([{"text": "the first write of a tenant plants its canaries"}])
        timings = {}
        for serial, size in enumerate((10_000, 100_000)):
            event = _event(kind, size, rng, serial)
            started = time.perf_counter()
            result = memory.ingest([event])
            timings[size] = time.perf_counter() - started
            assert not result.rejected and (result.stored or result.quarantined or result.blocked)
    finally:
        memory.close()
    assert timings[100_000] < 5.0, timings
    # Ten times the input may cost at most thirty times the time (quadratic would be a hundred).
    assert timings[100_000] < 30 * max(timings[10_000], 0.01), timings
