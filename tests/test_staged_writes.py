"""Staged writes: ``ingest(..., staged=True)`` is acknowledged once durable in the inbox, and the
write path applies it soon after, in order, before any other call reads.

Real SQLite + embedded Chroma and PostgreSQL + a Chroma server (the ``backend`` fixture)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from sqlalchemy import create_engine, insert, select

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.delta.ids import delta_id_for
from deltacore.errors import InvalidEventError, ReadOnlyStoreError
from deltacore.storage.tables import events, inbox

# The worker waits this long for a quiet moment: in these tests it never runs unless asked to.
NEVER = {"staged_write_delay_ms": 10_000, "staged_write_max_wait_ms": 60_000}


def _table_rows(memory: DeltaCore, table, **where) -> list:
    """Rows straight from the database: no public call on the way (each would apply the inbox)."""
    engine = create_engine(memory.config.sql_url)
    try:
        with engine.connect() as conn:
            query = select(table)
            for name, value in where.items():
                query = query.where(table.c[name] == value)
            return conn.execute(query).all()
    finally:
        engine.dispose()


def _count(memory: DeltaCore, table, **where) -> int:
    return len(_table_rows(memory, table, **where))


def _step(episode: str, n: int) -> list[dict]:
    call = {"id": f"{episode}-c{n}", "kind": "tool_call", "tool_name": "lookup_order", "tool_args": {"order": str(n)}, "episode_id": episode}
    result = {"kind": "tool_result", "tool_name": "lookup_order", "text": f"order {n} of the walrus account shipped", "parent_ids": [call["id"]], "episode_id": episode}
    return [call, result]


def test_a_staged_event_is_durable_on_return_and_visible_to_every_read(backend) -> None:
    memory = backend.open(**NEVER)
    try:
        memory.add("a first write checks the embedder")
        call, result = _step("ep", 1)
        staged_call = memory.ingest([call], channel="tool", staged=True)
        staged_result = memory.ingest([result], channel="tool", staged=True)
        assert staged_call.staged == ["ep-c1"] and staged_call.event_ids == ["ep-c1"]
        assert staged_call.stored == [] and staged_call.decisions == []  # not through the write path yet
        result_id = staged_result.event_ids[0]
        assert result_id is not None and staged_result.staged == [result_id]
        assert _count(memory, inbox) == 2 and _count(memory, events, id="ep-c1") == 0
        assert memory.get("ep-c1").tool_name == "lookup_order"  # applied before the read
        assert _count(memory, inbox) == 0
        assert [e.id for e in memory.events(episode_id="ep")] == ["ep-c1", result_id]
        found = memory.query("walrus account shipped", top_k=3)
        assert result_id in [p.id for p in found]
        second = memory.ingest(_step("ep", 2), staged=True).staged
        assert second[1] in [p.id for p in memory.query("order 2 of the walrus account", top_k=5, routers=["semantic"])]
        assert memory.stats().events == 5
    finally:
        memory.close()


def test_bad_input_raises_or_is_reported_and_stages_nothing(backend) -> None:
    memory = backend.open(**NEVER)
    try:
        with pytest.raises(InvalidEventError) as error:
            memory.ingest("not a batch", staged=True)  # type: ignore[arg-type]
        assert error.value.field == "events"
        with pytest.raises(InvalidEventError) as error:
            memory.ingest([{"text": "hello"}], channel="carrier pigeon", staged=True)
        assert error.value.field == "channel"
        bad = memory.ingest([{"text": ""}], staged=True)
        assert bad.event_ids == [None] and bad.staged == []
        assert bad.rejected[0].field == "text" and "empty" in bad.rejected[0].reason
        assert _count(memory, inbox) == 0
    finally:
        memory.close()


def test_a_batch_with_one_bad_item_stages_the_good_ones(backend) -> None:
    memory = backend.open(**NEVER)
    try:
        result = memory.ingest(
            [{"text": "the otter tally is 4"}, {"text": "x", "confidence": 7}, {"text": "the otter tally is 5"}], staged=True
        )
        assert [r.index for r in result.rejected] == [1] and result.rejected[0].field == "confidence"
        good = [result.event_ids[0], result.event_ids[2]]
        assert None not in good and result.staged == good and result.event_ids[1] is None
        assert _count(memory, inbox) == 2
        assert sorted(e.text for e in memory.events()) == ["the otter tally is 4", "the otter tally is 5"]
    finally:
        memory.close()


CHILD = textwrap.dedent(
    """
    import json, sys, time
    from deltacore import DeltaCore
    from deltacore.testing import FakeEmbedder

    settings = json.loads(sys.argv[1])
    memory = DeltaCore.open(embedder=FakeEmbedder(), staged_write_delay_ms=10000, staged_write_max_wait_ms=60000, **settings)
    memory.add("a first write checks the embedder")
    ids = []
    for i in range(3):
        ids += memory.ingest([{"id": f"kill-{i}", "kind": "tool_call", "tool_name": "t", "tool_args": {"i": i},
                               "episode_id": "killed"}], staged=True).staged
    print(json.dumps(ids), flush=True)
    time.sleep(3600)
    """
)


def test_sigkill_right_after_a_staged_ack_then_reopen_finds_each_event_once(backend) -> None:
    settings = {k: str(v) for k, v in backend.settings.items()}
    child = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(settings)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()  # type: ignore[union-attr]
        assert line.strip(), child.stderr.read()  # type: ignore[union-attr]
    finally:
        child.send_signal(signal.SIGKILL)  # at once: the worker waits 10 s, nothing was applied
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert json.loads(line) == ["kill-0", "kill-1", "kill-2"]
    memory = backend.open()
    try:
        assert _count(memory, inbox) == 0  # applied on open, before any call
        for i in range(3):
            assert _count(memory, events, id=f"kill-{i}") == 1
        assert [e.id for e in memory.events(episode_id="killed")] == ["kill-0", "kill-1", "kill-2"]
    finally:
        memory.close()


def test_applying_a_row_twice_stores_its_event_once(backend) -> None:
    """Two processes may read the same inbox rows; the second apply is a duplicate by id."""
    memory = backend.open(**NEVER)
    try:
        memory.ingest([{"id": "twice", "text": "the beaver dam is 3 m high"}], staged=True)
        (row,) = _table_rows(memory, inbox)
        assert memory.get("twice").text == "the beaver dam is 3 m high"
        engine = create_engine(memory.config.sql_url)
        try:
            with engine.begin() as conn:
                conn.execute(insert(inbox).values({k: v for k, v in row._mapping.items() if k != "seq"}))
        finally:
            engine.dispose()
        memory.ingest([{"id": "after", "text": "staged after it"}], staged=True)
        assert [e.id for e in memory.events()] == ["twice", "after"]
        assert _count(memory, events, id="twice") == 1 and _count(memory, inbox) == 0
    finally:
        memory.close()


def test_the_worker_applies_staged_writes_without_any_read(backend) -> None:
    memory = backend.open(staged_write_delay_ms=20, staged_write_max_wait_ms=200)
    try:
        memory.add("a first write checks the embedder")
        ids = []
        for n in range(5):
            ids += memory.ingest(_step("bg", n), staged=True).staged
        deadline = time.monotonic() + 20
        while _count(memory, inbox) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _count(memory, inbox) == 0
        assert all(_count(memory, events, id=event_id) == 1 for event_id in ids)
    finally:
        memory.close()


def test_order_is_kept_and_a_direct_write_after_staged_ones_comes_after_them(backend) -> None:
    memory = backend.open(**NEVER)
    try:
        ids = []
        for n in range(12):
            ids += memory.ingest(_step("order", n), staged=True).staged
        direct = memory.ingest([{"kind": "message", "role": "assistant", "text": "all orders checked", "episode_id": "order"}])
        assert direct.stored and _count(memory, inbox) == 0  # the direct write applied the inbox first
        rows = sorted(_table_rows(memory, events, episode_id="order"), key=lambda row: row.seq)
        assert [row.id for row in rows] == [*ids, direct.stored[0]]
        stored = memory.events(episode_id="order")
        assert [e.ts for e in stored] == sorted(e.ts for e in stored)
        # Each result is linked to its call: the causal parents survived staging.
        chain = memory.query_causal(ids[1], depth=1)
        assert (delta_id_for(ids[1]), delta_id_for(ids[0])) in chain.edges
    finally:
        memory.close()


def test_close_applies_what_is_staged(backend) -> None:
    memory = backend.open(**NEVER)
    memory.add("a first write checks the embedder")
    staged = memory.ingest(_step("closing", 0), staged=True).staged
    assert _count(memory, inbox) == 2
    memory.close()
    reopened = backend.open()
    try:
        assert _count(reopened, inbox) == 0
        assert [e.id for e in reopened.events(episode_id="closing")] == staged
        assert reopened.stats().vectors == reopened.stats().events  # applied while the index was open
    finally:
        reopened.close()


def test_the_async_twin_stages_and_reads_its_writes(backend) -> None:
    async def scenario() -> None:
        memory = AsyncDeltaCore(backend.open(**NEVER))
        try:
            result = await memory.ingest(_step("async", 0), staged=True)
            assert len(result.staged) == 2
            found = await memory.events(episode_id="async")
            assert [e.id for e in found] == result.staged
        finally:
            await memory.close()

    asyncio.run(scenario())


def test_a_staged_duplicate_of_a_stored_event_is_not_stored_twice(backend) -> None:
    memory = backend.open(**NEVER)
    try:
        first = memory.add("the heron nests by the north pier")
        memory.ingest([{"text": "the heron nests by the north pier"}], staged=True)
        assert [e.id for e in memory.events()] == [first]
    finally:
        memory.close()


def test_a_read_only_store_refuses_a_staged_write(backend) -> None:
    backend.open().close()
    memory = backend.open(read_only=True)
    try:
        with pytest.raises(ReadOnlyStoreError):
            memory.ingest([{"text": "nope"}], staged=True)
    finally:
        memory.close()



# ---- adapters: a real framework tool call stages its steps -------------------------------------


def test_a_langchain_tool_call_is_staged_by_the_callback_handler_and_then_visible(backend) -> None:
    from langchain_core.runnables import RunnableConfig, chain
    from langchain_core.tools import tool

    from deltacore.adapters.langchain import DeltaCoreCallbackHandler

    memory = backend.open(**NEVER)
    seen_inside: list[tuple[int, int]] = []
    try:
        memory.add("a first write checks the embedder")

        @tool
        def lookup_order(order: str) -> str:
            """Look an order up."""
            # on_tool_start has run: its tool_call waits in the inbox, not in the events yet.
            seen_inside.append((_count(memory, inbox), _count(memory, events, kind="tool_call")))
            return f"order {order} of the walrus account shipped"

        @chain
        def episode(task: str, config: RunnableConfig) -> str:
            lookup_order.invoke({"name": "lookup_order", "args": {"order": task}, "id": "call-1", "type": "tool_call"}, config=config)
            return "done"

        handler = DeltaCoreCallbackHandler(memory, name="bench")
        episode.invoke("A-17", config={"callbacks": [handler], "run_name": "episode"})
        assert seen_inside == [(1, 0)]
        calls = memory.events(kinds=["tool_call"])
        results = memory.events(kinds=["tool_result"])
        assert [c.tool_args for c in calls] == [{"order": "A-17"}]
        assert [r.parent_ids for r in results] == [(calls[0].id,)]
        assert "shipped" in results[0].text and _count(memory, inbox) == 0
    finally:
        memory.close()


def test_a_forget_reaches_what_another_process_staged(backend) -> None:
    writer = backend.open(**NEVER)
    reader = backend.open(**NEVER)
    try:
        writer.add("a first write checks the embedder")
        writer.ingest([{"text": "Quentin Marlowe asked for a refund", "entities": ["Quentin Marlowe"]}], staged=True)
        assert _count(reader, inbox) == 1
        reader.forget("Quentin Marlowe", reason="test")
        assert _count(reader, inbox) == 0
        assert not [e for e in reader.events() if "Quentin" in e.text]
    finally:
        writer.close()
        reader.close()
