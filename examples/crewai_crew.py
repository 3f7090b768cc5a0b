"""DeltaCore in a real CrewAI crew, offline: no API key, no network.

A scripted ``BaseLLM`` drives an Agent through native tool calls. DeltaCore records each
kickoff as an episode (listener + tool hooks), and serves as the crew's memory: the second
kickoff gets the first one's tool use back in the model's context.

    python examples/crewai_crew.py
"""

from __future__ import annotations

import os

# Before importing crewai: no telemetry export, no tracing prompt, no hub downloads.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json
import re
import tempfile
from typing import Any

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool
from pydantic import PrivateAttr

from deltacore import DeltaCore
from deltacore.adapters.crewai import DeltaCoreListener, DeltaCoreMemory
from deltacore.testing import FakeEmbedder


class ScriptedLLM(BaseLLM):
    """Plays back replies; a reply may be a function of the messages it receives.

    ``supports_function_calling`` selects CrewAI's native tool path: a reply that is a list of
    OpenAI-style tool-call dicts is a tool call, a string is the final answer.
    """

    _script: list[Any] = PrivateAttr(default_factory=list)
    _calls: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)

    def __init__(self, script: list[Any], **fields: Any) -> None:
        fields.setdefault("model", "scripted-offline")  # BaseLLM requires a model name
        super().__init__(**fields)
        self._script = list(script)

    @property
    def received(self) -> list[list[dict[str, Any]]]:
        """The messages of every call, in order."""
        return self._calls

    def supports_function_calling(self) -> bool:
        return True

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        # A copy: CrewAI keeps appending to the list it passed.
        messages = [{"role": "user", "content": messages}] if isinstance(messages, str) else [dict(m) for m in messages]
        self._calls.append(messages)
        reply = self._script[min(len(self._calls), len(self._script)) - 1]
        return reply(messages) if callable(reply) else reply

    def get_context_window_size(self) -> int:
        return 100_000


def tool_call(name: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]


PORTS = {"billing": 8443, "search": 9200}


@tool("get_service_port")
def get_service_port(service: str) -> str:
    """Look up which port a service listens on."""
    return f"{service} listens on port {PORTS[service]}"


def answer_from_memory(messages: list[dict[str, Any]]) -> str:
    """The second run's model: it answers from what memory put into its context."""
    context = " ".join(str(message.get("content", "")) for message in messages)
    found = re.search(r"billing listens on port (\d+)", context)
    return f"billing listens on port {found.group(1)} (from memory)" if found else "I don't know."


def crew_for(llm: ScriptedLLM, description: str, memory: DeltaCoreMemory) -> Crew:
    agent = Agent(role="Operator", goal="Answer questions about services", backstory="Knows the fleet.",
                  llm=llm, tools=[get_service_port], max_iter=4, verbose=False)
    task = Task(description=description, expected_output="The port.", agent=agent)
    return Crew(name="ops crew", agents=[agent], tasks=[task], memory=memory, verbose=False)


def show(title: str, rows: list[str]) -> None:
    print(f"\n{title}")
    for row in rows:
        print("  " + row)


def main() -> None:
    # FakeEmbedder keeps the example fast and offline; drop it to use the default local model.
    with tempfile.TemporaryDirectory() as folder, DeltaCore.open(folder, embedder=FakeEmbedder()) as store:
        memory = DeltaCoreMemory(store)
        with DeltaCoreListener(store) as recorder:
            first_llm = ScriptedLLM([tool_call("get_service_port", service="billing"), "billing uses port 8443."])
            first = crew_for(first_llm, "Find the port of the billing service.", memory).kickoff()
            recorder.flush()  # CrewAI runs handlers asynchronously
            memory.drain_writes()  # and saves memories in a background thread

            episode = store.query(kinds=["outcome"], top_k=1)[0].episode_id
            stored = store.events(episode_id=episode)
            show(f"first kickoff ({first.raw!r}) stored as episode {episode}:", [
                f"{event.kind.value:<11} {event.tool_name or '':<17} {event.text[:70]!r}" for event in stored
            ])
            call = next(event for event in stored if event.kind.value == "tool_call")
            show("the tool call, as recorded:", [
                f"tool_args={call.tool_args} schema_hash={call.tool_schema_hash}",
                f"causal parent: {call.parent_ids} (the task's input)",
                f"schema versions kept: {len(store.tool_schemas('get_service_port'))}",
            ])

            second_llm = ScriptedLLM([answer_from_memory])
            second = crew_for(second_llm, "Which port does the billing service listen on?", memory).kickoff()
            recorder.flush()

        prompt = "\n".join(str(message["content"]) for message in second_llm.received[0])
        memory_block = prompt[prompt.index("Relevant memories:"):] if "Relevant memories:" in prompt else ""
        show("what the second run's model received as memory:", memory_block.splitlines()[:12])
        second_episode = store.query(kinds=["outcome"], top_k=1)[0].episode_id
        show("retrievals logged for the second episode:", [
            f"rank {row['rank']}: {row['event_id']}" for row in store.retrievals(second_episode)
        ])
        print(f"\nsecond kickoff answered: {second.raw!r}")

        assert "billing listens on port 8443" in memory_block, "the earlier tool result was not in the context"
        assert second.raw.startswith("billing listens on port 8443")
        assert store.retrievals(second_episode)
        print("crewai example OK")


if __name__ == "__main__":
    main()
