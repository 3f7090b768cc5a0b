"""DeltaCore as a LlamaIndex agent's memory: record a run's tool use, get it back in the next run.

Runs offline: the model is LlamaIndex's own MockFunctionCallingLLM (scripted replies, one of them
a tool call), and the store uses the FakeEmbedder to stay fast (drop `embedder=` to use the
local MiniLM model).

    pip install 'deltacore[llamaindex]'
    HF_HUB_OFFLINE=1 python examples/llamaindex_agent.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from llama_index.core.agent.workflow import FunctionAgent, ToolCall, ToolCallResult  # noqa: E402
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock  # noqa: E402
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters.llamaindex import MEMORY_HEADER, DeltaCoreMemoryBlock, instrument  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402


def get_weather(city: str) -> str:
    """Get today's weather for a city."""
    return f"Heavy rain and 12°C in {city} today."


def scripted_llm(*replies: ChatMessage, seen: list[list[ChatMessage]]) -> MockFunctionCallingLLM:
    """LlamaIndex's offline function-calling model: replays `replies`, keeps what it was shown."""
    queue = list(replies)

    def respond(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append(list(messages))
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return MockFunctionCallingLLM(response_generator=respond)


def make_agent(llm: MockFunctionCallingLLM) -> FunctionAgent:
    return FunctionAgent(
        name="weather_agent",
        description="Answers weather questions.",
        tools=[FunctionTool.from_defaults(get_weather)],
        llm=llm,  # never leave llm=None: Settings.llm is OpenAI, which needs the network
        system_prompt="You are a helpful assistant.",
        streaming=False,
    )


def memory_for(store: DeltaCore, session_id: str) -> Memory:
    block = DeltaCoreMemoryBlock(store=store, user_id="alice", agent_id="weather_agent")
    return Memory.from_defaults(session_id=session_id, memory_blocks=[block])


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder, DeltaCore.open(folder, embedder=FakeEmbedder()) as store:
        # Every run is recorded through LlamaIndex's instrumentation (one episode per run).
        with instrument(store, user_id="alice", agent_id="weather_agent") as recorder:
            print("=== run 1: the agent calls a tool ===")
            seen: list[list[ChatMessage]] = []
            llm = scripted_llm(
                ChatMessage(
                    role="assistant",
                    blocks=[ToolCallBlock(tool_call_id="call_1", tool_name="get_weather", tool_kwargs={"city": "Paris"})],
                ),
                ChatMessage(role="assistant", content="It is raining in Paris today (12°C)."),
                seen=seen,
            )
            handler = make_agent(llm).run(user_msg="What's the weather in Paris?", memory=memory_for(store, "monday"))
            async for event in handler.stream_events():
                if isinstance(event, ToolCallResult):
                    print("  tool result:", event.tool_output.content)
                elif isinstance(event, ToolCall):
                    print("  tool call:  ", event.tool_name, event.tool_kwargs)
            await handler
            print("stored episode", handler.run_id)
            for event in store.events(episode_id=handler.run_id):
                print(f"  {event.kind.value:<12} {event.text}")
            print("tool schema versions:", [v["schema"] for v in store.tool_schemas("get_weather")])

            print("=== run 2: a fresh agent and a new session, same store ===")
            seen.clear()
            llm = scripted_llm(ChatMessage(role="assistant", content="Yes, take an umbrella."), seen=seen)
            handler = make_agent(llm).run(
                user_msg="Should I take an umbrella when I walk around Paris?", memory=memory_for(store, "tuesday")
            )
            answer = await handler
            # Memory renders the block into a system message: <memory><deltacore>...</deltacore></memory>
            memory_text = next(m.content for m in seen[0] if m.role == MessageRole.SYSTEM and MEMORY_HEADER in m.content)
            print("memory the model saw:\n" + memory_text)
            print("answer:", answer)
            assert "Heavy rain" in memory_text, "the earlier tool result should be in the model's context"
            print("retrievals logged for run 2:", len(store.retrievals(handler.run_id)))
            assert not recorder.errors, recorder.errors
    print("llamaindex example OK")


if __name__ == "__main__":
    asyncio.run(main())
