"""DeltaCore inside a LangChain 1.x agent: the run is remembered, the next run is reminded.

    pip install 'deltacore[langchain]'
    HF_HUB_OFFLINE=1 python examples/langchain_agent.py

A real ``create_agent`` agent (LangGraph underneath) with DeltaCore plugged in twice:

* ``DeltaCoreMiddleware`` records each run as an episode (the user's request, every tool call
  with its arguments and schema, each result, the outcome) and, with ``inject_memories=True``,
  hands the model the memories most relevant to the new request in its system message;
* ``DeltaCoreLangGraphStore`` is the agent's long-term store: a tool writes a note through
  ``runtime.store`` and the note becomes a memory like any other.

No API key and no network: the chat model is LangChain's own fake model, scripted, given
``bind_tools`` so the agent can offer it tools. The store uses DeltaCore's ``FakeEmbedder`` to stay
fast; drop ``embedder=`` to use the local MiniLM model.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import tempfile  # noqa: E402
import uuid  # noqa: E402
from typing import Any, ClassVar  # noqa: E402

from langchain.agents import create_agent  # noqa: E402
from langchain.tools import ToolRuntime  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters.langchain import DeltaCoreLangGraphStore, DeltaCoreMiddleware  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402


class ScriptedToolModel(GenericFakeChatModel):
    """LangChain's fake chat model, plus ``bind_tools`` (the core fakes lack it) and a log of
    the messages it was sent, so we can show what the model saw."""

    seen: ClassVar[list[list[BaseMessage]]] = []

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        ScriptedToolModel.seen.append(messages)
        return super()._generate(messages, *args, **kwargs)


@tool
def deploy(service: str, env: str) -> str:
    """Deploy a service to an environment."""
    return f"deployed {service} to {env}: version 1.4.2 is live"


@tool
def save_note(note: str, runtime: ToolRuntime) -> str:
    """Save a note about the user's systems for later."""
    runtime.store.put(("notes", "alice"), uuid.uuid4().hex, {"text": note})
    return "noted"


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


SCRIPT = [
    # run 1: deploy, take a note, answer
    AIMessage("", tool_calls=[call("deploy", {"service": "api", "env": "staging"}, "call_1")]),
    AIMessage("", tool_calls=[call("save_note", {"note": "alice's staging runs api 1.4.2"}, "call_2")]),
    AIMessage("Deployed api to staging (version 1.4.2)."),
    # run 2: answers from what it was reminded of
    AIMessage("Staging runs api 1.4.2: you deployed it in your last session."),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, DeltaCore.open(folder, embedder=FakeEmbedder()) as memory:
        # Items under ("notes", <user>) belong to that user, so they are among that user's memories.
        store = DeltaCoreLangGraphStore(memory, scope=lambda ns: {"user_id": ns[1]} if len(ns) > 1 else {})
        middleware = DeltaCoreMiddleware(memory, user_id="alice", name="ops-agent", inject_memories=True)
        agent = create_agent(
            ScriptedToolModel(messages=iter(SCRIPT)),
            [deploy, save_note],
            system_prompt="You are alice's ops assistant.",
            middleware=[middleware],
            store=store,
        )

        # The run id we pass becomes the root run id, which DeltaCore uses as the episode id.
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        answer = agent.invoke(
            {"messages": [{"role": "user", "content": "Deploy the api service to staging."}]},
            config={"run_id": first},
        )["messages"][-1].content
        print(f"run 1 answered: {answer}\n\nwhat DeltaCore stored for episode {first[:8]}…:")
        for event in memory.events(episode_id=first):
            after = f"  <- {memory.get(event.parent_ids[0]).kind.value}" if event.parent_ids else ""
            print(f"  {event.kind.value:<11} {event.text[:62]!r}{after}")
        schema = memory.tool_schemas("deploy")[0]
        print(f"deploy's schema (hash {schema['schema_hash'][:12]}…): {sorted(schema['schema']['properties'])}")
        notes = store.search(("notes", "alice"), query="staging version")
        print(f"store notes: {[item.value['text'] for item in notes]}")

        sent_before = len(ScriptedToolModel.seen)
        answer = agent.invoke(
            {"messages": [{"role": "user", "content": "Which version of api is on staging?"}]},
            config={"run_id": second},
        )["messages"][-1].content
        system = ScriptedToolModel.seen[sent_before][0]
        print(f"\nrun 2: the model's system message:\n{system.content}\n\nrun 2 answered: {answer}")
        retrieved = memory.retrievals(second)
        print(f"retrievals recorded for episode {second[:8]}…: {len(retrieved)}")

        assert "1.4.2" in system.content and "deploy" in system.content, "run 2 was not reminded of run 1"
        assert any(memory.get(r["event_id"]).episode_id == first for r in retrieved)
        print("langchain example OK")


if __name__ == "__main__":
    main()
