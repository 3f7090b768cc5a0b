"""What a framework user sees of the belief layer: the current value first, the replaced one
flagged, through the adapters' shared translation and LangChain's retriever."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from datetime import datetime, timedelta, timezone  # noqa: E402

from deltacore.adapters._shared import memory_line, packet_metadata  # noqa: E402

NOW = datetime.now(timezone.utc)


def _python_then_go(memory) -> tuple[str, str]:
    python = memory.add("The user prefers Python", ts=NOW - timedelta(days=30))
    go = memory.add("The user switched to Go", ts=NOW - timedelta(days=1))
    return python, go


def test_prompt_lines_and_metadata_carry_the_supersede(memory):
    python, go = _python_then_go(memory)
    packets = memory.query("what language does the user prefer?", top_k=2)
    assert [p.id for p in packets] == [go, python]
    assert packet_metadata(packets[0])["flags"] == []
    assert packet_metadata(packets[1])["flags"] == ["superseded"]
    assert memory_line(packets[1]).endswith("[superseded]")


def test_langchain_retriever_documents_are_flagged(memory):
    from deltacore.adapters.langchain import DeltaCoreRetriever

    python, go = _python_then_go(memory)
    docs = DeltaCoreRetriever(store=memory, top_k=2).invoke("what language does the user prefer?")
    assert [d.id for d in docs] == [go, python]
    assert docs[1].metadata["flags"] == ["superseded"] and docs[0].metadata["flags"] == []


def test_metadata_carries_the_current_value_and_the_pointer_to_it(memory):
    python, go = _python_then_go(memory)
    current, replaced = memory.query("what language does the user prefer?", top_k=2)
    [python_fact, go_fact] = memory.history("user", "preferred language")
    old = packet_metadata(replaced)
    assert old["current_value"] == "Go" and old["superseded_by"] == go_fact.id and old["belief_confidence"] == 0.0
    new = packet_metadata(current)
    assert new["current_value"] is None and new["superseded_by"] is None and new["belief_confidence"] == 1.0
    assert new["conflict"] == {} and new["belief_hint"] is None
    unrelated = memory.add("the deploy finished at noon")
    [packet] = [p for p in memory.query("when did the deploy finish?", top_k=5) if p.id == unrelated]
    assert "current_value" not in packet_metadata(packet)  # states no fact the store tracks


def test_metadata_carries_a_conflict_and_a_look_alike(memory):
    memory.add("Ana's employer is Initech", ts=NOW - timedelta(days=3), confidence=0.75)
    memory.add("Ana's employer is Globex", ts=NOW - timedelta(days=2), confidence=0.75)
    memory.add("Anna's employer is Acme", ts=NOW - timedelta(days=2))
    packets = memory.query("who is Ana's employer?", top_k=3)
    meta = packet_metadata(next(p for p in packets if p.text.endswith("Globex")))
    assert set(meta["conflict"]) == {"Initech", "Globex"} and "contradicted" in meta["flags"]
    assert "ambiguous" in meta["flags"] and "'anna'" in meta["belief_hint"]


def test_langchain_document_metadata_has_the_belief_fields(memory):
    from deltacore.adapters.langchain import DeltaCoreRetriever
    from deltacore.adapters.langchain._messages import memory_block

    _python_then_go(memory)
    docs = DeltaCoreRetriever(store=memory, top_k=2).invoke("what language does the user prefer?")
    assert docs[1].metadata["current_value"] == "Go" and docs[0].metadata["belief_confidence"] == 1.0
    block = memory_block(memory.query("what language does the user prefer?", top_k=2))
    assert "The user prefers Python (flags: superseded)" in block  # what the middleware injects


def test_autogen_memory_content_metadata_has_the_belief_fields(memory):
    import asyncio

    from deltacore.adapters.autogen import DeltaCoreMemory

    python, go = _python_then_go(memory)
    result = asyncio.run(DeltaCoreMemory(memory, top_k=2).query("what language does the user prefer?"))
    first, second = (content.metadata for content in result.results)
    assert (first["id"], second["id"]) == (go, python)
    assert second["flags"] == ["superseded"] and second["current_value"] == "Go" and first["flags"] == []


def test_llamaindex_node_metadata_has_the_belief_fields(memory):
    from llama_index.core.schema import QueryBundle

    from deltacore.adapters.llamaindex import DeltaCoreRetriever

    python, go = _python_then_go(memory)
    nodes = DeltaCoreRetriever(memory, top_k=2, record_retrievals=False).retrieve(QueryBundle("what language does the user prefer?"))
    assert [n.node.id_ for n in nodes] == [go, python]
    assert nodes[1].node.metadata["flags"] == ["superseded"] and nodes[1].node.metadata["current_value"] == "Go"
    assert "current_value: Go" in nodes[1].node.get_content(metadata_mode="llm")  # the model reads it too


def test_crewai_search_records_carry_the_flags(memory):
    from deltacore.adapters.crewai import DeltaCoreStorage

    python, go = _python_then_go(memory)
    storage = DeltaCoreStorage(memory)
    [vector] = storage.embedder(["what language does the user prefer?"])
    hits = storage.search(vector, limit=2)
    assert [record.metadata["deltacore"]["id"] for record, _ in hits] == [go, python]
    assert [record.metadata["deltacore"]["flags"] for record, _ in hits] == [[], ["superseded"]]


def test_crewai_search_records_carry_the_belief_fields(memory):
    from deltacore.adapters.crewai import DeltaCoreStorage

    python, go = _python_then_go(memory)
    storage = DeltaCoreStorage(memory)
    [vector] = storage.embedder(["what language does the user prefer?"])
    current, replaced = (record.metadata["deltacore"] for record, _ in storage.search(vector, limit=2))
    assert replaced["current_value"] == "Go" and replaced["belief_confidence"] == 0.0
    assert replaced["superseded_by"] == memory.history("user", "preferred language")[-1].id
    assert current["belief_confidence"] == 1.0 and current["current_value"] is None


def test_langgraph_store_search_returns_current_values_unless_asked(memory):
    from deltacore.adapters.langchain import DeltaCoreLangGraphStore

    store = DeltaCoreLangGraphStore(memory)
    store.put(("memories", "user"), "language", {"text": "The user prefers Python"})
    store.put(("memories", "user"), "switch", {"text": "The user switched to Go"})
    found = store.search(("memories", "user"), query="what language does the user prefer?")
    assert [item.key for item in found] == ["switch"]  # the replaced value is left out
    everything = DeltaCoreLangGraphStore(memory, include_superseded=True).search(
        ("memories", "user"), query="what language does the user prefer?"
    )
    assert [item.key for item in everything] == ["switch", "language"]
    assert [item.key for item in store.search(("memories", "user"))] == ["switch"]  # newest first, current only


def test_langchain_documents_carry_the_hint_of_a_newer_unread_memory(memory):
    from deltacore.adapters.langchain import DeltaCoreRetriever

    stored = memory.add("Dana's manager is Priya.", ts=NOW - timedelta(days=40))
    update = memory.add("Dana: manager changeover done, Omar from today", ts=NOW - timedelta(days=2))
    docs = DeltaCoreRetriever(store=memory, top_k=2).invoke("Who is Dana's manager now?")
    assert [d.id for d in docs] == [update, stored]
    assert update in docs[1].metadata["belief_hint"] and docs[1].metadata["flags"] == []
