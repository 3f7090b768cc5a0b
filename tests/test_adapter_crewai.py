"""The CrewAI adapter, driven by real Crews and a scripted BaseLLM: offline, no API key."""

from __future__ import annotations

import os

# Before importing crewai (telemetry export and the tracing prompt read these at import).
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from crewai import Agent, Crew, Task
from crewai.events import crewai_event_bus
from crewai.hooks import get_after_tool_call_hooks, get_before_tool_call_hooks
from crewai.llms.base_llm import BaseLLM
from crewai.memory.storage.backend import StorageBackend
from crewai.memory.types import MemoryRecord
from crewai.telemetry import Telemetry
from crewai.tools import tool
from pydantic import PrivateAttr

from deltacore import DeltaCore
from deltacore.adapters.crewai import DeltaCoreListener, DeltaCoreMemory, DeltaCoreStorage, ToolSchemaHooks
from deltacore.model import Event

# CrewAI 1.15 warns about its own deprecated fields on every crew it builds.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# ---- a scripted model and two tools ----------------------------------------------------------


class ScriptedLLM(BaseLLM):
    """Native tool calls (a list of OpenAI-style dicts) or a final answer (str), in order.

    A reply may be an exception (raised) or a function of the messages received.
    """

    _script: list[Any] = PrivateAttr(default_factory=list)
    _calls: list[Any] = PrivateAttr(default_factory=list)

    def __init__(self, script: list[Any], **fields: Any) -> None:
        fields.setdefault("model", "scripted-offline")
        super().__init__(**fields)
        self._script = list(script)

    @property
    def received(self) -> list[Any]:
        return self._calls

    def supports_function_calling(self) -> bool:
        return True

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self._calls.append(messages if isinstance(messages, str) else [dict(message) for message in messages])
        reply = self._script[min(len(self._calls), len(self._script)) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply(messages) if callable(reply) else reply

    def get_context_window_size(self) -> int:
        return 100_000


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for i, (name, arguments) in enumerate(calls, start=1)
    ]


@tool("add_numbers")
def add_numbers(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@tool("explode")
def explode(x: str) -> str:
    """A tool that always raises."""
    raise RuntimeError(f"kaboom {x}")


def make_crew(llm: BaseLLM, description: str, memory: DeltaCoreMemory | None = None) -> Crew:
    agent = Agent(role="Calculator", goal="Add numbers", backstory="Good at math.", llm=llm,
                  tools=[add_numbers, explode], max_iter=4, max_retry_limit=0, verbose=False)
    task = Task(description=description, expected_output="The sum.", agent=agent)
    return Crew(name="calc crew", agents=[agent], tasks=[task], memory=memory or False, verbose=False)


# ---- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "EMBEDDINGS_OPENAI_API_KEY", "CHROMA_OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def store(backend: Any) -> Iterator[DeltaCore]:
    opened = backend.open()
    yield opened
    opened.close()


@pytest.fixture
def recorder(store: DeltaCore) -> Iterator[DeltaCoreListener]:
    listener = DeltaCoreListener(store)
    yield listener
    listener.flush()
    listener.close()


def episode_events(store: DeltaCore, episode_id: str) -> dict[str, Any]:
    """The episode's packets by kind (lists), oldest first."""
    by_kind: dict[str, list[Any]] = {}
    for packet in sorted(store.query(episode_id=episode_id, top_k=100), key=lambda packet: packet.ts):
        by_kind.setdefault(packet.kind.value, []).append(packet)
    return by_kind


def last_outcome(store: DeltaCore) -> Any:
    return store.query(kinds=["outcome"], top_k=1)[0]


# ---- recording -----------------------------------------------------------------------------


def test_tool_calls_arrive_as_deltas_with_name_args_schema_and_parent_under_one_episode(
    store: DeltaCore, recorder: DeltaCoreListener
) -> None:
    llm = ScriptedLLM([tool_calls(("add_numbers", {"a": 2, "b": 3})), "The sum is 5."])
    result = make_crew(llm, "Add 2 and 3 for alice.").kickoff()
    recorder.flush()

    assert result.raw == "The sum is 5."
    assert recorder.errors == []
    episode_id = last_outcome(store).episode_id
    events = episode_events(store, episode_id)
    [task_input] = events["message"][:1]
    [call] = events["tool_call"]
    [output] = events["tool_result"]

    stored_call = store.get(call.id)
    assert stored_call.tool_name == "add_numbers"
    assert stored_call.tool_args == {"a": 2, "b": 3}
    [schema_version] = store.tool_schemas("add_numbers")
    assert schema_version["schema"]["properties"].keys() == {"a", "b"}  # args_schema.model_json_schema()
    assert stored_call.tool_schema_hash == schema_version["schema_hash"]
    assert call.deltas[0].tool_schema_hash == stored_call.tool_schema_hash

    # Causal chain: task input -> call -> result, all in the kickoff's episode.
    assert task_input.text == "Add 2 and 3 for alice."
    assert call.deltas[0].parent_ids == (task_input.deltas[0].id,)
    assert output.deltas[0].parent_ids == (call.deltas[0].id,)
    assert store.get(output.id).parent_ids == (call.id,)
    assert output.text == "5"
    chain = store.query_causal(output.id, depth=5)
    assert {task_input.deltas[0].id, call.deltas[0].id} <= set(chain.deltas)
    assert {packet.episode_id for kind in events.values() for packet in kind} == {episode_id}
    assert stored_call.source == "crewai:Calculator" and stored_call.meta["framework"] == "crewai"


def test_a_tool_error_is_recorded_as_an_error_result(store: DeltaCore, recorder: DeltaCoreListener) -> None:
    llm = ScriptedLLM([tool_calls(("explode", {"x": "y"})), "It exploded."])
    make_crew(llm, "Try the explode tool.").kickoff()
    recorder.flush()

    events = episode_events(store, last_outcome(store).episode_id)
    [call] = events["tool_call"]
    [failure] = events["tool_result"]
    stored = store.get(failure.id)
    assert stored.text == "kaboom y"
    assert stored.meta["error"]["type"] == stored.meta["error_type"] == "RuntimeError"
    assert stored.parent_ids == (call.id,)
    assert store.get(call.id).tool_args == {"x": "y"}


def test_the_kickoff_outcome_is_recorded_for_success_and_failure(store: DeltaCore, recorder: DeltaCoreListener) -> None:
    make_crew(ScriptedLLM([tool_calls(("add_numbers", {"a": 1, "b": 1})), "Two."]), "Add 1 and 1.").kickoff()
    recorder.flush()
    success = last_outcome(store)
    events = episode_events(store, success.episode_id)
    assert success.text == "episode succeeded: Two."
    assert store.get(success.id).meta["success"] is True
    assert success.deltas[0].parent_ids == (events["message"][-1].deltas[0].id,)  # the task's output

    with pytest.raises(Exception, match="model is down"):
        make_crew(ScriptedLLM([RuntimeError("model is down")]), "Add 4 and 4.").kickoff()
    recorder.flush()
    failure = last_outcome(store)
    assert failure.episode_id != success.episode_id
    assert failure.text.startswith("episode failed:") and "model is down" in failure.text
    assert store.get(failure.id).meta["success"] is False
    assert failure.deltas[0].parent_ids  # chained to the failed episode's last step
    assert recorder.errors == []


def test_the_text_react_path_records_parsed_arguments(store: DeltaCore, recorder: DeltaCoreListener) -> None:
    class ReActLLM(ScriptedLLM):
        def supports_function_calling(self) -> bool:
            return False

    llm = ReActLLM([
        'Thought: I should add.\nAction: add_numbers\nAction Input: {"a": 20, "b": 22}',
        "Thought: I know the answer.\nFinal Answer: 42",
    ])
    make_crew(llm, "Add 20 and 22.").kickoff()
    recorder.flush()
    [call] = episode_events(store, last_outcome(store).episode_id)["tool_call"]
    stored = store.get(call.id)
    assert stored.tool_args == {"a": 20, "b": 22}
    assert stored.tool_schema_hash == store.tool_schemas("add_numbers")[0]["schema_hash"]


def test_closing_the_listener_unregisters_handlers_and_hooks(store: DeltaCore) -> None:
    before, after = len(get_before_tool_call_hooks()), len(get_after_tool_call_hooks())
    listener = DeltaCoreListener(store)
    assert len(get_before_tool_call_hooks()) == before + 1
    listener.close()
    assert (len(get_before_tool_call_hooks()), len(get_after_tool_call_hooks())) == (before, after)

    make_crew(ScriptedLLM(["Nothing to do."]), "Say nothing.").kickoff()
    crewai_event_bus.flush()
    assert store.stats().events == 0

    shared = ToolSchemaHooks().register()
    DeltaCoreListener(store, hooks=shared).close()
    assert shared.before_tool_call in get_before_tool_call_hooks()  # not the listener's to remove
    shared.unregister()


# ---- memory --------------------------------------------------------------------------------


def test_memory_from_an_earlier_kickoff_is_injected_into_the_next_runs_context(
    store: DeltaCore, recorder: DeltaCoreListener
) -> None:
    analysis_llm = ScriptedLLM(["{}"])  # CrewAI's memory analysis model: must never be asked
    memory = DeltaCoreMemory(store, llm=analysis_llm)
    first = ScriptedLLM([tool_calls(("add_numbers", {"a": 2, "b": 3})), "The sum is 5."])
    make_crew(first, "Add 2 and 3 for alice.", memory).kickoff()
    recorder.flush()
    memory.drain_writes()

    second = ScriptedLLM(["5 again."])
    make_crew(second, "What is the sum of 2 and 3 for alice?", memory).kickoff()
    recorder.flush()

    prompt = "\n".join(str(message["content"]) for message in second.received[0])
    assert "Relevant memories:" in prompt
    memories = prompt[prompt.index("Relevant memories:"):]
    assert 'Calculator: add_numbers({"a": 2, "b": 3})' in memories  # the earlier tool call
    assert "Calculator: The sum is 5." in memories  # and the answer it led to
    assert "What is the sum" not in memories  # the running kickoff's own input is no memory
    assert "'token_cost':" in memories and "'provenance':" in memories
    assert analysis_llm.received == []

    second_episode = last_outcome(store).episode_id
    logged = store.retrievals(second_episode)
    assert [row["rank"] for row in logged] == list(range(1, len(logged) + 1))
    assert {row["query"] for row in logged} == {"What is the sum of 2 and 3 for alice?"}
    first_calls = store.query(kinds=["tool_call"], top_k=10)
    assert {packet.id for packet in first_calls} <= {row["event_id"] for row in logged}

    # The agent's own save after each task became a fact of that task's episode, no LLM involved.
    facts = {fact.episode_id: fact.text for fact in store.query(kinds=["fact"], top_k=10)}
    assert "Result: The sum is 5." in facts[first_calls[0].episode_id]
    assert "Result: 5 again." in facts[second_episode]


def test_crewai_runs_offline_without_telemetry_or_api_key(store: DeltaCore) -> None:
    assert "OPENAI_API_KEY" not in os.environ
    assert Telemetry._is_telemetry_disabled()
    memory = DeltaCoreMemory(store)
    crew = make_crew(ScriptedLLM(["Nothing to add."]), "Say hello.", memory)
    assert crew.kickoff().raw == "Nothing to add."
    memory.drain_writes()
    assert store.query(kinds=["fact"], top_k=5)  # saved with no embedder or LLM key


# ---- the storage backend ---------------------------------------------------------------------


def test_storage_backend_save_search_delete_round_trip(store: DeltaCore) -> None:
    storage = DeltaCoreStorage(store)
    assert isinstance(storage, StorageBackend)
    old = datetime.utcnow() - timedelta(days=3)
    records = [
        MemoryRecord(content="alice prefers adding numbers", scope="/users/alice", categories=["preference"],
                     importance=0.9, metadata={"team": "math"}),
        MemoryRecord(content="bob deploys the api on fridays", scope="/users/bob", categories=["habit"],
                     created_at=old, last_accessed=old),
        MemoryRecord(content="the api service runs on port 8080", scope="/", categories=["fact"]),
    ]
    storage.save(records)

    first = storage.get_record(records[0].id)
    assert first is not None
    assert (first.content, first.scope, first.categories, first.importance, first.metadata) == (
        "alice prefers adding numbers", "/users/alice", ["preference"], 0.9, {"team": "math"}
    )
    assert storage.count() == 3 and storage.count("/users") == 2
    assert storage.list_scopes("/") == ["/users"]
    assert storage.list_scopes("/users") == ["/users/alice", "/users/bob"]
    assert storage.list_categories("/users") == {"preference": 1, "habit": 1}
    assert [record.id for record in storage.list_records()] [-1] == records[1].id  # newest first
    info = storage.get_scope_info("/users")
    assert info.record_count == 2 and info.child_scopes == ["/users/alice", "/users/bob"]

    # Unambiguous for every router (semantic and lexical both rank the port record first), so the
    # check does not hang on how the engine breaks a tie.
    [query_vector] = storage.embedder(["which port does the api service run on?"])
    hits = storage.search(query_vector, limit=2)
    assert hits[0][0].id == records[2].id and hits[0][0].content.endswith("the api service runs on port 8080")
    assert hits[0][0].metadata["deltacore"]["id"] == records[2].id
    assert [record.id for record, _ in storage.search(query_vector, scope_prefix="/users/bob")] == [records[1].id]
    assert storage.search(query_vector, categories=["preference"])[0][0].id == records[0].id
    with pytest.raises(ValueError, match="DeltaCoreEmbedder"):
        storage.search([0.5] * len(query_vector))

    storage.update(first.model_copy(update={"content": "alice prefers multiplying", "importance": 0.4}))
    updated = storage.get_record(records[0].id)
    assert updated is not None and (updated.content, updated.importance) == ("alice prefers multiplying", 0.4)
    # The update kept the record's previous version; recall sees only the new one.
    assert [v.event.text for v in store.versions(records[0].id)] == ["alice prefers adding numbers", "alice prefers multiplying"]
    assert storage.count("/users") == 2

    assert storage.delete(older_than=datetime.utcnow() - timedelta(days=1)) == 1  # bob's
    assert storage.delete(categories=["fact"]) == 1
    assert storage.delete(record_ids=[records[0].id]) == 1
    assert storage.get_record(records[0].id) is None and storage.count() == 0

    storage.save([MemoryRecord(content=f"note {i}", scope="/notes") for i in range(3)])
    storage.reset("/notes")
    assert storage.count() == 0


def test_storage_keeps_tenants_apart_and_sees_recorded_events(store: DeltaCore) -> None:
    store.ingest([Event(kind="tool_result", tool_name="lookup", actor="lookup", text="billing listens on port 8443", tenant="acme")])
    acme, other = DeltaCoreStorage(store, tenant="acme"), DeltaCoreStorage(store, tenant="globex")
    [vector] = acme.embedder(["billing port"])
    [(record, _)] = acme.search(vector)
    assert record.categories == ["tool_result"] and record.content.endswith("lookup: billing listens on port 8443")
    assert other.search(other.embedder(["billing port"])[0]) == []
    other.reset()
    assert acme.count() == 1


def test_the_crews_user_speaks_the_task_and_the_agent_its_steps(store: DeltaCore) -> None:
    listener = DeltaCoreListener(store, user_id="alice")
    try:
        make_crew(ScriptedLLM([tool_calls(("add_numbers", {"a": 2, "b": 3})), "Five."]), "Add 2 and 3.").kickoff()
        listener.flush()
    finally:
        listener.close()
    outcome = last_outcome(store)
    events = store.events(episode_id=outcome.episode_id)
    task = next(e for e in events if e.role == "user")
    call = next(e for e in events if e.kind.value == "tool_call")
    assert (task.principal, call.principal) == ("alice", "crewai:Calculator")
