"""Each framework's delete / clear path goes through ``forget``: the erased text is gone from
``events()`` and (embedded store) from the bytes of the store's files, and the other scope's
memories stay. Run on SQLite + embedded Chroma and on PostgreSQL + a Chroma server."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import asyncio
from pathlib import Path

import pytest
from deltacore import DeltaCore


@pytest.fixture
def folder(backend) -> Path:
    return Path(backend.settings["path"])


@pytest.fixture
def open_store(backend):
    return backend.open


@pytest.fixture
def on_disk(backend):
    def check(folder: Path, text: str) -> bool:
        """Whether ``text`` is in any file of the store's folder (database, WAL, vectors).
        On PostgreSQL + a Chroma server the data is not in the folder: what a caller can see
        (``events()``) is checked instead, and only a retained text is expected."""
        if backend.name != "sqlite":
            with backend.open() as memory:
                return any(text in t for t in texts(memory))
        needle = text.encode("utf-8")
        return any(
            needle in path.read_bytes() for path in folder.rglob("*") if path.is_file()
        )

    return check


def texts(memory: DeltaCore) -> list[str]:
    return [event.text for event in memory.events(limit=1000)]


def test_langgraph_store_delete_forgets_every_version(folder, open_store, on_disk):
    pytest.importorskip("langgraph")
    from deltacore.adapters.langchain import DeltaCoreLangGraphStore

    with open_store() as memory:
        store = DeltaCoreLangGraphStore(memory)
        store.put(("users", "alice"), "diet", {"text": "alice is vegan since zyxquorn"})
        store.put(
            ("users", "alice"), "diet", {"text": "alice eats fish since plimbat"}
        )  # a second version
        store.put(("users", "bob"), "diet", {"text": "bob keeps kosher since wendrak"})
        store.delete(("users", "alice"), "diet")
        store.delete(("users", "alice"), "never-stored")  # an absent key is a no-op

        assert store.get(("users", "alice"), "diet") is None
        assert store.get(("users", "bob"), "diet").value == {
            "text": "bob keeps kosher since wendrak"
        }
        assert not any("zyxquorn" in t or "plimbat" in t for t in texts(memory))
        (status,) = memory.system_events("FORGET")
        assert status["payload"]["state"] == "completed"
    assert not on_disk(folder, "zyxquorn") and not on_disk(folder, "plimbat")
    assert on_disk(folder, "wendrak")


def test_autogen_clear_forgets_only_its_whole_scope(folder, open_store, on_disk):
    pytest.importorskip("autogen_core")
    from autogen_core.memory import MemoryContent, MemoryMimeType
    from deltacore.adapters.autogen import DeltaCoreMemory

    with open_store() as memory:
        mine = DeltaCoreMemory(
            memory, agent_id="planner", user_id="alice", session_id="s1"
        )
        # Same user, another session: OR-ed scope selectors would erase it too; clear must not.
        sibling = DeltaCoreMemory(
            memory, agent_id="planner", user_id="alice", session_id="s2"
        )

        async def go() -> None:
            await mine.add(
                MemoryContent(
                    content="alice's passport is quorvex", mime_type=MemoryMimeType.TEXT
                )
            )
            await sibling.add(
                MemoryContent(
                    content="alice likes the window seat brindle",
                    mime_type=MemoryMimeType.TEXT,
                )
            )
            await mine.clear()
            await mine.clear()  # nothing left: recorded as such, never a silent success

        asyncio.run(go())
        assert not any("quorvex" in t for t in texts(memory))
        assert any("brindle" in t for t in texts(memory))
        cleared, again = memory.system_events("FORGET")
        assert (
            cleared["payload"]["state"] == "completed"
            and cleared["payload"]["counts"]["events"] == 1
        )
        assert again["payload"]["state"] == "nothing_found"
    assert not on_disk(folder, "quorvex")
    assert on_disk(folder, "brindle")


def test_crewai_reset_and_delete_forget_their_scope(folder, open_store, on_disk):
    pytest.importorskip("crewai")
    from crewai.memory.types import MemoryRecord
    from deltacore.adapters.crewai import DeltaCoreStorage

    with open_store() as memory:
        storage = DeltaCoreStorage(memory)
        alice = MemoryRecord(
            content="alice's badge code is vormtal", scope="/users/alice"
        )
        bob = MemoryRecord(content="bob's badge code is quessit", scope="/users/bob")
        carol = MemoryRecord(
            content="carol's badge code is drofnep", scope="/users/carol"
        )
        storage.save([alice, bob, carol])
        storage.reset("/users/alice")
        assert storage.delete(record_ids=[carol.id]) == 1

        assert (
            storage.count("/users/alice") == 0 and storage.get_record(carol.id) is None
        )
        assert storage.get_record(bob.id).content == "bob's badge code is quessit"
        assert not any("vormtal" in t or "drofnep" in t for t in texts(memory))
        assert [s["payload"]["state"] for s in memory.system_events("FORGET")] == [
            "completed",
            "completed",
        ]
    assert not on_disk(folder, "vormtal") and not on_disk(folder, "drofnep")
    assert on_disk(folder, "quessit")


def test_llamaindex_block_reset_forgets_only_its_whole_scope(folder, open_store, on_disk):
    pytest.importorskip("llama_index.core")
    from deltacore.adapters.llamaindex import DeltaCoreMemoryBlock
    from llama_index.core.memory import Memory

    with open_store() as memory:
        block = DeltaCoreMemoryBlock(store=memory, user_id="alice", session_id="s1")
        Memory.from_defaults(
            session_id="s1", memory_blocks=[block]
        )  # the block as LlamaIndex holds it
        memory.ingest(
            [
                {
                    "text": "alice's locker is 41 at glimmerod",
                    "user_id": "alice",
                    "session_id": "s1",
                },
                {
                    "text": "alice parks at level trevanny",
                    "user_id": "alice",
                    "session_id": "s2",
                },
            ]
        )
        asyncio.run(block.areset())

        assert not any("glimmerod" in t for t in texts(memory))
        assert any("trevanny" in t for t in texts(memory))
        (status,) = memory.system_events("FORGET")
        assert (
            status["payload"]["state"] == "completed"
            and status["payload"]["counts"]["events"] == 1
        )
        with pytest.raises(ValueError, match="reset"):
            DeltaCoreMemoryBlock(store=memory).reset()
    assert not on_disk(folder, "glimmerod")
    assert on_disk(folder, "trevanny")
