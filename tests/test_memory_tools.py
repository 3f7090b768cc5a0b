"""Memory tools the agent calls itself (manage_memory / search_memory), in each framework, driven
by that framework's own scripted model through a real agent."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, ClassVar

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

import pytest

from deltacore import DeltaCore
from deltacore.adapters._memory_tools import MemoryToolbox
from deltacore.model import Scope


@pytest.fixture
def store(backend) -> Any:
    memory = backend.open()
    yield memory
    memory.close()


def _only_memory(store: DeltaCore, user_id: str = "alice") -> list[str]:
    return [p.text for p in store.query("what does alice drink?", user_id=user_id, kinds=["fact"], top_k=5)]


# ---- the shared toolbox ------------------------------------------------------------------------


def test_toolbox_answers_the_models_mistakes_in_words(store) -> None:
    box = MemoryToolbox(store, Scope(user_id="alice"), "test")
    assert box.manage(action="create") == "error: create needs the memory's content"
    assert box.manage("x", action="update").startswith("error: update needs the id")
    assert box.manage("x", action="merge").startswith("error: action must be one of")
    assert box.manage("x", action="update", id="nope") == "error: no memory with id 'nope'"
    bob = MemoryToolbox(store, Scope(user_id="bob"), "test")
    created = bob.manage("bob drinks coffee").split()[-1]
    # Alice's agent cannot see, change or delete Bob's memory.
    assert box.manage("alice drinks it now", action="update", id=created) == f"error: no memory with id {created!r}"
    assert box.manage(action="delete", id=created) == f"error: no memory with id {created!r}"
    assert json.loads(box.search("coffee")) == []
    assert [m["id"] for m in json.loads(bob.search("coffee"))] == [created]
    read_only = MemoryToolbox(store, Scope(), "test", actions=("create",))
    assert read_only.manage(action="delete", id=created).startswith("error: action must be one of create")


# ---- LangChain ---------------------------------------------------------------------------------


def test_langchain_agent_saves_updates_and_searches(store) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from deltacore.adapters.langchain import memory_tools

    class ScriptedModel(GenericFakeChatModel):
        seen: ClassVar[list[Any]] = []

        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

        def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            ScriptedModel.seen.append(messages)
            return super()._generate(messages, *args, **kwargs)

    def call(name: str, args: dict[str, Any], n: int) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{n}", "type": "tool_call"}])

    tools = memory_tools(store, user_id="alice")
    assert [t.name for t in tools] == ["manage_memory", "search_memory", "recall_plans"]
    model = ScriptedModel(messages=iter([call("manage_memory", {"content": "alice drinks green tea"}, 1), AIMessage("saved")]))
    create_agent(model, tools).invoke({"messages": [{"role": "user", "content": "I drink green tea"}]})
    assert _only_memory(store) == ["alice drinks green tea"]
    memory_id = store.query("green tea", user_id="alice", top_k=1)[0].id

    script = [
        call("search_memory", {"query": "what does alice drink?"}, 2),
        call("manage_memory", {"content": "alice drinks oolong", "action": "update", "id": memory_id}, 3),
        AIMessage("updated"),
    ]
    ScriptedModel.seen.clear()
    result = asyncio.run(
        create_agent(ScriptedModel(messages=iter(script)), tools).ainvoke({"messages": [{"role": "user", "content": "now oolong"}]})
    )
    found = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert json.loads(found[0].content)[0]["id"] == memory_id  # the model read the id it then updated
    assert found[1].content.startswith(f"updated memory {memory_id}")
    assert _only_memory(store) == ["alice drinks oolong"]
    assert [v.event.text for v in store.versions(memory_id)] == ["alice drinks green tea", "alice drinks oolong"]
    assert store.get(memory_id).source == "langchain:manage_memory"


# ---- AutoGen -------------------------------------------------------------------------------------


def test_autogen_agent_saves_and_searches(store) -> None:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import ToolCallExecutionEvent
    from autogen_core import FunctionCall
    from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage
    from autogen_ext.models.replay import ReplayChatCompletionClient

    from deltacore.adapters.autogen import memory_tools

    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    def calls(name: str, arguments: dict[str, Any], n: int) -> CreateResult:
        content = [FunctionCall(id=f"c{n}", name=name, arguments=json.dumps(arguments))]
        return CreateResult(finish_reason="function_calls", content=content, usage=usage, cached=False)

    client = ReplayChatCompletionClient(
        [calls("manage_memory", {"content": "alice drinks green tea"}, 1), calls("search_memory", {"query": "alice drink"}, 2), "done"],
        model_info=ModelInfo(vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN, structured_output=False),
    )
    agent = AssistantAgent("helper", model_client=client, tools=memory_tools(store, user_id="alice"), max_tool_iterations=3)
    result = asyncio.run(agent.run(task="remember that I drink green tea, then check"))
    executions = [m for m in result.messages if isinstance(m, ToolCallExecutionEvent)]
    assert executions[0].content[0].content.startswith("created memory ")
    found = json.loads(executions[1].content[0].content)
    assert [m["content"] for m in found] == ["alice drinks green tea"]
    assert _only_memory(store) == ["alice drinks green tea"]
    assert store.get(found[0]["id"]).source == "autogen:manage_memory"


# ---- CrewAI ----------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_crewai_agent_updates_a_memory(store, monkeypatch) -> None:
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from pydantic import PrivateAttr

    from deltacore.adapters.crewai import memory_tools

    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    memory_id = store.add("alice drinks green tea", kind="fact", user_id="alice", channel="user")

    class ScriptedLLM(BaseLLM):
        _script: list[Any] = PrivateAttr(default_factory=list)

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

    update = {"content": "alice drinks oolong", "action": "update", "id": memory_id}
    llm = ScriptedLLM([[{"id": "c1", "type": "function", "function": {"name": "manage_memory", "arguments": json.dumps(update)}}], "Updated."])
    agent = Agent(role="Assistant", goal="Keep memories", backstory="Careful.", llm=llm,
                  tools=memory_tools(store, user_id="alice"), max_iter=3, verbose=False)  # fmt: skip
    task = Task(description="Alice now drinks oolong.", expected_output="Done.", agent=agent)
    assert Crew(agents=[agent], tasks=[task], verbose=False).kickoff().raw == "Updated."
    assert _only_memory(store) == ["alice drinks oolong"]
    assert [v.event.text for v in store.versions(memory_id)] == ["alice drinks green tea", "alice drinks oolong"]


# ---- LlamaIndex --------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_llamaindex_agent_saves_searches_and_deletes(store) -> None:
    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM

    from deltacore.adapters.llamaindex import memory_tools

    def tool_call(call_id: str, name: str, **kwargs: Any) -> ChatMessage:
        return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)])

    replies = [tool_call("c1", "manage_memory", content="alice drinks green tea"), ChatMessage(role="assistant", content="saved")]

    def script(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        return replies.pop(0) if len(replies) > 1 else replies[0]

    def run(task: str) -> list[Any]:
        agent = FunctionAgent(name="helper", description="remembers", tools=memory_tools(store, user_id="alice"),
                              llm=MockFunctionCallingLLM(response_generator=script), streaming=False)  # fmt: skip

        async def go() -> list[Any]:
            handler = agent.run(user_msg=task)
            seen = [event async for event in handler.stream_events() if isinstance(event, ToolCallResult)]
            await handler
            return seen

        return asyncio.run(go())

    [created] = run("remember my tea")
    memory_id = created.tool_output.content.split()[-1]
    assert _only_memory(store) == ["alice drinks green tea"]
    replies[:] = [tool_call("c2", "search_memory", query="alice tea"), tool_call("c3", "manage_memory", action="delete", id=memory_id),
                  ChatMessage(role="assistant", content="forgotten")]  # fmt: skip
    searched, deleted = run("forget my tea")
    assert json.loads(searched.tool_output.content)[0]["id"] == memory_id
    assert deleted.tool_output.content == f"deleted memory {memory_id}"
    assert _only_memory(store) == []
