"""DeltaCoreCheckpointSaver: a real StateGraph checkpointed in the store, resumed by another process."""

from __future__ import annotations

import asyncio
import json
import operator
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from deltacore.adapters.langchain import DeltaCoreCheckpointSaver

SCRIPT = Path(__file__).parent / "process_scripts" / "checkpoint_graph.py"


def _child(settings: dict[str, Any], thread_id: str, action: str) -> dict[str, Any]:
    plain = {key: str(value) for key, value in settings.items()}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), json.dumps(plain), thread_id, action], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_graph_interrupted_in_one_process_resumes_in_another(backend) -> None:
    assert _child(backend.settings, "t1", "start") == {"steps": ["plan"], "next": ["approve"]}
    assert _child(backend.settings, "t1", "resume") == {"steps": ["plan", "approve", "deploy after 2 steps"], "next": []}

    with backend.open() as memory:
        saver = DeltaCoreCheckpointSaver(memory, tenant="app")
        _counter_graph(saver).invoke({"total": 1}, {"configurable": {"thread_id": "t2"}})  # another thread
        history = list(saver.list({"configurable": {"thread_id": "t1"}}))
        assert len(history) >= 4 and history[0].checkpoint["channel_values"]["steps"][-1] == "deploy after 2 steps"
        assert [h.config["configurable"]["checkpoint_id"] for h in history] == sorted(
            (h.config["configurable"]["checkpoint_id"] for h in history), reverse=True
        )  # newest first
        assert history[0].parent_config == history[1].config  # each checkpoint points at the one before
        assert [h.metadata["step"] for h in saver.list(None, filter={"source": "input"})] != []
        assert len(list(saver.list({"configurable": {"thread_id": "t1"}}, limit=2))) == 2
        older = list(saver.list({"configurable": {"thread_id": "t1"}}, before=history[1].config))
        assert [h.config for h in older] == [h.config for h in history[2:]]
        # Another tenant's saver sees none of these threads.
        assert list(DeltaCoreCheckpointSaver(memory, tenant="other").list(None)) == []
        saver.delete_thread("t1")
        assert saver.get_tuple({"configurable": {"thread_id": "t1"}}) is None
        assert saver.get_tuple({"configurable": {"thread_id": "t2"}}) is not None


class Counter(TypedDict):
    total: Annotated[int, operator.add]


def _counter_graph(saver: DeltaCoreCheckpointSaver) -> Any:
    graph = StateGraph(Counter)
    graph.add_node("add", lambda state: {"total": 1})
    graph.add_edge(START, "add")
    graph.add_edge("add", END)
    return graph.compile(checkpointer=saver)


def test_async_graph_keeps_state_across_invocations_and_pending_writes(backend) -> None:
    with backend.open() as memory:
        saver = DeltaCoreCheckpointSaver(memory)

        async def run() -> list[int]:
            app = _counter_graph(saver)
            config = {"configurable": {"thread_id": "counter"}}
            totals = [(await app.ainvoke({"total": 10}, config))["total"]]
            totals.append((await app.ainvoke({"total": 0}, config))["total"])
            listed = [item async for item in saver.alist(config, limit=1)]
            assert listed[0].checkpoint["channel_values"]["total"] == totals[-1]
            return totals

        assert asyncio.run(run()) == [11, 12]  # the second run starts from the stored state

        config = saver.put(
            {"configurable": {"thread_id": "w", "checkpoint_ns": ""}},
            {"v": 4, "id": "1", "ts": "2026-01-01T00:00:00+00:00", "channel_values": {}, "channel_versions": {}, "versions_seen": {},
             "updated_channels": None},
            {"source": "input", "step": -1},
            {},
        )  # fmt: skip
        saver.put_writes(config, [("a", 1), ("b", "two")], task_id="task-1")
        saver.put_writes(config, [("a", 99)], task_id="task-1")  # a regular write is stored once
        saver.put_writes(config, [("__error__", "first")], task_id="task-1")
        saver.put_writes(config, [("__error__", "second")], task_id="task-1")  # a special one is replaced
        writes = saver.get_tuple(config).pending_writes
        assert sorted(writes, key=str) == sorted([("task-1", "a", 1), ("task-1", "b", "two"), ("task-1", "__error__", "second")], key=str)


@pytest.mark.parametrize("current", [None, 3, "00000000000000000000000000000007.5"])
def test_versions_increase(current: Any, tmp_path: Path) -> None:
    from deltacore import DeltaCore
    from deltacore.testing import FakeEmbedder

    with DeltaCore.open(tmp_path / "s", embedder=FakeEmbedder()) as memory:
        saver = DeltaCoreCheckpointSaver(memory)
        following = saver.get_next_version(current)
        assert following > (current if isinstance(current, str) else f"{current or 0:032}")
