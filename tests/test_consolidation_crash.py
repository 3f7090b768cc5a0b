"""A consolidation cycle killed with SIGKILL leaves the store as before it, never half.

A child process opens the store and runs a cycle that stops at a chosen point (inside the
apply transaction, or after it committed and before the gate decided); the parent kills it
with SIGKILL and reopens the store. Real SQLite + embedded Chroma, and PostgreSQL + a Chroma
server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = r"""
import json, sys, time
from pathlib import Path
from deltacore import DeltaCore
from deltacore.testing import FakeEmbedder
import deltacore.consolidation.gate as gate
from deltacore.storage.cold_archive import ColdArchive

settings, point, marker = json.loads(sys.argv[1]), sys.argv[2], Path(sys.argv[3])

def stop_here():
    marker.write_text("here")
    time.sleep(120)

if point == "apply":
    write = ColdArchive.write
    def write_then_stop(self, *args, **kwargs):
        result = write(self, *args, **kwargs)
        stop_here()  # the Parquet file exists, the transaction has not committed
        return result
    ColdArchive.write = write_then_stop
else:
    evaluate, calls = gate.evaluate, []
    def evaluate_then_stop(probes, search):
        calls.append(1)
        if len(calls) == 2:
            stop_here()  # the cycle is applied and committed; the gate has not decided
        return evaluate(probes, search)
    gate.evaluate = evaluate_then_stop

memory = DeltaCore.open(embedder=FakeEmbedder(), **settings)
memory.consolidate()
"""

POLICY = {"prune_after_days": 0.0, "prune_utility": 10.0, "anchor_fraction": 0.0}


def _settings(backend) -> dict:
    values = {k: str(v) if isinstance(v, Path) else v for k, v in backend.settings.items()}
    return {**values, "consolidation": POLICY}


def _seed(backend) -> dict[str, str]:
    with backend.open(consolidation=POLICY) as memory:
        base = "the cron job that rotates the logs failed on host web-3"
        for suffix in ("", " again", " last night"):
            memory.add(base + suffix, kind="observation")
        for text in ("carol owns the payments runbook", "the cdn purges its cache every hour"):
            memory.add(text, kind="observation")
        memory.register_probes(["which cron job failed?"])
        return {e.id: e.text for e in memory.events(limit=100)}


def _kill_mid_cycle(backend, point: str, tmp_path: Path) -> None:
    marker = tmp_path / f"marker-{point}"
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(_settings(backend)), point, str(marker)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        if child.poll() is not None:
            pytest.fail(f"the child ended before the kill point: {child.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail("the child never reached the kill point")
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("point", ["apply", "gate"])
def test_sigkill_mid_cycle_then_reopen_leaves_the_store_as_before(backend, tmp_path, point):
    before = _seed(backend)
    _kill_mid_cycle(backend, point, tmp_path)
    with backend.open(consolidation=POLICY) as memory:
        assert {e.id: e.text for e in memory.events(limit=100)} == before
        status = memory.consolidate_status()
        assert status.merged_live == 0 and status.cold_items == 0 and status.cold_partitions == 0
        assert not status.running
        assert not list((backend.settings["path"] / "cold").rglob("*.parquet*"))  # the orphan file is gone
        assert memory.query("which cron job failed?", top_k=3)[0].id in before
        # The store is usable: the next cycle runs to the end (and merges the three near-duplicates).
        report = memory.consolidate("nrem")
        assert not report.rolled_back and report.merged == 1 and report.originals_hidden == 3
