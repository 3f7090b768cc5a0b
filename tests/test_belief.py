"""The belief layer end to end, on each backend: facts in time, the contradiction policy
scoped to the slot, as-of answers and beliefs that go stale."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore import AsyncDeltaCore
from deltacore.belief import ConflictResolution, FactStatus
from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.model import MemoryFlag

NOW = datetime.now(timezone.utc)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def say(memory, text, days, **fields):
    return memory.add(text, ts=days_ago(days), **fields)


def test_python_to_go_ranks_go_first_and_keeps_python_in_history(memory):
    python = say(memory, "The user prefers Python", 30, source="user:42")
    go = say(memory, "The user switched to Go", 1, source="user:42")

    packets = memory.query("what language does the user prefer?", top_k=5)
    assert packets[0].id == go
    old = next(p for p in packets if p.id == python)
    assert old.superseded and old.current_value == "Go"
    assert MemoryFlag.SUPERSEDED not in packets[0].flags and packets[0].belief_confidence == 1.0

    history = memory.history("user", "preferred language")
    assert [f.value for f in history] == ["Python", "Go"]
    assert history[0].status is FactStatus.SUPERSEDED and history[0].superseded_by == history[1].id
    assert history[0].valid_until == history[1].valid_from
    assert old.superseded_by == history[1].id
    assert [f.value for f in memory.facts("user")] == ["Go"]
    assert memory.conflicts() == []
    events = memory.system_events("TEMPORAL_CONTRADICTION")
    assert [e["payload"]["action"] for e in events] == ["superseded"]


def test_contradiction_that_cannot_supersede_opens_exactly_one_conflict(memory):
    say(memory, "The user prefers Python", 30)
    say(memory, "The user prefers Go", 1, confidence=0.7)  # not sure enough to supersede

    conflicts = memory.conflicts()
    assert len(conflicts) == 1
    conflict = conflicts[0]
    assert conflict.type == "TEMPORAL_CONTRADICTION" and conflict.resolution is ConflictResolution.PENDING
    assert (conflict.old_value, conflict.new_value) == ("Python", "Go")
    assert conflict.old_belief > conflict.new_belief and conflict.old_belief + conflict.new_belief == pytest.approx(1.0)
    assert {f.value for f in memory.facts("user", "language")} == {"Python", "Go"}
    assert all(f.status is FactStatus.CONTESTED for f in memory.facts("user"))
    assert len(memory.system_events("TEMPORAL_CONTRADICTION")) == 1


def test_mem0_4896_contradicting_facts_are_flagged_not_silently_both_current(memory):
    # Two writers disagree about the same slot; neither may replace the other.
    memory.ingest(
        [
            {"text": "Priya's employer is Initech", "kind": "fact", "ts": days_ago(3), "confidence": 0.75},
            {"text": "Priya's employer is Globex", "kind": "fact", "ts": days_ago(2), "confidence": 0.75},
        ]
    )
    packets = memory.query("who is Priya's employer?", top_k=2)
    assert len(packets) == 2
    for packet in packets:
        assert packet.conflicted
        assert set(packet.conflict) == {"Initech", "Globex"}
        assert sum(packet.conflict.values()) == pytest.approx(1.0)


def test_graphiti_1728_a_new_city_for_alice_retires_nothing_else(memory):
    say(memory, "Alice lives in Paris", 40)
    say(memory, "Alice works at Acme", 40)
    say(memory, "Alice's work city is Lyon", 40)
    say(memory, "Bob lives in Paris", 40)
    say(memory, "Anna lives in Paris", 40)
    say(memory, "Alice moved to Berlin", 1)

    current = {(f.subject, f.attribute): f.value for f in memory.facts()}
    assert current == {
        ("alice", "home city"): "Berlin",
        ("alice", "employer"): "Acme",
        ("alice", "work city"): "Lyon",
        ("bob", "home city"): "Paris",
        ("anna", "home city"): "Paris",
    }
    superseded = [f for f in memory.history("alice", "home city") if f.status is FactStatus.SUPERSEDED]
    assert [f.value for f in superseded] == ["Paris"]
    bob = memory.query("where does Bob live?", top_k=3)
    assert bob[0].text == "Bob lives in Paris" and not bob[0].flags


def test_out_of_order_arrival_becomes_history_not_current(memory):
    say(memory, "Alice lives in Berlin", 2)
    say(memory, "Alice lives in Paris", 90)  # arrives late, about an older period

    assert [f.value for f in memory.facts("Alice", "home city")] == ["Berlin"]
    history = memory.history("Alice", "home city")
    paris = next(f for f in history if f.value == "Paris")
    berlin = next(f for f in history if f.value == "Berlin")
    assert paris.status is FactStatus.HISTORY and paris.valid_until == berlin.valid_from
    assert [f.value for f in memory.facts("Alice", "home city", at=days_ago(30))] == ["Paris"]
    assert memory.conflicts() == []


def test_paraphrase_of_the_same_value_is_corroboration(memory):
    first = say(memory, "Alice lives in Berlin", 10, source="hr")
    second = say(memory, "Alice is based in Berlin.", 5, source="crm")

    facts = memory.facts("alice")
    assert len(facts) == 1
    assert facts[0].observations == 2 and set(facts[0].event_ids) == {first, second}
    assert memory.conflicts() == [] and memory.system_events("TEMPORAL_CONTRADICTION") == []


def _establish(memory, source: str, days: int = 12) -> None:
    # A source with standing: more than ten memories over more than three days.
    memory.ingest([{"text": f"note {i}: standup held", "ts": days_ago(days - i), "source": source} for i in range(11)])


def test_newcomer_contradiction_does_not_supersede(memory):
    _establish(memory, "hr")
    acme = say(memory, "Alice works at Acme", 1, source="hr")
    intruder = say(memory, "Alice works at Evil Corp", 0.5, source="stranger")

    assert [f.value for f in memory.facts("alice", "employer")] == ["Acme", "Evil Corp"]
    [conflict] = memory.conflicts()
    assert conflict.new_value == "Evil Corp" and conflict.new_belief < 0.2
    packets = memory.query("where does Alice work?", top_k=2)
    assert packets[0].id == acme and not packets[0].conflicted
    assert next(p for p in packets if p.id == intruder).conflicted
    assert memory.query_belief("alice").value("employer") == "Acme"


def test_unverified_document_never_supersedes_a_trusted_value(memory):
    say(memory, "Alice works at Acme", 2)
    memory.add("Alice works at Evil Corp", ts=days_ago(1), channel="document")

    assert memory.query_belief("alice").value("employer") == "Acme"
    assert len(memory.conflicts()) == 1


def test_observation_goes_stale_after_its_half_life(memory):
    memory.add('{"service": "api", "status": "up"}', kind="tool_result", tool_name="health", ts=days_ago(3 / 24))
    memory.add('{"service": "db", "status": "up"}', kind="tool_result", tool_name="health", ts=days_ago(1 / 1440))

    api = memory.query_belief("api").slots["status"]
    assert api.stale and api.confidence < 0.5 and "re-observe" in api.hint
    assert api.distribution["UNKNOWN"] > 0.5
    assert not memory.query_belief("db").slots["status"].stale

    packets = memory.query("is the api service status up?", top_k=5)
    api_packet = next(p for p in packets if '"api"' in p.text)
    assert api_packet.stale and "re-observe" in api_packet.belief_hint
    fresh = memory.query("is the api service status up?", top_k=5, exclude_stale=True)
    assert all('"api"' not in p.text for p in fresh) and fresh


def test_as_of_answers_as_it_stood_then(memory):
    paris = say(memory, "Alice lives in Paris", 100)
    berlin = say(memory, "Alice moved to Berlin", 10)

    then = memory.query("where does Alice live?", top_k=3, as_of=days_ago(50))
    assert then[0].id == paris and not then[0].superseded
    assert all(p.id != berlin or p.superseded for p in then)
    now = memory.query("where does Alice live?", top_k=3)
    assert now[0].id == berlin
    assert memory.query_belief("alice", at_time=days_ago(50)).value("home city") == "Paris"
    assert memory.query_belief("alice").value("home city") == "Berlin"


def test_explicit_fact_events_and_first_person(memory):
    result = memory.ingest(
        [
            {"text": "home city", "kind": "fact", "meta": {"subject": "Dana", "attribute": "home city", "value": "Oslo"}},
            {"text": "bad", "kind": "fact", "meta": {"attribute": "home city", "value": "Rome"}},
            {"text": "I've moved to Berlin", "role": "user", "actor": "Carol"},
        ]
    )
    assert [r.field for r in result.rejected] == ["meta"] and "meta.subject" in result.rejected[0].reason
    assert len(result.stored) == 2
    assert memory.query_belief("dana").value("home city") == "Oslo"
    assert memory.query_belief("carol").value("home city") == "Berlin"


def test_bad_times_are_named(memory):
    with pytest.raises(InvalidQueryError, match="^at:"):
        memory.facts("alice", at="last tuesday-ish")
    with pytest.raises(InvalidQueryError, match="at_time"):
        memory.query_belief("alice", at_time=object())
    with pytest.raises(InvalidQueryError, match="as_of"):
        memory.query("where?", as_of="not a date")


def test_resolve_conflict_by_hand(memory):
    say(memory, "The user prefers Python", 30)
    say(memory, "The user prefers Go", 1, confidence=0.7)
    [conflict] = memory.conflicts()
    with pytest.raises(InvalidQueryError, match="resolution"):
        memory.resolve_conflict(conflict.id, "Rust")
    with pytest.raises(NotFoundError):
        memory.resolve_conflict("nope", "new")

    resolved = memory.resolve_conflict(conflict.id, "new: the user confirmed it")
    assert resolved.resolution is ConflictResolution.HUMAN_RESOLVED and resolved.note == "the user confirmed it"
    assert [f.value for f in memory.facts("user")] == ["Go"]
    assert memory.conflicts() == [] and len(memory.conflicts(include_resolved=True)) == 1
    assert memory.query("what language does the user prefer?", top_k=1)[0].text == "The user prefers Go"


def test_conflict_auto_resolves_toward_later_independent_observations(memory):
    say(memory, "Alice works at Acme", 20)
    say(memory, "Alice works at Globex", 10, confidence=0.7)
    assert len(memory.conflicts()) == 1
    for i, source in enumerate(("a", "b", "c", "d", "e")):
        say(memory, "Alice works at Globex", 9 - i, source=f"colleague-{source}", actor=source)
    assert memory.conflicts() == []
    [resolved] = memory.conflicts(include_resolved=True)
    assert resolved.resolution is ConflictResolution.AUTO_RESOLVED
    assert [f.value for f in memory.facts("alice")] == ["Globex"]


def test_rerunning_the_update_is_harmless(memory):
    ids = [say(memory, "Alice lives in Paris", 20), say(memory, "Alice moved to Berlin", 2)]
    before = memory.history("alice", "home city")
    memory._beliefs.after_commit(ids)  # as after a crash between the write and the belief update
    assert memory.history("alice", "home city") == before
    assert len(memory.system_events("TEMPORAL_CONTRADICTION")) == 1


def test_async_twin(backend):
    import asyncio

    async def run() -> list[str]:
        memory = AsyncDeltaCore(backend.open())
        try:
            await memory.add("Alice lives in Paris")
            return [f.value for f in await memory.facts("alice")]
        finally:
            await memory.close()

    assert asyncio.run(run()) == ["Paris"]


def test_correction_rejects_the_denied_value_instead_of_ending_it(memory):
    say(memory, "Alice lives in Paris", 20)
    say(memory, "Correction: Alice lives in Berlin, not Paris", 1)

    history = {f.value: f for f in memory.history("alice", "home city")}
    paris, berlin = history["Paris"], history["Berlin"]
    assert paris.status is FactStatus.REJECTED and paris.superseded_by == berlin.id
    assert berlin.valid_from == paris.valid_from  # it was Berlin all along
    assert [f.value for f in memory.facts("alice", at=days_ago(10))] == ["Berlin"]


def test_a_correction_ends_a_value_that_independent_sources_confirmed_but_does_not_erase_its_past(memory):
    # Two statements without a named source are two supporters (as for auto-resolving conflicts).
    say(memory, "Alice lives in Paris", 90)
    say(memory, "Alice is based in Paris", 60)
    say(memory, "Correction: Alice lives in Berlin, not Paris", 5)

    history = {f.value: f for f in memory.history("alice", "home city")}
    paris, berlin = history["Paris"], history["Berlin"]
    assert paris.status is FactStatus.SUPERSEDED and paris.superseded_by == berlin.id
    assert berlin.valid_from > paris.valid_from  # Berlin from the correction on, Paris before it
    assert [f.value for f in memory.facts("alice", at=days_ago(30))] == ["Paris"]
    assert [f.value for f in memory.facts("alice")] == ["Berlin"]


def test_a_thing_s_named_status_goes_stale_a_person_s_standing_does_not(memory):
    # "build status" is an observation of the build, as "status" is; "marital status" is not
    memory.add("The build status of api is failing.", ts=days_ago(3 / 24))
    memory.add("Marta's marital status is married.", ts=days_ago(3 / 24))

    build = memory.query_belief("api").slots["build status"]
    assert build.stale and "re-observe" in build.hint
    marta = memory.query_belief("marta").slots
    assert marta and not any(s.stale for s in marta.values())


def test_a_writer_trusted_to_change_it_settles_an_open_conflict(memory):
    # Go was said too unsurely to supersede Python: a conflict. A confident, trusted, recent
    # writer saying Go afterwards settles it, as its statement alone would have superseded.
    say(memory, "The user prefers Python", 30)
    say(memory, "The user prefers Go", 2, confidence=0.7)
    assert len(memory.conflicts()) == 1
    confirmed = say(memory, "The user's preferred language is Go.", 1)
    assert [f.value for f in memory.facts("user", "preferred language")] == ["Go"]
    assert memory.conflicts() == []
    assert {f.value: f.status for f in memory.history("user", "preferred language")}["Python"] is FactStatus.SUPERSEDED
    assert memory.query("what language does the user prefer?", top_k=3)[0].id == confirmed
    actions = [e["payload"]["action"] for e in memory.system_events("TEMPORAL_CONTRADICTION")]
    assert actions == ["conflict", "auto_resolved"]


def test_a_trusted_restatement_of_the_old_value_settles_it_the_other_way(memory):
    say(memory, "The user prefers Python", 30)
    say(memory, "The user prefers Go", 2, confidence=0.7)
    say(memory, "The user's preferred language is Python.", 1)
    assert [f.value for f in memory.facts("user", "preferred language")] == ["Python"]
    assert {f.value: f.status for f in memory.history("user", "preferred language")}["Go"] is FactStatus.REJECTED
    assert memory.conflicts() == []
