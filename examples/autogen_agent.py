"""DeltaCore as an AutoGen agent's memory: record a run's tool use, get it back in the next run.

Runs offline: the model is AutoGen's own ReplayChatCompletionClient (scripted replies, one of them
a tool call), and the store uses the FakeEmbedder to stay fast (drop `embedder=` to use the
local MiniLM model).

    pip install 'deltacore[autogen]'
    HF_HUB_OFFLINE=1 python examples/autogen_agent.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_agentchat.messages import MemoryQueryEvent, ToolCallExecutionEvent, ToolCallRequestEvent  # noqa: E402
from autogen_core import FunctionCall  # noqa: E402
from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage, SystemMessage  # noqa: E402
from autogen_core.tools import FunctionTool  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters.autogen import (  # noqa: E402
    DeltaCoreMemory,
    DeltaCoreWorkbench,
    is_memory_message,
    record_run,
    record_run_stream,
)
from deltacore.testing import FakeEmbedder  # noqa: E402

MODEL_INFO = ModelInfo(
    vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN, structured_output=False
)


async def get_weather(city: str) -> str:
    """Get today's weather for a city."""
    return f"Heavy rain and 12°C in {city} today."


def scripted_model(*replies: str | list[FunctionCall]) -> ReplayChatCompletionClient:
    """AutoGen's offline model: each reply is a text answer or a list of tool calls."""
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    return ReplayChatCompletionClient(
        [
            reply
            if isinstance(reply, str)
            else CreateResult(finish_reason="function_calls", content=reply, usage=usage, cached=False)
            for reply in replies
        ],
        model_info=MODEL_INFO,
    )


def make_agent(memory: DeltaCoreMemory, client: ReplayChatCompletionClient) -> AssistantAgent:
    workbench = DeltaCoreWorkbench(memory, [FunctionTool(get_weather, description="Get today's weather for a city.")])
    return AssistantAgent(
        "weather_agent", model_client=client, workbench=workbench, memory=[memory], reflect_on_tool_use=True
    )


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder, DeltaCore.open(folder, embedder=FakeEmbedder()) as store:
        memory = DeltaCoreMemory(store, user_id="alice", agent_id="weather_agent")

        print("=== run 1: the agent calls a tool ===")
        client = scripted_model(
            [FunctionCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')],
            "It is raining in Paris today (12°C).",
        )
        async for item in record_run_stream(memory, make_agent(memory, client), "What's the weather in Paris?"):
            if isinstance(item, ToolCallRequestEvent):
                print("  tool call:  ", [(c.name, c.arguments) for c in item.content])
            elif isinstance(item, ToolCallExecutionEvent):
                print("  tool result:", [r.content for r in item.content])
        episode = store.query("weather in Paris", top_k=10, user_id="alice")[0].episode_id
        print("stored episode", episode)
        for event in store.events(episode_id=episode, user_id="alice"):
            print(f"  {event.kind.value:<12} {event.text}")
        print("tool schema versions:", store.tool_schemas("get_weather"))

        print("=== run 2: a fresh agent, same memory ===")
        client = scripted_model("Yes, take an umbrella: it is raining in Paris today.")
        agent = make_agent(memory, client)
        result = await record_run(memory, agent, "Should I take an umbrella when I walk around Paris?")
        seen = [m.content for m in client.create_calls[0]["messages"] if isinstance(m, SystemMessage) and is_memory_message(m)]
        print("memory the model saw:\n" + seen[0])
        recalled = [e for e in result.messages if isinstance(e, MemoryQueryEvent)]
        print("retrieved ids:", [c.metadata["id"] for c in recalled[0].content])
        print("answer:", result.messages[-1].to_text())
        assert "Heavy rain" in seen[0], "the earlier tool result should be in the model's context"
        print("retrievals logged for run 2:", len(store.retrievals(result.messages[0].id)))
    print("autogen example OK")


if __name__ == "__main__":
    asyncio.run(main())
