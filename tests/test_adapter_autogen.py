"""DeltaCore as AutoGen memory: real AssistantAgents driven by AutoGen's ReplayChatCompletionClient."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("autogen_ext.models.replay")

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_agentchat.base import TaskResult  # noqa: E402
from autogen_agentchat.messages import ToolCallRequestEvent  # noqa: E402
from autogen_core import FunctionCall  # noqa: E402
from autogen_core.memory import MemoryContent, MemoryMimeType  # noqa: E402
from autogen_core.model_context import (  # noqa: E402
    BufferedChatCompletionContext,
    ChatCompletionContextState,
    HeadAndTailChatCompletionContext,
    UnboundedChatCompletionContext,
)
from autogen_core.models import (  # noqa: E402
    AssistantMessage,
    CreateResult,
    ModelFamily,
    ModelInfo,
    RequestUsage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import FunctionTool  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

from deltacore import DeltaCore, EventKind  # noqa: E402
from deltacore.model import Namespace  # noqa: E402
from deltacore.adapters.autogen import (  # noqa: E402
    MEMORY_HEADER,
    DeltaCoreMemory,
    DeltaCoreWorkbench,
    is_memory_message,
    record_run,
    record_run_stream,
)
from deltacore.delta.ids import delta_id_for  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402

MODEL_INFO = ModelInfo(
    vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN, structured_output=False
)


async def get_weather(city: str) -> str:
    """Get today's weather for a city."""
    return f"heavy rain in {city}"


async def book_taxi(street: str) -> str:
    """Book a taxi."""
    raise ConnectionError(f"taxi service unreachable for {street}")


def scripted(*replies: str | list[FunctionCall]) -> ReplayChatCompletionClient:
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    return ReplayChatCompletionClient(
        [
            r if isinstance(r, str) else CreateResult(finish_reason="function_calls", content=r, usage=usage, cached=False)
            for r in replies
        ],
        model_info=MODEL_INFO,
    )


def call(call_id: str, name: str, arguments: str) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, arguments=arguments)


def tools() -> list[FunctionTool]:
    return [
        FunctionTool(get_weather, description="Get today's weather for a city."),
        FunctionTool(book_taxi, description="Book a taxi."),
    ]


def agent_with_workbench(memory: DeltaCoreMemory, client: ReplayChatCompletionClient) -> AssistantAgent:
    return AssistantAgent(
        "planner", model_client=client, workbench=DeltaCoreWorkbench(memory, tools()), memory=[memory], reflect_on_tool_use=True
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DeltaCore]:
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as opened:
        yield opened


@pytest.fixture
def memory(store: DeltaCore) -> DeltaCoreMemory:
    return DeltaCoreMemory(store, user_id="alice", agent_id="planner", session_id="s1")


def episode_events(store: DeltaCore, episode_id: str) -> list:
    return store.events(episode_id=episode_id)


async def test_tool_calls_are_recorded_with_name_args_schema_and_parent_under_one_episode(store, memory):
    client = scripted([call("c1", "get_weather", '{"city": "Paris"}')], "It rains in Paris.")
    result = await record_run(memory, agent_with_workbench(memory, client), "What's the weather in Paris?")

    episode_id = result.messages[0].id  # the task message's id is the run's id
    events = episode_events(store, episode_id)
    assert [e.kind for e in events] == [
        EventKind.MESSAGE,
        EventKind.TOOL_CALL,
        EventKind.TOOL_RESULT,
        EventKind.MESSAGE,
        EventKind.OUTCOME,
    ]
    user, tool_call, tool_result, answer, outcome = events
    assert {e.episode_id for e in events} == {episode_id}
    assert {(e.user_id, e.agent_id, e.session_id) for e in events} == {("alice", "planner", "s1")}
    assert all(e.meta["framework"] == "autogen" for e in events)
    assert user.role == "user" and user.text == "What's the weather in Paris?"
    assert tool_call.tool_name == "get_weather" and tool_call.tool_args == {"city": "Paris"}
    assert tool_call.parent_ids == (user.id,)
    assert tool_call.source == "autogen:planner"
    schema = store.tool_schemas("get_weather")
    assert len(schema) == 1 and schema[0]["schema"]["properties"]["city"]["type"] == "string"
    assert tool_call.tool_schema_hash == schema[0]["schema_hash"]
    assert tool_result.text == "heavy rain in Paris" and tool_result.parent_ids == (tool_call.id,)
    assert answer.role == "assistant" and answer.actor == "planner"

    # ... and as deltas: the result's causal ancestors include the call and the question.
    chain = store.query_causal(tool_result.id, depth=3)
    assert {delta_id_for(tool_call.id), delta_id_for(user.id)} <= set(chain.deltas)
    call_delta = chain.deltas[delta_id_for(tool_call.id)]
    assert call_delta.tool_name == "get_weather" and call_delta.tool_schema_hash == tool_call.tool_schema_hash


async def test_replaying_the_same_run_stores_nothing_new(store, memory):
    client = scripted([call("c1", "get_weather", '{"city": "Oslo"}')], "Rain in Oslo.")
    result = await record_run(memory, agent_with_workbench(memory, client), "Weather in Oslo?")
    before = store.stats().events
    # The same episode recorded again (e.g. the stream re-consumed after a crash) dedupes by id.
    from deltacore.adapters.autogen import record_stream

    async def replay():
        for item in [*result.messages, result]:
            yield item

    async for _ in record_stream(memory, replay(), episode_id=result.messages[0].id):
        pass
    assert store.stats().events == before


async def test_a_team_run_is_one_episode(store, memory):
    from autogen_agentchat.conditions import MaxMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat

    client = scripted([call("c1", "get_weather", '{"city": "Paris"}')], "It rains.")
    team = RoundRobinGroupChat([agent_with_workbench(memory, client)], termination_condition=MaxMessageTermination(2))
    result = await record_run(memory, team, "weather in Paris?")

    episode_id = result.messages[0].id
    events = episode_events(store, episode_id)
    kinds = [e.kind for e in events]
    assert kinds == [EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT, EventKind.MESSAGE, EventKind.OUTCOME]
    assert events[1].parent_ids == (events[0].id,) and events[1].tool_schema_hash is not None
    assert "Maximum number of messages" in events[-1].meta["stop_reason"]


async def test_a_tool_error_is_recorded_as_an_error_result(store, memory):
    client = scripted([call("c1", "book_taxi", '{"street": "Rue Cler"}')], "Sorry, no taxi.")
    result = await record_run(memory, agent_with_workbench(memory, client), "Get me a taxi on Rue Cler")

    error = store.get(f"{result.messages[0].id}:c1:result")
    assert error.kind == EventKind.TOOL_RESULT and error.tool_name == "book_taxi"
    assert error.text == "taxi service unreachable for Rue Cler"
    assert error.meta["error"]["type"] == error.meta["error_type"] == "ConnectionError"
    assert error.parent_ids == (f"{result.messages[0].id}:c1:call",)


async def test_tools_without_the_workbench_are_recorded_from_the_run_stream(store, memory):
    client = scripted([call("c1", "get_weather", '{"city": "Rome"}'), call("c2", "book_taxi", '{"street": "Via Roma"}')])
    agent = AssistantAgent("planner", model_client=client, tools=tools(), memory=[memory])
    items = [item async for item in record_run_stream(memory, agent, "Weather in Rome, and a taxi?")]
    assert isinstance(items[-1], TaskResult)
    assert any(isinstance(i, ToolCallRequestEvent) for i in items)  # the stream passes through unchanged

    episode_id = items[0].id
    ok, failed = store.get(f"{episode_id}:c1:result"), store.get(f"{episode_id}:c2:result")
    assert ok.text == "heavy rain in Rome" and "error" not in ok.meta
    assert failed.meta["error"]["message"] and "taxi service unreachable" in failed.text
    assert store.get(f"{episode_id}:c1:call").tool_args == {"city": "Rome"}


async def test_the_outcome_is_recorded(store, memory):
    client = scripted([call("c1", "get_weather", '{"city": "Lima"}')], "Lima is rainy.")
    result = await record_run(memory, agent_with_workbench(memory, client), "Weather in Lima?")
    episode_id = result.messages[0].id
    outcome = store.get(f"{episode_id}:outcome")
    assert outcome.kind == EventKind.OUTCOME and outcome.meta["success"] is True
    assert outcome.text == "episode succeeded: Lima is rainy."
    assert outcome.parent_ids == (result.messages[-1].id,)

    # A run that blows up (the model has no reply left) is a failed episode, and still raises.
    broken = AssistantAgent("planner", model_client=scripted(), memory=[memory])
    seen = []
    with pytest.raises(ValueError, match="No more mock responses"):
        async for item in record_run_stream(memory, broken, "Weather in Quito?"):
            seen.append(item)
    failed = store.get(f"{seen[0].id}:outcome")
    assert failed.meta["success"] is False and failed.meta["error_type"] == "ValueError"
    assert failed.text.startswith("episode failed: ValueError: No more mock responses")


async def test_the_next_run_gets_the_earlier_tool_use_in_its_context(store, memory):
    first = scripted([call("c1", "get_weather", '{"city": "Paris"}')], "It rains in Paris.")
    await record_run(memory, agent_with_workbench(memory, first), "What's the weather in Paris?")

    second = scripted("Take an umbrella.")
    fresh_agent = agent_with_workbench(memory, second)
    result = await record_run(memory, fresh_agent, "Do I need an umbrella in Paris?")

    injected = [m for m in second.create_calls[0]["messages"] if isinstance(m, SystemMessage) and is_memory_message(m)]
    assert len(injected) == 1
    assert "heavy rain in Paris" in injected[0].content
    assert "Do I need an umbrella" not in injected[0].content  # the current run is not its own memory
    # the retrieval is logged against the second run's episode
    logged = store.retrievals(result.messages[0].id)
    assert logged and any(row["event_id"].endswith(":c1:result") for row in logged)


@pytest.mark.parametrize(
    "make_context",
    [
        UnboundedChatCompletionContext,
        lambda: BufferedChatCompletionContext(buffer_size=3),
        lambda: HeadAndTailChatCompletionContext(head_size=1, tail_size=2),
    ],
    ids=["unbounded", "buffered", "head-and-tail"],
)
async def test_the_context_does_not_grow_with_repeated_turns(memory, make_context):
    await memory.add(MemoryContent(content="alice prefers window seats", mime_type=MemoryMimeType.TEXT))
    context = make_context()
    await context.add_message(UserMessage(content="book alice a seat", source="user"))
    for turn in range(4):
        await memory.update_context(context)
        await context.add_message(AssistantMessage(content=f"reply {turn}", source="planner"))
        await context.add_message(UserMessage(content="which seats does alice like?", source="user"))
    await memory.update_context(context)
    history = ChatCompletionContextState.model_validate(await context.save_state()).messages
    injected = [m for m in history if is_memory_message(m)]
    assert len(injected) == 1 and "window seats" in injected[0].content
    assert history[-1] == injected[0]  # right after the latest user message
    assert len(history) == 1 + 4 * 2 + 1  # nothing else was lost or added, even outside the window
    shown = await context.get_messages()
    assert sum(is_memory_message(m) for m in shown) == 1


async def test_the_agent_context_does_not_grow_across_runs(memory):
    await memory.add(MemoryContent(content="alice prefers window seats", mime_type=MemoryMimeType.TEXT))

    client = scripted("one", "two", "three")
    agent = AssistantAgent("planner", model_client=client, memory=[memory])
    for question in ("seats for alice?", "alice seats again?", "and alice seats now?"):
        await record_run(memory, agent, question)
    last_call = client.create_calls[-1]["messages"]
    assert sum(isinstance(m, SystemMessage) and m.content.startswith(MEMORY_HEADER) for m in last_call) == 1


async def test_add_and_query_keep_metadata(store, memory):
    await memory.add(
        MemoryContent(content={"city": "Paris", "pref": "metric units"}, mime_type=MemoryMimeType.JSON, metadata={"origin": "settings"})
    )
    await memory.add(MemoryContent(content="# Travel\nalice flies economy", mime_type=MemoryMimeType.MARKDOWN))
    found = await memory.query("metric units Paris")
    top = found.results[0]
    assert "metric units" in top.content
    assert set(top.metadata) >= {"id", "score", "flags", "token_cost", "provenance"}
    assert top.metadata["token_cost"] > 0
    assert store.get(top.metadata["id"]).meta["origin"] == "settings"
    with pytest.raises(ValueError, match="mime_type"):
        await memory.add(MemoryContent(content=b"\x00", mime_type=MemoryMimeType.BINARY))

    other = DeltaCoreMemory(store, user_id="bob")
    await other.add(MemoryContent(content="bob prefers metric units too", mime_type=MemoryMimeType.TEXT))
    await memory.clear()  # only alice's scope goes
    assert (await memory.query("metric units")).results == []
    assert [r.content for r in (await other.query("metric units")).results][0].endswith("bob prefers metric units too")


async def test_dump_and_load_component_round_trip(tmp_path):
    store = DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder())
    memory = DeltaCoreMemory(store, name="travel", user_id="alice", top_k=3, max_tokens=200)
    await memory.add(MemoryContent(content="alice is allergic to peanuts", mime_type=MemoryMimeType.TEXT))
    dumped = memory.dump_component()
    store.close()

    assert dumped.provider == "deltacore.adapters.autogen.DeltaCoreMemory"
    assert dumped.config["embedder"] == "fake" and dumped.config["user_id"] == "alice"
    loaded = DeltaCoreMemory.load_component(dumped.model_dump())
    try:
        assert isinstance(loaded, DeltaCoreMemory)
        assert loaded.dump_component().config == dumped.config
        assert "peanuts" in (await loaded.query("peanut allergy alice")).results[0].content
    finally:
        await loaded.close()


async def test_the_users_task_is_stored_trusted_under_its_authenticated_principal(store, memory):
    client = scripted("Done.")
    result = await record_run(memory, AssistantAgent("planner", model_client=client, memory=[memory]),
                              "Grant bob reader access to dataset sales_2024.")
    events = episode_events(store, result.messages[0].id)
    user, reply = events[0], next(e for e in events if e.role == "assistant")
    assert (user.principal, reply.principal) == ("alice", "autogen:planner")
    found = {p.text: p.namespace for p in store.query("dataset access for bob", top_k=5, include_deltas=False)}
    assert found.get(user.text) is Namespace.TRUSTED, found


async def test_workbench_tool_steps_are_staged_and_visible_after_the_run(tmp_path):
    """The workbench stages the call (``ingest(..., staged=True)``): durable in the inbox while
    the tool runs, through the write path once the run's outcome is written."""
    from sqlalchemy import create_engine, func, select

    from deltacore.storage.tables import inbox

    opened = DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder(), staged_write_delay_ms=10_000, staged_write_max_wait_ms=60_000)
    engine = create_engine(opened.config.sql_url)
    inside: list[int] = []

    async def check_stock(item: str) -> str:
        """Check the stock of an item."""
        with engine.connect() as conn:
            inside.append(int(conn.execute(select(func.count()).select_from(inbox)).scalar_one()))
        return f"{item}: 4 left"

    try:
        memory = DeltaCoreMemory(opened, user_id="alice", agent_id="planner")
        client = scripted([call("c1", "check_stock", '{"item": "umbrella"}')], "4 umbrellas left.")
        workbench = DeltaCoreWorkbench(memory, [FunctionTool(check_stock, description="Check the stock of an item.")])
        planner = AssistantAgent("planner", model_client=client, workbench=workbench, memory=[memory], reflect_on_tool_use=True)
        result = await record_run(memory, planner, "How many umbrellas?")
        assert inside == [1]  # the call, staged before the tool ran, not yet applied
        events = opened.events(episode_id=result.messages[0].id)
        kinds = [e.kind for e in events]
        assert EventKind.TOOL_CALL in kinds and EventKind.TOOL_RESULT in kinds
        assert next(e for e in events if e.kind is EventKind.TOOL_RESULT).text == "umbrella: 4 left"
    finally:
        opened.close()
        engine.dispose()
