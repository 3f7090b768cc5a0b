"""forget() reaches the tables that arrived with versions and the LangGraph checkpointer:
every version of a memory (``dc_events.replaced_by``) and the conversation state a checkpoint
and its pending writes hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltacore import DeltaCore
from deltacore.errors import NotFoundError
from tests.test_forget import raw_bytes_residue, residue

SUBJECT = "Alice Smith"


def _gone(memory: DeltaCore, event_id: str) -> bool:
    try:
        memory.get(event_id)
    except NotFoundError:
        return True
    return False


def test_old_versions_are_found_and_erased(memory: DeltaCore) -> None:
    first = memory.add(f"{SUBJECT} asked for a refund of order 991")
    second = memory.update(first, text=f"{SUBJECT} asked for a refund of order 991 and 992").new_id
    # The latest version no longer names the subject; the older ones do and are hidden history.
    third = memory.update(second, text="a customer asked for a refund of orders 991 and 992").new_id
    other = memory.add("Bob Jones renewed his plan")
    other_v2 = memory.update(other, text="Bob Jones renewed his plan for a year").new_id

    certificate = memory.forget(SUBJECT)

    assert certificate.counts["events"] == 2
    assert _gone(memory, first) and _gone(memory, second)
    assert not _gone(memory, third)  # the current version names nobody: it stays
    assert [v.event.id for v in memory.versions(other_v2)] == [other, other_v2]  # untouched
    assert residue(memory, [SUBJECT]) == []


def test_forgetting_a_memory_by_id_erases_every_version(memory: DeltaCore) -> None:
    first = memory.add("order 991 refunded to card 4111")
    second = memory.update(first, text="order 991 refunded to card 4111, confirmed").new_id
    memory.forget(event_ids=[first])
    assert _gone(memory, first) and _gone(memory, second)


def test_checkpoints_and_pending_writes_naming_the_subject_are_erased(memory: DeltaCore, tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    from deltacore.adapters.langchain import DeltaCoreCheckpointSaver

    saver = DeltaCoreCheckpointSaver(memory)

    def put(thread: str, said: str) -> dict:
        config = saver.put(
            {"configurable": {"thread_id": thread, "checkpoint_ns": ""}},
            {"v": 4, "id": "1", "ts": "2026-01-01T00:00:00+00:00", "channel_values": {"messages": [said]},
             "channel_versions": {}, "versions_seen": {}, "updated_channels": None},
            {"source": "input", "step": -1},
            {},
        )  # fmt: skip
        saver.put_writes(config, [("messages", f"reply to: {said}")], task_id="task-1")
        return config

    put("alice-thread", f"Hi, I am {SUBJECT}, call me on +33 6 12 34 56 78")
    kept = put("bob-thread", "Hi, I am Bob Jones")
    assert any(r.startswith("dc_checkpoint") for r in residue(memory, [SUBJECT]))

    certificate = memory.forget(SUBJECT)

    assert certificate.counts["checkpoints"] == 1 and certificate.counts["checkpoint_writes"] == 1
    assert residue(memory, [SUBJECT]) == []
    assert saver.get_tuple({"configurable": {"thread_id": "alice-thread"}}) is None
    retained = saver.get_tuple(kept)
    assert retained.checkpoint["channel_values"]["messages"] == ["Hi, I am Bob Jones"]
    assert retained.pending_writes == [("task-1", "messages", "reply to: Hi, I am Bob Jones")]
    if memory._sql.dialect.is_sqlite:
        assert raw_bytes_residue(Path(memory.config.path).expanduser(), [SUBJECT]) == []
