"""The helpers every adapter shares (``deltacore.adapters._shared``): no framework needed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters import _shared
from deltacore.errors import InvalidEventError
from deltacore.testing import FakeEmbedder


@pytest.fixture
def memory(tmp_path):
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as store:
        yield store


def test_importing_the_shared_helpers_imports_no_framework():
    code = (
        "import sys, deltacore.adapters._shared;"
        "print(','.join(m for m in ('langchain_core', 'autogen_core', 'crewai', 'llama_index') if m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == ""


def test_ids_are_deterministic_and_fit_the_engine():
    assert _shared.event_id("run", "c1", "call") == "run:c1:call"
    long = _shared.event_id("r" * 200, "outcome")
    assert len(long) <= _shared.MAX_ID and long == _shared.event_id("r" * 200, "outcome")
    assert _shared.stable_id("kv", "t", "ns", "k") == _shared.stable_id("kv", "t", "ns", "k") != _shared.stable_id(
        "kv", "t", "ns", "k2"
    )


def test_recording_conventions():
    assert _shared.call_text("deploy", {"service": "api", "env": "qa"}) == 'deploy({"env": "qa", "service": "api"})'
    assert _shared.error_meta(None) == {"error": {"type": "ToolError", "message": ""}, "error_type": "ToolError"}
    assert _shared.error_meta(TimeoutError("slow"))["error"] == {"type": "TimeoutError", "message": "slow", "kind": "transient"}
    assert _shared.error_meta(PermissionError("no"))["error"] == {"type": "PermissionError", "message": "no"}  # the engine classifies
    assert _shared.outcome_text(True, "  done \n now ") == "episode succeeded: done now"
    assert _shared.outcome_text(False, "") == "episode failed"
    assert len(_shared.outcome_text(True, "x" * 500)) == len("episode succeeded: ") + _shared.SUMMARY_CHARS
    event = _shared.scoped_event("fw", "agent", {"tenant": "t", "user_id": "u"}, text="hi", meta={"k": 1})
    assert event == {"tenant": "t", "user_id": "u", "source": "fw:agent", "text": "hi", "meta": {"framework": "fw", "k": 1}}


def test_store_handles(memory):
    assert _shared.sync_store(AsyncDeltaCore(memory)) is memory
    assert _shared.async_store(memory).sync is memory
    with pytest.raises(TypeError, match="memory must be an open DeltaCore"):
        _shared.sync_store("./memory", "memory")
    result = memory.ingest([{"text": ""}])
    with pytest.raises(InvalidEventError, match=r"event\[0\]\.text"):
        _shared.raise_rejections(result)


def test_iter_events_reads_every_page_oldest_first(memory, monkeypatch):
    monkeypatch.setattr(_shared, "EVENTS_PAGE", 2)
    ids = [memory.add(f"note {n}", kind="fact", session_id="s") for n in range(5)]
    memory.add("elsewhere", kind="fact", session_id="other")
    assert [event.id for event in _shared.iter_events(memory, session_id="s")] == ids


def test_an_excluded_episode_leaves_memories_without_an_episode_in_every_router(memory):
    memory.add("alice prefers window seats", kind="fact")
    memory.add("alice asks about window seats", episode_id="running")
    memory.add("alice booked window seats", episode_id="earlier")
    for routers in (("semantic",), ("lexical",), ("recency",)):
        found = memory.query("window seats alice", routers=routers, exclude_episode_id="running")
        assert sorted(p.text for p in found) == ["alice booked window seats", "alice prefers window seats"], routers


def test_memory_text_and_metadata(memory):
    memory.add("the api runs on port 8080", kind="fact", actor="ops")
    (packet,) = memory.query("api port", top_k=1)
    text = _shared.memory_text([packet])
    assert text.splitlines()[0] == _shared.MEMORY_HEADER
    assert text.splitlines()[1].endswith("fact] ops: the api runs on port 8080")
    meta = _shared.packet_metadata(packet)
    assert meta["id"] == packet.id and meta["flags"] == [] and meta["token_cost"] > 0
