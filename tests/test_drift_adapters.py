"""Tool-schema drift seen through each framework adapter: a tool whose parameter was renamed
between two runs of a real agent (driven by the framework's own scripted model).

In the second run the model calls nothing: the drift is caught when the framework *offers* the
changed tool (LangChain ``invocation_params["tools"]``, AutoGen ``list_tools()``, CrewAI the
task's tools, LlamaIndex the agent's tool metadata), so the first run's decision comes back
migrated before the agent could repeat the broken call.
"""

from __future__ import annotations

import os

os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json  # noqa: E402
import uuid  # noqa: E402
from typing import Any, ClassVar  # noqa: E402

import pytest  # noqa: E402

from deltacore import DeltaCore  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

TASK = "deploy api to prod"


def _assert_drift_caught_by_the_offer(store: DeltaCore, source_prefix: str) -> None:
    [drift] = store.system_events("SCHEMA_DRIFT")
    assert drift["payload"]["source"].startswith(source_prefix)
    assert drift["payload"]["affected"] == 1 and drift["payload"]["migrated"] == 1
    [old, new] = store.tool_schemas("deploy")
    assert set(old["schema"]["properties"]) == {"service", "env"}
    assert set(new["schema"]["properties"]) == {"service", "environment"}
    # No call was made under the new schema: the offer alone was enough.
    calls = [e for e in store.events(kinds=["tool_call"])]
    assert [c.tool_schema_hash for c in calls] == [old["schema_hash"]]
    [decision] = store.recall_decisions(TASK, tool="deploy")
    assert decision.outcome == "worked" and decision.migrated and decision.schema_current is False
    assert decision.args == {"service": "api", "environment": "prod"}
    assert decision.original_args == {"service": "api", "env": "prod"}
    assert "schema_drift" in decision.flags


@pytest.fixture
def store(backend: Any):
    opened = backend.open()
    yield opened
    opened.close()


# ---- LangChain --------------------------------------------------------------------------------


def _langchain_parts() -> tuple[Any, Any, Any]:
    """A scripted chat model that accepts tools, and one ``deploy`` tool in two versions whose
    parameter ``env`` was renamed ``environment``."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class ScriptedModel(GenericFakeChatModel):
        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    @tool("deploy")
    def deploy_v1(service: str, env: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {env}"

    @tool("deploy")
    def deploy_v2(service: str, environment: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {environment}"

    return ScriptedModel, deploy_v1, deploy_v2


def test_langchain_callback_handler(store):
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from deltacore.adapters.langchain import DeltaCoreCallbackHandler

    ScriptedModel, deploy_v1, deploy_v2 = _langchain_parts()

    handler = DeltaCoreCallbackHandler(store)
    call = AIMessage("", tool_calls=[{"name": "deploy", "args": {"service": "api", "env": "prod"}, "id": "c1", "type": "tool_call"}])
    first = uuid.uuid4()
    model = ScriptedModel(messages=iter([call, AIMessage("Deployed.")]))
    create_agent(model, [deploy_v1]).invoke({"messages": [("user", TASK)]}, config={"callbacks": [handler], "run_id": first})
    store.record_outcome(str(first), 1.0)
    assert store.system_events("SCHEMA_DRIFT") == []
    model = ScriptedModel(messages=iter([AIMessage("Nothing to do.")]))
    create_agent(model, [deploy_v2]).invoke({"messages": [("user", TASK)]}, config={"callbacks": [handler], "run_id": uuid.uuid4()})
    _assert_drift_caught_by_the_offer(store, "LangGraph")  # the root run's name


# ---- AutoGen ----------------------------------------------------------------------------------


async def test_autogen_workbench(store):
    pytest.importorskip("autogen_ext.models.replay")
    from autogen_agentchat.agents import AssistantAgent
    from autogen_core import FunctionCall
    from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage
    from autogen_core.tools import FunctionTool
    from autogen_ext.models.replay import ReplayChatCompletionClient

    from deltacore.adapters.autogen import DeltaCoreMemory, DeltaCoreWorkbench, record_run

    info = ModelInfo(vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN, structured_output=False)
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    async def deploy_v1(service: str, env: str) -> str:
        return f"deployed {service} to {env}"

    async def deploy_v2(service: str, environment: str) -> str:
        return f"deployed {service} to {environment}"

    memory = DeltaCoreMemory(store, agent_id="ops")
    call = CreateResult(
        finish_reason="function_calls",
        content=[FunctionCall(id="c1", name="deploy", arguments=json.dumps({"service": "api", "env": "prod"}))],
        usage=usage,
        cached=False,
    )
    tool_v1 = FunctionTool(deploy_v1, description="Deploy a service.", name="deploy")
    agent = AssistantAgent(
        "ops", model_client=ReplayChatCompletionClient([call, "Deployed."], model_info=info),
        workbench=DeltaCoreWorkbench(memory, [tool_v1]), reflect_on_tool_use=True,
    )  # fmt: skip
    result = await record_run(memory, agent, TASK)
    store.record_outcome(result.messages[0].id, 1.0)
    assert store.system_events("SCHEMA_DRIFT") == []
    tool_v2 = FunctionTool(deploy_v2, description="Deploy a service.", name="deploy")
    agent = AssistantAgent(
        "ops", model_client=ReplayChatCompletionClient(["Nothing to do."], model_info=info),
        workbench=DeltaCoreWorkbench(memory, [tool_v2]),
    )  # fmt: skip
    await record_run(memory, agent, TASK)
    _assert_drift_caught_by_the_offer(store, "autogen")


# ---- CrewAI -----------------------------------------------------------------------------------


def test_crewai_listener(store, monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    pytest.importorskip("crewai")
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools import tool
    from pydantic import PrivateAttr

    from deltacore.adapters.crewai import DeltaCoreListener

    class ScriptedLLM(BaseLLM):
        _script: list[Any] = PrivateAttr(default_factory=list)
        _calls: ClassVar[int] = 0

        def __init__(self, script: list[Any], **fields: Any) -> None:
            super().__init__(model="scripted-offline", **fields)
            self._script = list(script)

        def supports_function_calling(self) -> bool:
            return True

        def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
                 from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:  # fmt: skip
            return self._script.pop(0) if len(self._script) > 1 else self._script[0]

        def get_context_window_size(self) -> int:
            return 100_000

    @tool("deploy")
    def deploy_v1(service: str, env: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {env}"

    @tool("deploy")
    def deploy_v2(service: str, environment: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {environment}"

    def crew(tools: list[Any], script: list[Any]) -> Crew:
        agent = Agent(role="Deployer", goal="Deploy", backstory="Ships services.", llm=ScriptedLLM(script),
                      tools=tools, max_iter=3, max_retry_limit=0, verbose=False)  # fmt: skip
        return Crew(agents=[agent], tasks=[Task(description=TASK, expected_output="done", agent=agent)], verbose=False)

    call = [{"id": "c1", "type": "function", "function": {"name": "deploy", "arguments": json.dumps({"service": "api", "env": "prod"})}}]
    with DeltaCoreListener(store) as recorder:
        crew([deploy_v1], [call, "Deployed."]).kickoff()
        recorder.flush()
        [outcome] = store.events(kinds=["outcome"])
        store.record_outcome(outcome.episode_id, 1.0)
        assert store.system_events("SCHEMA_DRIFT") == []
        crew([deploy_v2], ["Nothing to do."]).kickoff()
        recorder.flush()
        assert recorder.errors == []
    _assert_drift_caught_by_the_offer(store, "crewai:Deployer")


# ---- LlamaIndex -------------------------------------------------------------------------------


async def test_llamaindex_span_handler(store):
    pytest.importorskip("llama_index.core")
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from llama_index.core.tools import FunctionTool

    from deltacore.adapters.llamaindex import instrument

    def deploy_v1(service: str, env: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {env}"

    def deploy_v2(service: str, environment: str) -> str:
        """Deploy a service to an environment."""
        return f"deployed {service} to {environment}"

    def llm(*replies: ChatMessage | str) -> MockFunctionCallingLLM:
        queue = [ChatMessage(role="assistant", content=r) if isinstance(r, str) else r for r in replies]
        return MockFunctionCallingLLM(response_generator=lambda messages, **_: queue.pop(0) if len(queue) > 1 else queue[0])

    def agent(tool: FunctionTool, model: MockFunctionCallingLLM) -> FunctionAgent:
        return FunctionAgent(name="ops", description="deploys", tools=[tool], llm=model, system_prompt="Deploy.", streaming=False)

    call = ChatMessage(
        role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="deploy", tool_kwargs={"service": "api", "env": "prod"})]
    )
    recorder = instrument(store, agent_id="ops")
    try:
        first = agent(FunctionTool.from_defaults(deploy_v1, name="deploy"), llm(call, "Deployed.")).run(user_msg=TASK)
        await first
        store.record_outcome(first.run_id, 1.0)
        assert store.system_events("SCHEMA_DRIFT") == []
        await agent(FunctionTool.from_defaults(deploy_v2, name="deploy"), llm("Nothing to do.")).run(user_msg=TASK)
        assert recorder.errors == []
    finally:
        recorder.detach()
    _assert_drift_caught_by_the_offer(store, "llamaindex")


def test_langchain_tool_objects_observed_directly_never_drift_against_recorded_calls(store):
    """``observe_tools`` with the tool objects (pydantic ``args_schema``) and the handler's
    recorded calls (OpenAI ``parameters``) render one tool differently: same interface, no drift."""
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from deltacore.adapters.langchain import DeltaCoreCallbackHandler

    ScriptedModel, deploy, _ = _langchain_parts()

    for episode in range(3):
        report = store.observe_tools([deploy])
        assert report.tools == ["deploy"] and not report.drifted and report.rejected == []
        call = AIMessage("", tool_calls=[{"name": "deploy", "args": {"service": "api", "env": "prod"}, "id": f"c{episode}", "type": "tool_call"}])
        model = ScriptedModel(messages=iter([call, AIMessage("Deployed.")]))
        run = uuid.uuid4()
        handler = DeltaCoreCallbackHandler(store, tools=[deploy])
        create_agent(model, [deploy]).invoke({"messages": [("user", TASK)]}, config={"callbacks": [handler], "run_id": run})
        store.record_outcome(str(run), 1.0)
    assert store.system_events("SCHEMA_DRIFT") == []
    assert len(store.tool_schemas("deploy")) == 2  # two renderings of one interface, both kept
    [decision] = store.recall_decisions(TASK)
    assert decision.schema_current is True and decision.flags == [] and decision.worked_count == 3


def test_langchain_middleware(store):
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from deltacore.adapters.langchain import DeltaCoreMiddleware

    ScriptedModel, deploy_v1, deploy_v2 = _langchain_parts()

    middleware = DeltaCoreMiddleware(store, name="ops")
    call = AIMessage("", tool_calls=[{"name": "deploy", "args": {"service": "api", "env": "prod"}, "id": "c1", "type": "tool_call"}])
    first = str(uuid.uuid4())
    agent = create_agent(ScriptedModel(messages=iter([call, AIMessage("Deployed.")])), [deploy_v1], middleware=[middleware])
    agent.invoke({"messages": [("user", TASK)]}, config={"run_id": first})
    [outcome] = store.events(kinds=["outcome"])
    store.record_outcome(outcome.episode_id, 1.0)
    assert store.system_events("SCHEMA_DRIFT") == []
    agent = create_agent(ScriptedModel(messages=iter([AIMessage("Nothing to do.")])), [deploy_v2], middleware=[middleware])
    agent.invoke({"messages": [("user", TASK)]}, config={"run_id": str(uuid.uuid4())})
    _assert_drift_caught_by_the_offer(store, "ops")
