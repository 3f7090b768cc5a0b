"""The write path: dedupe, causal parents, loops (E02), bad input in batches."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore import CircularCausalChain, Event, InvalidEventError
from deltacore.delta import break_cycles, find_cycle, walk_provenance

T0 = datetime(2026, 5, 1, tzinfo=timezone.utc)


def test_duplicates_are_stored_once_and_return_the_stored_id(memory):
    first = memory.ingest([{"text": "the VPN certificate expires on Friday", "session_id": "s1"}])
    again = memory.ingest([
        {"text": "the VPN certificate expires on Friday", "session_id": "s1"},  # resent history
        {"text": "the VPN certificate expires on Friday ", "session_id": "s1"},  # trailing space: same after normalising
        {"text": "the VPN certificate expires on Friday", "session_id": "s2"},  # other scope: kept
    ])
    assert again.event_ids[0] == again.event_ids[1] == first.stored[0]
    assert len(again.stored) == 1 and again.stored[0] == again.event_ids[2]
    assert memory.stats().events == 2
    assert len(memory.query("VPN certificate", session_id="s1")) == 1


def test_replaying_a_batch_with_explicit_ids_is_idempotent(memory):
    batch = [{"id": f"e{i}", "text": f"step {i} of the backup job"} for i in range(5)]
    memory.ingest(batch)
    replay = memory.ingest(batch)
    assert replay.stored == [] and replay.event_ids == [f"e{i}" for i in range(5)]
    stats = memory.stats()
    assert stats.events == stats.deltas == stats.vectors == 5


def test_duplicates_within_one_batch(memory):
    result = memory.ingest([{"id": "a", "text": "ping"}, {"id": "a", "text": "ping"}, {"text": "ping"}])
    assert result.stored == ["a"] and result.event_ids == ["a", "a", "a"]


def test_episode_steps_are_chained_in_time_order(memory):
    memory.ingest([
        {"id": "s3", "ts": T0 + timedelta(seconds=3), "text": "deploy succeeded", "episode_id": "ep"},
        {"id": "s1", "ts": T0 + timedelta(seconds=1), "text": "user asks for a deploy", "episode_id": "ep"},
        {"id": "s2", "ts": T0 + timedelta(seconds=2), "text": "migration ran", "episode_id": "ep"},
    ])
    memory.ingest([{"id": "s4", "ts": T0 + timedelta(seconds=4), "text": "user says thanks", "episode_id": "ep"}])
    chain = memory.query_causal("s4", depth=10)
    events_in_order = [chain.deltas[child].event_id for child, _ in chain.edges]
    assert events_in_order == ["s4", "s3", "s2"]
    assert {d.event_id for d in chain.deltas.values()} == {"s1", "s2", "s3", "s4"}
    first = memory.query_causal("s1", direction="descendants", depth=10)
    assert {d.event_id for d in first.deltas.values()} == {"s1", "s2", "s3", "s4"}
    limited = memory.query_causal("s4", depth=1)
    assert {d.event_id for d in limited.deltas.values()} == {"s4", "s3"}


def test_explicit_parents_and_triggers(memory):
    memory.ingest([
        {"id": "q", "text": "what is the disk usage on db-1?", "role": "user", "actor": "ops"},
        {"id": "call", "kind": "tool_call", "tool_name": "disk_usage", "tool_args": {"host": "db-1"}, "parent_ids": ["q"]},
        {"id": "res", "kind": "tool_result", "tool_name": "disk_usage", "text": "91% used", "parent_ids": ["call"]},
    ])
    chain = memory.query_causal("res")
    root = chain.deltas[chain.root]
    assert root.action == "disk_usage returned"
    assert root.trigger.startswith("call disk_usage") or "disk_usage" in root.trigger
    call = next(d for d in chain.deltas.values() if d.event_id == "call")
    assert call.trigger == "ops: what is the disk usage on db-1?"


def test_unknown_parent_is_reported_not_fatal(memory):
    result = memory.ingest([{"text": "retrying", "parent_ids": ["never-stored"]}])
    assert result.stored and any("never-stored" in w for w in result.warnings)


def test_cycle_in_a_batch_is_broken_and_logged(memory):
    result = memory.ingest([
        {"id": "a", "text": "controller raised the setpoint", "parent_ids": ["b"]},
        {"id": "b", "text": "temperature rose", "parent_ids": ["a"], "kind": "outcome", "meta": {"reward": 1.0}},
    ])
    assert result.ok and len(result.stored) == 2
    assert len(result.causal_loops) == 1 and any("E02" in w for w in result.warnings)
    # The weakest edge goes: "a" has neutral utility 0.5, "b" is an outcome with reward 1 → a's edge.
    chain_a = memory.query_causal("a")
    chain_b = memory.query_causal("b")
    assert chain_a.edges == []
    assert len(chain_b.edges) == 1
    logged = memory.system_events("CAUSAL_LOOP")
    assert logged and logged[0]["payload"]["code"] == "E02"


def test_walk_provenance_raises_e02_on_a_loop():
    parents = {"a": ["b"], "b": ["c"], "c": ["a"]}
    with pytest.raises(CircularCausalChain) as info:
        walk_provenance(parents, "a")
    assert info.value.code == "E02"
    assert set(info.value.cycle) == {"a", "b", "c"}
    assert walk_provenance({"c": ["b"], "b": ["a"]}, "c") == ["b", "a"]


def test_break_cycles_removes_the_lowest_utility_edge():
    parents = {"a": ["b"], "b": ["c"], "c": ["a"]}
    utility = {"a": 0.9, "b": 0.1, "c": 0.5}
    loops = break_cycles(parents, ["a"], utility.__getitem__)
    assert len(loops) == 1
    assert parents == {"a": ["b"], "b": [], "c": ["a"]}
    assert find_cycle(parents, "a") is None


def test_find_cycle_handles_deep_chains():
    parents = {str(i): [str(i + 1)] for i in range(20_000)}
    assert find_cycle(parents, "0") is None
    parents["19999"] = ["0"]
    assert find_cycle(parents, "0") is not None


# ---- bad input --------------------------------------------------------------------------------


BAD_EVENTS = [
    ({"text": ""}, "text"),
    ({"text": "x", "kind": "thought"}, "kind"),
    ({"text": "x", "confidence": 2}, "confidence"),
    ({"text": "x", "ts": "yesterday"}, "ts"),
    ({"text": "x", "colour": "blue"}, "colour"),
    ({"text": 42}, "text"),
    ({"kind": "tool_call", "text": "call it"}, "tool_name"),
    ({"text": "x", "tool_args": "not a dict"}, "tool_args"),
    ("just a string", "event"),
]


@pytest.mark.parametrize(("raw", "field"), BAD_EVENTS)
def test_bad_event_is_rejected_with_its_field(memory, raw, field):
    result = memory.ingest([{"text": "a good event before"}, raw, {"text": "a good event after"}])
    assert [r.index for r in result.rejected] == [1]
    assert result.rejected[0].field == field
    assert result.rejected[0].reason
    assert len(result.stored) == 2 and result.event_ids[1] is None
    assert memory.stats().events == 2


def test_text_over_the_size_limit(backend):
    with backend.open(max_text_chars=100) as memory:
        result = memory.ingest([{"text": "y" * 101}, {"text": "ok"}])
        assert result.rejected[0].field == "text" and "max_text_chars" in result.rejected[0].reason
        assert result.stored


def test_add_raises_for_a_bad_event(memory):
    with pytest.raises(InvalidEventError) as info:
        memory.add("", kind="message")
    assert info.value.field == "text"
    assert isinstance(info.value, ValueError)
    event_id = memory.add("a fine memory", actor="bot")
    assert memory.get(event_id).actor == "bot"


def test_event_objects_and_dicts_are_both_accepted(memory):
    result = memory.ingest([Event(text="object form"), {"text": "dict form"}])
    assert len(result.stored) == 2


def test_nul_characters_do_not_break_any_backend(memory):
    memory.ingest([{"text": "bad\x00byte in a log line"}])
    assert memory.query("byte log line")[0].text == "badbyte in a log line"


def test_tool_schemas_are_kept_per_version(memory):
    v1 = {"type": "object", "properties": {"api_key": {"type": "string"}}}
    v2 = {"type": "object", "properties": {"bearer_token": {"type": "string"}}}
    memory.ingest([
        {"kind": "tool_call", "tool_name": "fetch", "tool_args": {"api_key": "k"}, "tool_schema": v1},
        {"kind": "tool_call", "tool_name": "fetch", "tool_args": {"api_key": "k2"}, "tool_schema": v1},
        {"kind": "tool_call", "tool_name": "fetch", "tool_args": {"bearer_token": "t"}, "tool_schema": v2},
    ])
    schemas = memory.tool_schemas("fetch")
    assert [s["schema"] for s in schemas] == [v1, v2]
    stored = {p.tool_name: p for p in memory.query("fetch bearer_token", kinds=["tool_call"], top_k=1)}
    assert stored["fetch"].deltas[0].tool_schema_hash == schemas[1]["schema_hash"]


def test_retrievals_are_recorded_per_episode(memory):
    ids = memory.ingest([{"text": "the cron job runs at 2am"}, {"text": "backups go to bucket b7"}]).event_ids
    assert memory.record_retrieval([ids[1], ids[0], "unknown"], episode_id="ep9", query="when are backups?") == 2
    logged = memory.retrievals("ep9")
    assert [(r["event_id"], r["rank"]) for r in logged] == [(ids[1], 1), (ids[0], 2)]
    memory.delete([ids[1]])
    assert [r["event_id"] for r in memory.retrievals("ep9")] == [ids[0]]
