"""Plans through each framework: real framework objects driven by each framework's own scripted model.

For every framework: a plan recorded through an episode is offered in the next run's context
with its probability; a tool that raises records ``meta["error"]`` with the exception type, and
a permanent failure lowers the plan (a transient one does not); the ``recall_plans`` tool
returns the plan."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from deltacore import DeltaCore
from deltacore.adapters._shared import PLAN_HEADER
from deltacore.testing import FakeEmbedder

TASK = "Grant alice the analyst role on the sales dataset"
ARGS = {"user": "alice", "role": "analyst", "dataset": "sales"}


class Gate:
    """What the grant tool does on its next call: work, or raise ``error``."""

    error: BaseException | None = None


def grant(user: str, role: str, dataset: str) -> str:
    if Gate.error is not None:
        raise Gate.error
    return f"granted {role} on {dataset} to {user}"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DeltaCore]:
    Gate.error = None
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as opened:
        yield opened


def best(store: DeltaCore) -> Any:
    plans = store.recall_plans(TASK)
    assert plans, "no plan learned"
    return plans[0]


def tool_result(store: DeltaCore, episode_id: str) -> Any:
    (result,) = [e for e in store.events(episode_id=episode_id) if e.kind.value == "tool_result"]
    return result


def check_plan_text(text: str, plan: Any) -> None:
    assert PLAN_HEADER in text
    assert f"probability of success {plan.probability:.2f}" in text
    assert 'grant_access({"dataset": "sales", "role": "analyst", "user": "alice"})' in text


def check_failures(store: DeltaCore, before: Any, failed_episode: str, error_type: str) -> Any:
    result = tool_result(store, failed_episode)
    assert result.meta["error"]["type"] == error_type and "kind" not in result.meta["error"]
    store.record_outcome(failed_episode, -1.0)  # the user's verdict: the task was not done
    after = best(store)
    assert after.schema_id == before.schema_id
    assert after.evidence.failures == before.evidence.failures + 1
    assert after.probability < before.probability
    return after


def check_tool(output: str, plan: Any) -> None:
    (found,) = [p for p in json.loads(output) if p["schema_id"] == plan.schema_id]
    assert found["probability"] == round(plan.probability, 3)
    assert found["steps"] == [{"tool": "grant_access", "args": ARGS}]


# ---- LangChain: DeltaCoreMiddleware records, DeltaCorePlanMiddleware offers --------------------


def test_langchain_plan_in_context_errors_and_tool(store) -> None:
    from deltacore.adapters.langchain import (
        DeltaCoreMiddleware,
        DeltaCorePlanMiddleware,
        memory_tools,
    )
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class ScriptedModel(GenericFakeChatModel):
        seen: ClassVar[list[list[BaseMessage]]] = []

        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            ScriptedModel.seen.append(messages)
            return super()._generate(messages, *args, **kwargs)

    @tool
    def grant_access(user: str, role: str, dataset: str) -> str:
        """Grant a user a role on a dataset."""
        return grant(user, role, dataset)

    def run() -> str:
        ScriptedModel.seen = []
        call = AIMessage("", tool_calls=[{"name": "grant_access", "args": ARGS, "id": "c1", "type": "tool_call"}])
        model = ScriptedModel(messages=iter([call, AIMessage("Done.")]))
        middleware = [DeltaCoreMiddleware(store, name="ops"), DeltaCorePlanMiddleware(store)]
        run_id = str(uuid.uuid4())
        # A raising tool ends a LangChain run (the error is recorded on the way out).
        with contextlib.suppress(PermissionError, TimeoutError):
            create_agent(model, [grant_access], middleware=middleware).invoke(
                {"messages": [{"role": "user", "content": TASK}]}, config={"run_id": run_id}
            )
        return run_id

    run()
    first = best(store)
    assert first.evidence.successes == 1

    Gate.error = PermissionError("alice may not be granted analyst")
    failed = run()
    system = ScriptedModel.seen[0][0]
    check_plan_text(str(system.content), first)  # offered before the run that failed
    second = check_failures(store, first, failed, "PermissionError")

    # A timeout is transient: recorded so, and not held against the plan.
    Gate.error = TimeoutError("the directory did not answer in 30 s")
    flaky = run()
    result = tool_result(store, flaky)
    assert result.meta["error"] == {"type": "TimeoutError", "message": "the directory did not answer in 30 s", "kind": "transient"}
    store.record_outcome(flaky, -1.0)
    third = best(store)
    assert third.evidence.transient_failures == 1 and third.evidence.failures == second.evidence.failures
    assert third.probability == pytest.approx(second.probability, abs=0.02)

    (recall,) = [t for t in memory_tools(store) if t.name == "recall_plans"]
    check_tool(recall.invoke({"task": TASK}), third)


# ---- AutoGen: the workbench and record_run record, DeltaCorePlanMemory offers ---------------------


async def test_autogen_plan_in_context_errors_and_tool(store) -> None:
    pytest.importorskip("autogen_ext.models.replay")
    from autogen_agentchat.agents import AssistantAgent
    from autogen_core import FunctionCall
    from autogen_core.models import (
        CreateResult,
        ModelFamily,
        ModelInfo,
        RequestUsage,
        SystemMessage,
    )
    from autogen_core.tools import FunctionTool
    from autogen_ext.models.replay import ReplayChatCompletionClient
    from deltacore.adapters.autogen import (
        DeltaCoreMemory,
        DeltaCorePlanMemory,
        DeltaCoreWorkbench,
        memory_tools,
        record_run,
    )

    info = ModelInfo(vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN, structured_output=False)
    seen: list[list[Any]] = []

    class Client(ReplayChatCompletionClient):
        async def create(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            seen.append(list(messages))
            return await super().create(messages, *args, **kwargs)

    async def grant_access(user: str, role: str, dataset: str) -> str:
        """Grant a user a role on a dataset."""
        return grant(user, role, dataset)

    memory = DeltaCoreMemory(store, agent_id="ops")
    plans = DeltaCorePlanMemory(store)

    async def run() -> str:
        seen.clear()
        usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
        call = CreateResult(
            finish_reason="function_calls", content=[FunctionCall(id="c1", name="grant_access", arguments=json.dumps(ARGS))], usage=usage, cached=False
        )
        client = Client([call, "Done."], model_info=info)
        workbench = DeltaCoreWorkbench(memory, [FunctionTool(grant_access, description="Grant a user a role on a dataset.")])
        agent = AssistantAgent("ops", model_client=client, workbench=workbench, memory=[memory, plans], reflect_on_tool_use=True)
        result = await record_run(memory, agent, TASK)
        return result.messages[0].id

    await run()
    first = best(store)
    Gate.error = PermissionError("alice may not be granted analyst")
    failed = await run()
    offered = [m.content for m in seen[0] if isinstance(m, SystemMessage) and m.content.startswith(PLAN_HEADER)]
    assert len(offered) == 1
    check_plan_text(offered[0], first)
    second = check_failures(store, first, failed, "PermissionError")

    (recall,) = [t for t in memory_tools(store) if t.name == "recall_plans"]
    output = await recall.run_json({"task": TASK}, cancellation_token=None)
    check_tool(recall.return_value_as_string(output), second)


# ---- LlamaIndex: instrument() records, DeltaCorePlanBlock offers ----------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
async def test_llamaindex_plan_in_context_errors_and_tool(store) -> None:
    from deltacore.adapters.llamaindex import (
        DeltaCorePlanBlock,
        instrument,
        memory_tools,
    )
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from llama_index.core.memory import Memory
    from llama_index.core.tools import FunctionTool

    seen: list[list[ChatMessage]] = []

    def grant_access(user: str, role: str, dataset: str) -> str:
        """Grant a user a role on a dataset."""
        return grant(user, role, dataset)

    async def run() -> str:
        seen.clear()
        replies = [
            ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="grant_access", tool_kwargs=ARGS)]),
            ChatMessage(role="assistant", content="Done."),
        ]

        def respond(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
            seen.append(list(messages))
            return replies.pop(0) if len(replies) > 1 else replies[0]

        agent = FunctionAgent(
            name="ops", description="grants access", tools=[FunctionTool.from_defaults(grant_access)],
            llm=MockFunctionCallingLLM(response_generator=respond), system_prompt="You grant access.", streaming=False,
        )
        memory = Memory.from_defaults(session_id=uuid.uuid4().hex, memory_blocks=[DeltaCorePlanBlock(store=store)])
        handler = agent.run(user_msg=TASK, memory=memory)
        await handler
        return handler.run_id

    recorder = instrument(store, agent_id="ops")
    try:
        await run()
        first = best(store)
        Gate.error = PermissionError("alice may not be granted analyst")
        failed = await run()
    finally:
        recorder.detach()
    shown = "\n".join(str(m.content) for m in seen[0])
    check_plan_text(shown, first)
    second = check_failures(store, first, failed, "PermissionError")

    (recall,) = [t for t in memory_tools(store) if t.metadata.name == "recall_plans"]
    check_tool(str(recall.call(task=TASK)), second)


# ---- CrewAI: DeltaCoreListener records, DeltaCoreMemory(offer_plans=True) offers ------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_crewai_plan_in_context_errors_and_tool(store, monkeypatch) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "EMBEDDINGS_OPENAI_API_KEY", "CHROMA_OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools import tool
    from deltacore.adapters.crewai import (
        DeltaCoreListener,
        DeltaCoreMemory,
        memory_tools,
    )
    from pydantic import PrivateAttr

    class ScriptedLLM(BaseLLM):
        _script: list[Any] = PrivateAttr(default_factory=list)
        _calls: list[Any] = PrivateAttr(default_factory=list)

        def __init__(self, script: list[Any], **fields: Any) -> None:
            fields.setdefault("model", "scripted-offline")
            super().__init__(**fields)
            self._script = list(script)

        def supports_function_calling(self) -> bool:
            return True

        def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
                 from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
            self._calls.append(messages if isinstance(messages, str) else [dict(message) for message in messages])
            return self._script[min(len(self._calls), len(self._script)) - 1]

        def get_context_window_size(self) -> int:
            return 100_000

    @tool("grant_access")
    def grant_access(user: str, role: str, dataset: str) -> str:
        """Grant a user a role on a dataset."""
        return grant(user, role, dataset)

    listener = DeltaCoreListener(store)
    memory = DeltaCoreMemory(store, offer_plans=True)

    def run() -> tuple[str, ScriptedLLM]:
        call = [{"id": "call_1", "type": "function", "function": {"name": "grant_access", "arguments": json.dumps(ARGS)}}]
        llm = ScriptedLLM([call, "Done."])
        agent = Agent(role="Admin", goal="Grant access", backstory="Careful.", llm=llm, tools=[grant_access],
                      max_iter=3, max_retry_limit=0, verbose=False)
        task = Task(description=TASK, expected_output="Confirmation.", agent=agent)
        Crew(name="access crew", agents=[agent], tasks=[task], memory=memory, verbose=False).kickoff()
        listener.flush()
        memory.drain_writes()
        episode = store.query(kinds=["outcome"], top_k=1)[0].episode_id
        return episode, llm

    try:
        run()
        first = best(store)
        Gate.error = PermissionError("alice may not be granted analyst")
        failed, llm = run()
    finally:
        listener.close()
    prompt = "\n".join(str(message["content"]) for message in llm._calls[0])
    check_plan_text(prompt, first)
    second = check_failures(store, first, failed, "PermissionError")

    (recall,) = [t for t in memory_tools(store) if t.name == "recall_plans"]
    check_tool(recall.run(task=TASK), second)
