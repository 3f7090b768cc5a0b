"""Exception propagation through provenance: poison taints the whole downstream chain, a
contradiction marks only what was derived from the delta, drift only deltas of the same tool."""

from __future__ import annotations

import time

import pytest

from deltacore import InvalidQueryError, MemoryFlag, NotFoundError
from deltacore.delta.propagation import marked

GRAPH = {
    "a": [("b", "parent"), ("c", "sequence")],
    "b": [("d", "parent"), ("a", "parent")],  # a loop back to the origin must not hang the walk
    "c": [("e", "parent")],
}


def test_the_three_rules_on_a_graph():
    assert marked("poison", "a", GRAPH) == ["a", "b", "c", "d", "e"]
    assert marked("contradiction", "a", GRAPH) == ["a", "b", "d"]
    tools = {"a": "fetch", "b": "deploy", "c": "fetch", "d": "fetch", "e": None}
    assert marked("drift", "a", GRAPH, tool_of=tools) == ["a", "c", "d"]
    assert marked("poison", "d", GRAPH) == ["d"]  # nothing downstream of a leaf
    with pytest.raises(ValueError, match="exception must be one of"):
        marked("stale", "a", GRAPH)


def _chain(memory):
    """task → fetch call → fetch result → deploy call (declared causes) → summary (episode order
    only) → fetch call again (declared cause: the deploy)."""
    now = time.time()
    rows = [
        {"id": "task", "text": "ship the api build to production"},
        {"id": "fetch", "kind": "tool_call", "tool_name": "fetch", "tool_args": {"build": "api-42"}, "parent_ids": ["task"]},
        {"id": "fetched", "kind": "tool_result", "tool_name": "fetch", "text": "build api-42 ready", "parent_ids": ["fetch"]},
        {"id": "deploy", "kind": "tool_call", "tool_name": "deploy", "tool_args": {"build": "api-42"}, "parent_ids": ["fetched"]},
        {"id": "summary", "text": "the deploy of api-42 went out"},
        {"id": "refetch", "kind": "tool_call", "tool_name": "fetch", "tool_args": {"build": "api-43"}, "parent_ids": ["deploy"]},
    ]
    memory.ingest([{**row, "episode_id": "ship", "ts": now + i} for i, row in enumerate(rows)])


def _flags(memory, event_id):
    [delta] = [p for p in memory.query("api", top_k=50, exclude_tainted=False) if p.id == event_id][0].deltas
    return set(delta.conflict_flags), delta.utility


def test_poison_taints_the_whole_downstream_chain(memory):
    _chain(memory)
    report = memory.propagate("fetch", "poison", reason="the build server was compromised")
    assert report.flag == "tainted"
    downstream = ["fetch", "fetched", "deploy", "summary", "refetch"]
    assert len(report.marked) == len(downstream)
    for event_id in downstream:
        flags, utility = _flags(memory, event_id)
        assert "tainted" in flags and utility == 0.0, event_id
    assert "tainted" not in _flags(memory, "task")[0]  # upstream of the poison: untouched
    # Queries leave tainted memories out unless asked, and flag them when asked.
    assert {p.id for p in memory.query("api build", top_k=50)} == {"task"}
    shown = {p.id: p for p in memory.query("api build", top_k=50, exclude_tainted=False)}
    assert MemoryFlag.TAINTED in shown["deploy"].flags
    assert memory.system_events("POISON_PROPAGATED")[0]["payload"]["reason"] == "the build server was compromised"
    assert memory.recall_decisions("ship the api build to production") == []


def test_contradiction_marks_only_what_was_derived(memory):
    _chain(memory)
    report = memory.propagate("fetch", "contradiction")
    derived = {"fetch", "fetched", "deploy"}
    for event_id in derived:
        flags, utility = _flags(memory, event_id)
        assert "contradicted" in flags and utility > 0, event_id
    # The summary only came next in the episode; the refetch descends from it through the deploy,
    # a declared cause, so it is derived too.
    assert "contradicted" not in _flags(memory, "summary")[0]
    assert "contradicted" in _flags(memory, "refetch")[0]
    assert len(report.marked) == 4


def test_drift_marks_only_deltas_of_the_same_tool(memory):
    _chain(memory)
    report = memory.propagate("fetch", "drift")
    assert report.flag == "schema_drift"
    for event_id in ("fetch", "fetched", "refetch"):
        assert "schema_drift" in _flags(memory, event_id)[0], event_id
    for event_id in ("deploy", "summary", "task"):
        assert "schema_drift" not in _flags(memory, event_id)[0], event_id


def test_propagate_explains_bad_input(memory):
    _chain(memory)
    with pytest.raises(InvalidQueryError, match="exception"):
        memory.propagate("fetch", "stale")
    with pytest.raises(NotFoundError, match="no delta or event"):
        memory.propagate("nope", "poison")
