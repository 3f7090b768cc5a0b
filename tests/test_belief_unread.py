"""A newer memory the rules cannot read, that names the subject and the slot, leads above the
stored value for a question about the slot now, and the stored value's packet says so; chatter,
hedges, old values, other slots and untrusted writers do not. The stored fact is never changed
by it. End to end on each backend (real stores), and the check on its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from deltacore.belief.unread import Candidate, newer_unread
from deltacore.model import MemoryFlag

NOW = datetime.now(UTC)
QUESTION = "Who is Dana's manager now?"


def say(memory, text, days, source="user:ops"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def read_facts(memory, event_id):
    return [f for f in memory.history("Dana", "manager") if event_id in f.event_ids]


def test_a_newer_unread_change_leads_and_the_stored_value_says_it_may_be_out_of_date(memory):
    stored = say(memory, "Dana's manager is Priya.", 40)
    update = say(memory, "Dana: manager changeover done, Omar from today", 2)
    assert read_facts(memory, update) == []  # the rules cannot read it: no fact, nothing superseded

    packets = memory.query(QUESTION, top_k=3)
    assert [p.id for p in packets[:2]] == [update, stored]
    assert update in packets[1].belief_hint and not packets[1].superseded
    assert "not read as a fact" in packets[0].belief_hint and "'Priya'" in packets[0].belief_hint
    assert not packets[0].flags & {MemoryFlag.STALE, MemoryFlag.SUPERSEDED}  # a manager does not go stale
    assert [f.value for f in memory.facts("Dana", "manager")] == ["Priya"]


def test_an_unread_observation_leads_stale_when_it_is_old_and_exclude_stale_keeps_it_out(memory):
    say(memory, "billing-api is down.", 30)
    note = say(memory, "On-call note, billing-api status board shows Degraded for the whole morning", 10)
    question = "What is the status of billing-api now?"
    top = memory.query(question, top_k=3)[0]
    assert top.id == note and MemoryFlag.STALE in top.flags and "re-observe" in top.belief_hint
    assert note not in [p.id for p in memory.query(question, top_k=3, exclude_stale=True)]


def test_chatter_naming_the_subject_and_the_slot_word_without_a_new_name_does_not_lead(memory):
    stored = say(memory, "Dana's manager is Priya.", 40)
    say(memory, "lol Dana spilled coffee on the manager's desk", 2)
    top = memory.query(QUESTION, top_k=3)[0]
    assert top.id == stored and top.belief_hint is None


def test_hedges_negations_and_old_values_do_not_lead(memory):
    say(memory, "Dana's manager is Farah.", 80)
    say(memory, "Dana's manager is Priya.", 40, source="user:hr")
    say(memory, "Dana: manager might be Omar after the reorg", 3)
    say(memory, "Dana: manager is not Omar, whatever the chart says", 2)
    say(memory, "Dana: manager on the old org chart, Farah", 1)
    packets = memory.query(QUESTION, top_k=5)
    assert packets[0].text == "Dana's manager is Priya."
    assert packets[0].belief_hint is None


def test_an_update_older_than_the_asked_time_leads_but_not_before_it_was_written(memory):
    stored = say(memory, "Dana's manager is Priya.", 40)
    update = say(memory, "Dana: manager changeover done, Omar from today", 10)
    assert memory.query(QUESTION, top_k=3)[0].id == update
    assert memory.query(QUESTION, top_k=3, as_of=NOW - timedelta(days=20))[0].id == stored


def test_the_check_can_be_turned_off(backend):
    memory = backend.open(belief={"unread_evidence_window": 0})
    try:
        stored = say(memory, "Dana's manager is Priya.", 40)
        say(memory, "Dana: manager changeover done, Omar from today", 2)
        assert memory.query(QUESTION, top_k=3)[0].id == stored
    finally:
        memory.close()


FACT = {"subject": "dana", "subject_name": "Dana", "attribute": "manager", "value": "Priya", "last_observed": 100.0}


def candidate(text, ts=200.0, actor="ops", trusted=True, event_id="e1"):
    return Candidate(event_id, text, ts, actor, trusted)


def found(*candidates, others=("home city",), held=("priya",)):
    hit = newer_unread(FACT, held, others, list(candidates))
    return hit.event_id if hit else None


def test_the_first_qualifying_memory_in_the_querys_order_is_found():
    assert found(candidate("Dana's manager as of Monday: Omar", event_id="a"), candidate("Dana, new manager Lena", event_id="b")) == "a"


def test_an_older_memory_or_an_untrusted_writer_is_no_evidence():
    assert found(candidate("Dana's manager as of Monday: Omar", ts=50.0)) is None
    assert found(candidate("Dana's manager as of Monday: Omar", trusted=False)) is None


def test_the_subject_speaking_of_themself_names_the_subject():
    assert found(candidate("my manager as of Monday: Omar", actor="Dana")) == "e1"
    assert found(candidate("my manager as of Monday: Omar", actor="Lena")) is None


def test_a_word_the_subjects_other_slots_share_does_not_name_the_slot():
    fact = {**FACT, "attribute": "fire warden", "value": "Anton", "subject": "ropewalk office", "subject_name": "Ropewalk office"}
    drill = candidate("The Ropewalk office fire drill moved to 9 March, ask Karen")
    warden = candidate("Ropewalk office: new warden Karen, say hi")
    assert newer_unread(fact, ["anton"], ["fire warden", "fire drill"], [drill]) is None
    assert newer_unread(fact, ["anton"], ["fire warden", "fire drill"], [drill, warden]) is warden


def test_a_date_or_number_value_wants_a_digit():
    fact = {**FACT, "attribute": "next inspection", "value": "13.2.2027"}
    assert newer_unread(fact, ["13.2.2027"], [], [candidate("Dana's next inspection got pushed back again")]) is None
    assert newer_unread(fact, ["13.2.2027"], [], [candidate("Dana's next inspection: 25.2.2027")]) is not None


def test_the_slots_head_said_with_another_qualifier_is_another_slot():
    fact = {**FACT, "attribute": "delivery address", "value": "Flat 2B, Cobbler's Row"}
    assert newer_unread(fact, [], [], [candidate("Dana: my billing address is Unit 5, Garnet Avenue")]) is None
    assert newer_unread(fact, [], [], [candidate("Dana: new delivery address is Unit 5, Garnet Avenue")]) is not None


def test_a_memory_before_the_value_took_effect_restates_what_held_then():
    fact = {**FACT, "valid_from": 300.0}
    assert found(candidate("Dana's manager as of Monday: Omar", ts=250.0)) == "e1"
    assert newer_unread(fact, ["priya"], [], [candidate("Dana's manager as of Monday: Omar", ts=250.0)]) is None


def test_a_held_value_said_as_the_old_side_of_a_change_is_news():
    fact = {**FACT, "attribute": "status", "value": "awaiting parts", "subject": "yard shunter", "subject_name": "yard shunter"}
    change = candidate("Status change - yard shunter: awaiting parts => in service")
    restated = candidate("Status change - yard shunter: in service => awaiting parts")
    assert newer_unread(fact, ["awaiting parts", "tagged out"], [], [change]) is change
    assert newer_unread(fact, ["awaiting parts", "tagged out"], [], [restated]) is None
