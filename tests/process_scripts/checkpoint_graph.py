"""A small LangGraph app persisted by DeltaCoreCheckpointSaver; run as a child process.

argv: JSON store settings, thread id, action ("start": run until the interrupt before
``approve``; "resume": continue that thread). Prints the graph's state as one JSON line.
"""

from __future__ import annotations

import json
import operator
import sys
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

from deltacore import DeltaCore
from deltacore.adapters.langchain import DeltaCoreCheckpointSaver
from deltacore.testing import FakeEmbedder


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def build(memory: DeltaCore):  # type: ignore[no-untyped-def]
    graph = StateGraph(State)
    graph.add_node("plan", lambda state: {"steps": ["plan"]})
    graph.add_node("approve", lambda state: {"steps": ["approve"]})
    graph.add_node("deploy", lambda state: {"steps": [f"deploy after {len(state['steps'])} steps"]})
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "approve")
    graph.add_edge("approve", "deploy")
    graph.add_edge("deploy", END)
    return graph.compile(checkpointer=DeltaCoreCheckpointSaver(memory, tenant="app"), interrupt_before=["approve"])


def main() -> None:
    settings, thread_id, action = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        app = build(memory)
        config = {"configurable": {"thread_id": thread_id}}
        app.invoke({"steps": []} if action == "start" else None, config)
        snapshot = app.get_state(config)
        print(json.dumps({"steps": snapshot.values["steps"], "next": list(snapshot.next)}))


if __name__ == "__main__":
    main()
