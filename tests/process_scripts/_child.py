"""Shared by the child scripts of tests/test_processes.py (plain scripts, run by subprocess).

A script's own folder is first on ``sys.path``, so each script imports this as ``_child``.
Protocol: a child writes one line per fact to stdout (flushed at once, so that what the parent
read was really acknowledged before anything that follows), reads commands from stdin.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def settings() -> dict[str, Any]:
    """The store settings the parent passed as JSON in argv[1]."""
    return json.loads(sys.argv[1])


def open_store(values: dict[str, Any], **overrides: Any) -> Any:
    from deltacore import DeltaCore
    from deltacore.testing import FakeEmbedder

    return DeltaCore.open(embedder=FakeEmbedder(), **{**values, **overrides})


def emit(*parts: object) -> None:
    print(*parts, flush=True)


def note_text(tag: str, number: int) -> str:
    """A distinct text per (tag, number): a few random pseudo-words make its fake embedding
    unlike every other note's, so a semantic query with the exact text finds it first."""
    rng = random.Random(f"{tag}:{number}")
    words = ["".join(rng.choice(_LETTERS) for _ in range(7)) for _ in range(6)]
    return f"{tag} note {number}: " + " ".join(words)


def wait_for(command: str) -> None:
    """Block until the parent writes ``command`` on stdin (a barrier); EOF means the parent died."""
    for line in sys.stdin:
        if line.strip() == command:
            return
    raise SystemExit(f"stdin closed while waiting for {command!r}")
