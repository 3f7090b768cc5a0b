"""A forget killed with SIGKILL mid-way resumes when the store is next opened (real processes)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest

from deltacore.compliance.matching import SubjectMatcher
from deltacore.storage.erasure import TEXT_COLUMNS, ErasureRepository

SUBJECT = "Alice Smith"

CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    from deltacore import DeltaCore
    from deltacore.compliance import pipeline
    from deltacore.testing import FakeEmbedder

    settings, phase = json.loads(sys.argv[1]), sys.argv[2]
    memory = DeltaCore.open(embedder=FakeEmbedder(), **settings)
    for i in range(5):
        memory.add(f"Alice Smith asked about invoice {i}", entities=["Alice Smith"])
        memory.add(f"Bob Jones asked about invoice {i}", entities=["Bob Jones"])
    memory.add("Alice Smith lives in Paris", kind="fact")

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    # Killed after the selection is journaled (nothing erased yet), or after the logical erase
    # committed (before the physical pass).
    setattr(pipeline.Forgetter, "_logical" if phase == "selected" else "_physical", die)
    cert = memory.forget("Alice Smith", requester="crash-test")
    print("NOT KILLED", cert.request_id)
    """
)


def _residue(memory) -> list[str]:
    matcher = SubjectMatcher([SUBJECT])
    found = []
    with memory._sql.reader() as conn:
        for table in TEXT_COLUMNS:
            found.extend(f"{table}{k}" for k, text in ErasureRepository().scan(conn, table, "default") if matcher.matches(text))
    return found


@pytest.mark.parametrize("phase", ["selected", "logical"])
def test_kill_mid_forget_resumes_on_open(backend, phase) -> None:
    settings = {k: str(v) for k, v in backend.settings.items()}
    child = subprocess.run([sys.executable, "-c", CHILD, json.dumps(settings), phase], check=False, capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
    memory = backend.open()  # resumes the journaled request before anything else
    try:
        assert _residue(memory) == []
        assert len(memory.events()) == 5 and all("Bob Jones" in e.text for e in memory.events())
        assert memory.facts(SUBJECT) == []
        statuses = [e for e in memory.system_events("FORGET")]
        assert len(statuses) == 1 and statuses[0]["payload"]["state"] == "completed"
        status = memory.forget_status(statuses[0]["payload"]["request_id"])
        assert status.state.value == "completed" and status.audit_hash
        # Nothing left to resume, nothing comes back through a rebuild of the vector index.
        assert memory._resume_forgets() == 0
        if memory.owns_vector_index:
            assert memory.reindex() == 5
        assert memory.forget(SUBJECT).nothing_found
    finally:
        memory.close()
