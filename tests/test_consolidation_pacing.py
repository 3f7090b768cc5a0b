"""A consolidation cycle steps aside for user queries, and still finishes under ones that never
stop; its apply runs in short transactions that roll back as one. Real stores (SQLite + embedded
Chroma, PostgreSQL + a Chroma server); the embedder is a fake that can hold one query in flight.

Ordering, not timing: the embedder logs every call, and a user query is held inside its own
embedding until the test lets it go, so "no probe ran while the query was in flight" is read off
the log, whatever the machine's speed."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from deltacore.testing import FakeEmbedder

MARKER = "userquery"
PROBES = ["which port has the billing metrics?", "who is on call for payments?",
          "when is the search index rebuilt?", "what does alice drink in the morning?"]
TEXTS = [
    "the billing service exposes its metrics on port 9102",
    "bob is on call for the payments team this week",
    "the search index is rebuilt every sunday at two in the morning",
    "alice prefers green tea in the morning before standup",
]

OTHERS = [
    "the deploy pipeline failed on the integration stage because of a flaky test",
    "the nightly backup of the warehouse takes about forty minutes",
    "our staging cluster runs kubernetes version 1.29",
    "carol wrote the runbook for rotating the tls certificates",
    "dave asked for the quarterly latency report by friday",
    "the mobile app crashes when the user has no network connection",
    "erin moved the design review to thursday afternoon",
    "the recommendation model was retrained on october data",
]
"""Unrelated memories: with a merge threshold of 0 a cycle merges them into the probes' answers."""


class HoldingEmbedder(FakeEmbedder):
    """Logs each call; a call whose text holds :data:`MARKER` blocks until :meth:`release`."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []
        self.held = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, input: list[str]) -> np.ndarray:
        if any(MARKER in text for text in input):
            with self._lock:
                self.log.append("user query starts")
            self.held.set()
            self._released.wait(timeout=120)
            with self._lock:
                self.log.append("user query ends")
        else:
            with self._lock:
                self.log.extend(f"probe {text}" for text in input if text in PROBES)
        return super().__call__(input)

    def release(self) -> None:
        self._released.set()


def _seed(memory) -> None:
    for text in TEXTS:
        for suffix in ("", " again", " as noted"):
            memory.add(text + suffix, kind="observation")
    memory.register_probes(PROBES)


def _hold_a_user_query(memory, embedder: HoldingEmbedder) -> threading.Thread:
    reader = threading.Thread(target=memory.query, args=(f"{MARKER} what is on port 9102?",))
    reader.start()
    assert embedder.held.wait(timeout=60), "the user query never reached the embedder"
    return reader


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never saw: {what}")
        time.sleep(0.01)


def test_a_cycle_runs_no_probe_while_a_user_query_is_in_flight(backend):
    embedder = HoldingEmbedder()
    policy = {"yield_wait_seconds": 60.0, "yield_total_seconds": 120.0}  # only the query's end lets it on
    with backend.open(embedder=embedder, consolidation=policy) as memory:
        _seed(memory)
        reader = _hold_a_user_query(memory, embedder)
        reports = []
        cycle = threading.Thread(target=lambda: reports.append(memory.consolidate("nrem")))
        cycle.start()
        _wait_for(lambda: memory.consolidate_status().yielding, "the cycle waiting for the user query")
        assert not [line for line in embedder.log if line.startswith("probe")]
        embedder.release()
        reader.join(timeout=60)
        cycle.join(timeout=120)
        report = reports[0]
        assert report.merged > 0 and not report.rolled_back
        assert report.yields >= 1 and report.yield_overruns == 0
        ended = embedder.log.index("user query ends")
        probes = [i for i, line in enumerate(embedder.log) if line.startswith("probe")]
        assert probes and min(probes) > ended
        # The gate embeds each probe once: the probe after the apply replays the same vector.
        assert sorted(line for line in embedder.log if line.startswith("probe")) == sorted(f"probe {p}" for p in PROBES)
        assert not memory.consolidate_status().yielding


def test_a_cycle_under_a_query_that_never_ends_still_finishes(backend):
    embedder = HoldingEmbedder()
    policy = {"yield_wait_seconds": 0.05, "yield_total_seconds": 0.2}
    with backend.open(embedder=embedder, consolidation=policy) as memory:
        _seed(memory)
        reader = _hold_a_user_query(memory, embedder)
        try:
            report = memory.consolidate("nrem")  # the held query is still in flight throughout
            assert "user query ends" not in embedder.log
        finally:
            embedder.release()
            reader.join(timeout=60)
        assert report.merged > 0 and not report.rolled_back
        assert report.yields >= 1 and report.yield_overruns >= 1
        assert [line for line in embedder.log if line.startswith("probe")]


def test_pacing_off_runs_the_cycle_beside_the_query(backend):
    embedder = HoldingEmbedder()
    with backend.open(embedder=embedder, consolidation={"yield_to_queries": False}) as memory:
        _seed(memory)
        reader = _hold_a_user_query(memory, embedder)
        try:
            report = memory.consolidate("nrem")
        finally:
            embedder.release()
            reader.join(timeout=60)
        assert report.merged > 0 and report.yields == 0 and report.yield_seconds == 0.0


def test_a_chunked_apply_still_rolls_back_as_one(backend, monkeypatch):
    import deltacore.consolidation.apply as apply

    monkeypatch.setattr(apply, "APPLY_CHUNK", 1)  # one merge per transaction
    with backend.open(consolidation={"merge_threshold": 0.0, "anchor_fraction": 0.0}) as memory:
        for text in [*TEXTS, *OTHERS]:
            memory.add(text, kind="observation")
        memory.register_probes(PROBES)
        before = {e.id: e.text for e in memory.events(limit=100)}
        report = memory.consolidate("nrem")
        assert report.apply_transactions > 1
        assert report.rolled_back, report
        assert "store equal to the snapshot after rollback: True" in report.notes
        assert {e.id: e.text for e in memory.events(limit=100)} == before
        assert memory.consolidate_status().merged_live == 0


def test_progress_marks_when_the_apply_commits(backend, monkeypatch):
    """``progress("apply", done, total)`` is what a caller uses to tell queries that ran on the
    store before the cycle from queries that ran on the consolidated one: at ``done = 0`` nothing
    of the cycle is visible, after each commit more of it, at ``done == total`` all of it."""
    import deltacore.consolidation.apply as apply

    monkeypatch.setattr(apply, "APPLY_CHUNK", 1)  # one merge per transaction: a commit to watch each
    with backend.open(embedder=FakeEmbedder()) as memory:
        _seed(memory)
        live_before = len(memory.events(limit=100))
        seen: list[tuple[str, int, int, int | None]] = []

        def progress(phase: str, done: int, total: int) -> None:
            live = len(memory.events(limit=100)) if phase == "apply" else None
            seen.append((phase, done, total, live))

        report = memory.consolidate("nrem", progress=progress)
        live_after = len(memory.events(limit=100))
    assert report.merged > 1 and not report.rolled_back, report
    applies = [s for s in seen if s[0] == "apply"]
    assert [done for _, done, _, _ in applies] == list(range(report.apply_transactions + 1))
    assert {total for _, _, total, _ in applies} == {report.apply_transactions}
    live = [n for _, _, _, n in applies]
    assert live[0] == live_before  # reported before the first commit: the store as it was
    assert all(a > b for a, b in zip(live, live[1:]))  # each commit hides a merge's originals
    assert live[-1] == live_after == live_before - report.originals_hidden + report.merged
    phases = [phase for phase, *_ in seen]
    assert phases.index("nrem") < phases.index("apply") and phases[-1] == "gate"
