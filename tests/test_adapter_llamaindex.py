"""DeltaCore in LlamaIndex: real FunctionAgents driven by LlamaIndex's MockFunctionCallingLLM."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from llama_index.core.agent.workflow import FunctionAgent  # noqa: E402
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock  # noqa: E402
from llama_index.core.embeddings import MockEmbedding  # noqa: E402
from llama_index.core.instrumentation import get_dispatcher  # noqa: E402
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402
from llama_index.core.workflow.errors import WorkflowRuntimeError  # noqa: E402

from deltacore import DeltaCore, EventKind  # noqa: E402
from deltacore.adapters.llamaindex import (  # noqa: E402
    MEMORY_HEADER,
    DeltaCoreEmbedding,
    DeltaCoreMemoryBlock,
    DeltaCoreRetriever,
    DeltaCoreSpanHandler,
    LlamaIndexEmbedder,
    instrument,
)
from deltacore.delta.ids import delta_id_for  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402

# LlamaIndex's workflow step discovery trips pydantic deprecation warnings on every agent run.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect")


def get_weather(city: str) -> str:
    """Get today's weather for a city."""
    return f"heavy rain in {city}"


def book_taxi(street: str) -> str:
    """Book a taxi."""
    raise ConnectionError(f"taxi service unreachable for {street}")


def tool_call(call_id: str, name: str, **kwargs: Any) -> ChatMessage:
    return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)])


class Script:
    """Replies for MockFunctionCallingLLM (the last one repeats); keeps what the model was shown."""

    def __init__(self, *replies: ChatMessage | str) -> None:
        self.replies = [ChatMessage(role="assistant", content=r) if isinstance(r, str) else r for r in replies]
        self.seen: list[list[ChatMessage]] = []

    def __call__(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.seen.append(list(messages))
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def llm(self) -> MockFunctionCallingLLM:
        return MockFunctionCallingLLM(response_generator=self)


def agent(script: Script) -> FunctionAgent:
    return FunctionAgent(
        name="planner",
        description="plans trips",
        tools=[FunctionTool.from_defaults(get_weather), FunctionTool.from_defaults(book_taxi)],
        llm=script.llm(),
        system_prompt="You plan trips.",
        streaming=False,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DeltaCore]:
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as opened:
        yield opened


@pytest.fixture
def recorder(store: DeltaCore) -> Iterator[DeltaCoreSpanHandler]:
    handler = instrument(store, user_id="alice", agent_id="planner", session_id="s1")
    yield handler
    handler.detach()  # never leak a handler into the next test
    assert handler not in get_dispatcher().span_handlers


def memory(store: DeltaCore, session_id: str = "s1", **block: Any) -> Memory:
    blocks = [DeltaCoreMemoryBlock(store=store, user_id="alice", agent_id="planner", **block)]
    return Memory.from_defaults(session_id=session_id, memory_blocks=blocks)


def episode_events(store: DeltaCore, episode_id: str) -> list:
    return store.events(episode_id=episode_id)


async def test_tool_calls_are_recorded_with_name_args_schema_and_parent_under_one_episode(store, recorder):
    script = Script(tool_call("c1", "get_weather", city="Paris"), "It rains in Paris.")
    handler = agent(script).run(user_msg="What's the weather in Paris?", memory=memory(store))
    await handler

    events = episode_events(store, handler.run_id)  # the workflow's run id is the episode id
    assert [e.kind for e in events] == [
        EventKind.MESSAGE,
        EventKind.TOOL_CALL,
        EventKind.TOOL_RESULT,
        EventKind.MESSAGE,
        EventKind.OUTCOME,
    ]
    user, call, result, answer, outcome = events
    assert {(e.user_id, e.agent_id, e.session_id) for e in events} == {("alice", "planner", "s1")}
    assert all(e.meta["framework"] == "llamaindex" for e in events)
    assert user.role == "user" and user.text == "What's the weather in Paris?"
    assert call.id == f"{handler.run_id}:c1:call" and call.source == "llamaindex:planner"
    assert call.tool_name == "get_weather" and call.tool_args == {"city": "Paris"}
    assert call.parent_ids == (user.id,)
    versions = store.tool_schemas("get_weather")
    assert len(versions) == 1 and versions[0]["schema"]["properties"]["city"]["type"] == "string"
    assert call.tool_schema_hash == versions[0]["schema_hash"]
    assert result.text == "heavy rain in Paris" and result.parent_ids == (call.id,)
    assert answer.role == "assistant" and answer.text == "It rains in Paris." and answer.parent_ids == (result.id,)

    chain = store.query_causal(result.id, depth=3)
    assert {delta_id_for(call.id), delta_id_for(user.id)} <= set(chain.deltas)
    assert chain.deltas[delta_id_for(call.id)].tool_schema_hash == call.tool_schema_hash
    assert not recorder.errors


async def test_a_tool_error_is_recorded_as_an_error_result(store, recorder):
    both = ChatMessage(
        role="assistant",
        blocks=[
            ToolCallBlock(tool_call_id="c1", tool_name="book_taxi", tool_kwargs={"street": "Rue Cler"}),
            ToolCallBlock(tool_call_id="c2", tool_name="get_weather", tool_kwargs={"city": "Paris"}),
        ],
    )
    handler = agent(Script(both, "Sorry, no taxi.")).run(user_msg="Get me a taxi on Rue Cler", memory=memory(store))
    await handler

    run = handler.run_id
    error = store.get(f"{run}:c1:result")
    assert error.kind == EventKind.TOOL_RESULT and error.tool_name == "book_taxi"
    assert error.text == "taxi service unreachable for Rue Cler"
    assert error.meta["error"]["type"] == error.meta["error_type"] == "ConnectionError"
    assert error.parent_ids == (f"{run}:c1:call",)
    assert "error" not in store.get(f"{run}:c2:result").meta
    # parallel calls share their trigger: the user's message
    assert store.get(f"{run}:c1:call").parent_ids == store.get(f"{run}:c2:call").parent_ids == (f"{run}:user",)


async def test_the_outcome_is_recorded(store, recorder):
    script = Script(tool_call("c1", "get_weather", city="Lima"), "Lima is rainy.")
    handler = agent(script).run(user_msg="Weather in Lima?", memory=memory(store))
    await handler
    outcome = store.get(f"{handler.run_id}:outcome")
    assert outcome.kind == EventKind.OUTCOME and outcome.meta["success"] is True
    assert outcome.text == "episode succeeded: Lima is rainy."
    assert outcome.parent_ids == (f"{handler.run_id}:step1",)

    # A run that gives up (the model keeps calling tools past max_iterations) is a failed episode.
    looping = Script(tool_call("c2", "get_weather", city="Quito"))
    failing = agent(looping).run(user_msg="Weather in Quito?", memory=memory(store), max_iterations=1)
    with pytest.raises(WorkflowRuntimeError):
        await failing
    failed = store.get(f"{failing.run_id}:outcome")
    assert failed.meta["success"] is False and failed.meta["error_type"] == "WorkflowRuntimeError"
    assert failed.text.startswith("episode failed: WorkflowRuntimeError: Max iterations of 1 reached")
    assert not recorder.errors


async def test_the_next_run_gets_the_earlier_tool_use_in_its_context(store, recorder):
    first = Script(tool_call("c1", "get_weather", city="Paris"), "It rains in Paris.")
    await agent(first).run(user_msg="What's the weather in Paris?", memory=memory(store, "monday"))

    second = Script("Take an umbrella.")
    handler = agent(second).run(user_msg="Do I need an umbrella in Paris?", memory=memory(store, "tuesday"))
    await handler

    shown = [m.content for m in second.seen[0] if m.role == MessageRole.SYSTEM and MEMORY_HEADER in (m.content or "")]
    assert len(shown) == 1
    assert "<deltacore>" in shown[0] and "heavy rain in Paris" in shown[0]
    assert "Do I need an umbrella" not in shown[0]  # the current run is not its own memory
    logged = store.retrievals(handler.run_id)
    assert any(row["event_id"].endswith(":c1:result") for row in logged)


async def test_flushed_messages_are_stored_by_the_block_without_instrumentation(store):
    assert not any(isinstance(h, DeltaCoreSpanHandler) for h in get_dispatcher().span_handlers)
    short = Memory.from_defaults(
        session_id="s9",
        token_limit=60,
        chat_history_token_ratio=0.5,
        token_flush_size=30,
        memory_blocks=[DeltaCoreMemoryBlock(store=store, user_id="alice")],
    )
    script = Script(tool_call("c1", "get_weather", city="Oslo"), "Oslo is rainy today, bring a coat.")
    await agent(script).run(user_msg="What is the weather in Oslo right now? " * 3, memory=short)
    await agent(Script("Sure.")).run(user_msg="Thanks a lot, that helps me plan the whole trip.", memory=short)

    stored = store.query("Oslo weather rainy", top_k=20, user_id="alice")
    kinds = {p.kind for p in stored}
    assert {EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT} <= kinds
    result = next(store.get(p.id) for p in stored if p.kind == EventKind.TOOL_RESULT)
    assert result.tool_name == "get_weather" and result.session_id == "s9"
    assert store.get(result.parent_ids[0]).tool_args == {"city": "Oslo"}


async def test_the_block_leaves_flushed_messages_to_an_attached_handler(store, recorder):
    short = Memory.from_defaults(
        session_id="s1", token_limit=40, chat_history_token_ratio=0.5, token_flush_size=20,
        memory_blocks=[DeltaCoreMemoryBlock(store=store, user_id="alice", agent_id="planner")],
    )
    question = "What is the weather in Oslo right now? " * 3
    await agent(Script("Rainy.")).run(user_msg=question, memory=short)
    await agent(Script("Sure.")).run(user_msg="Thanks a lot, that helps me plan the whole trip.", memory=short)
    copies = [p for p in store.query(question, top_k=50) if p.text.strip() == question.strip()]
    assert len(copies) == 1  # recorded once, by the handler


async def test_a_detached_handler_records_nothing(store):
    handler = instrument(store)
    handler.detach()
    script = Script("Hello.")
    run = agent(script).run(user_msg="hi there", memory=memory(store, record_flushed=False))
    await run
    assert store.stats().events == 0


async def test_the_retriever_returns_nodes_with_metadata(store):
    store.ingest(
        [
            {"text": "alice is allergic to peanuts", "kind": "fact", "user_id": "alice"},
            {"text": "bob is allergic to cats", "kind": "fact", "user_id": "bob"},
        ]
    )
    retriever = DeltaCoreRetriever(store, user_id="alice", top_k=3)
    for nodes in (retriever.retrieve("peanuts allergy"), await retriever.aretrieve("peanuts allergy")):
        assert [n.node.get_content() for n in nodes] == ["alice is allergic to peanuts"]
        meta = nodes[0].node.metadata
        assert set(meta) >= {"id", "score", "flags", "token_cost", "provenance"}
        assert nodes[0].node.node_id == meta["id"] and nodes[0].score == pytest.approx(meta["score"])
        assert "peanuts" in nodes[0].node.get_content(metadata_mode="llm")
    assert [row["event_id"] for row in store.retrievals()] == [meta["id"], meta["id"]]


def test_the_embedding_bridges(tmp_path):
    fake = FakeEmbedder()
    bridge = DeltaCoreEmbedding(fake)
    assert bridge.model_name == "deltacore-fake-64"
    assert np.allclose(bridge.get_text_embedding("rain in Paris"), fake(["rain in Paris"])[0])
    assert np.allclose(bridge.get_query_embedding("rain"), fake(["rain"])[0])
    assert len(bridge.get_text_embedding_batch(["a", "b", "c"])) == 3

    powered = LlamaIndexEmbedder(MockEmbedding(embed_dim=8))
    assert powered(["x", "y"]).shape == (2, 8)
    with DeltaCore.open(tmp_path / "li", embedder=powered) as store:
        event_id = store.add("the deploy failed on staging", kind="observation")
        assert store.query("deploy staging", top_k=1)[0].id == event_id
        assert store.stats().embedder == "llamaindex:MockEmbedding:unknown"


async def test_the_chat_user_is_the_principal_of_the_user_messages(store):
    short = Memory.from_defaults(session_id="s7", token_limit=60, chat_history_token_ratio=0.5, token_flush_size=30,
                                 memory_blocks=[DeltaCoreMemoryBlock(store=store, user_id="alice")])
    task = "Grant bob reader access to dataset sales_2024, please, and tell me when it is done. " * 2
    await agent(Script("Granted.")).run(user_msg=task, memory=short)
    await agent(Script("Sure.")).run(user_msg="Thanks a lot, that helps me plan the whole trip.", memory=short)

    users = [e for e in store.events(user_id="alice", limit=50) if e.role == "user"]
    assert users and all(e.principal == "alice" for e in users)
    assert any(p.text.startswith("Grant bob") for p in store.query("bob access sales_2024", top_k=5, include_deltas=False))


async def test_tool_steps_are_staged_and_visible_after_the_run(tmp_path):
    """The tool call is staged (``ingest(..., staged=True)``): durable in the inbox while the
    tool runs, through the write path once the run's outcome is written."""
    from sqlalchemy import create_engine, func, select

    from deltacore.storage.tables import inbox

    opened = DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder(), staged_write_delay_ms=10_000, staged_write_max_wait_ms=60_000)
    engine = create_engine(opened.config.sql_url)
    inside: list[int] = []

    def staged_rows() -> int:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(inbox)).scalar_one())

    def check_stock(item: str) -> str:
        """Check the stock of an item."""
        inside.append(staged_rows())
        return f"{item}: 4 left"

    handler = instrument(opened, user_id="alice", agent_id="planner")
    try:
        script = Script(tool_call("c1", "check_stock", item="umbrella"), "4 umbrellas left.")
        planner = FunctionAgent(name="planner", description="d", tools=[FunctionTool.from_defaults(check_stock)], llm=script.llm(), streaming=False)
        run = planner.run(user_msg="How many umbrellas?")
        await run
        assert inside == [1]  # the call, staged before the tool ran, not yet applied
        events = opened.events(episode_id=run.run_id)
        assert [e.kind for e in events][:3] == [EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT]
        assert events[2].text == "umbrella: 4 left" and staged_rows() == 0
    finally:
        handler.detach()
        opened.close()
        engine.dispose()
