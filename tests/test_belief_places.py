"""Things named by a numbered place ("the infusion pump on Ward 7B"), people put in one ("Ashling
is on Ward 12"), changes said with both values, config-style records, and day-first dates with
dashes: what the extractor reads of them, and what a question then gets back, end to end on each
backend (real stores). Also: a text stored many times comes back once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from deltacore.belief import RuleFactExtractor
from deltacore.belief.lexicon import canonical_subject, clean, normalise_attribute
from deltacore.belief.questions import question_slot, subject_keys

TS = datetime(2026, 6, 1, tzinfo=UTC)
EXTRACTOR = RuleFactExtractor()
NOW = datetime.now(UTC)


def claims(text: str, actor: str = "Kim"):
    event = SimpleNamespace(text=text, kind="message", actor=actor, user_id=None, meta={}, confidence=1.0, ts=TS)
    return [(c.subject, c.attribute, c.value) for c in EXTRACTOR.claims(event)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A person put in a numbered place: the kind of place names the slot.
        ("Ashling is on Ward 12 (Gastro).", ("ashling", "ward", "Ward 12 (Gastro)")),
        ("Effective 17-05-2026, Rohit is placed on Ward 17.", ("rohit", "ward", "Ward 17")),
        ("Kim is posted to Gate B4.", ("kim", "gate", "Gate B4")),
        ("Ashling is on Ward 9 (Respiratory) now, not Ward 12 (Gastro) - can someone update the whiteboard?",
         ("ashling", "ward", "Ward 9 (Respiratory)")),
        # A thing in a numbered place is one subject, however it is named.
        ("The infusion pump on Ward 7B is faulty.", ("infusion pump ward 7b", "status", "faulty")),
        ("Update on the infusion pump on Ward 7B: it's working now.", ("infusion pump ward 7b", "status", "working")),
        ("The ECG machine on Ward 7A was upgraded to 2025.11 (previously 2025.8).", ("ecg machine ward 7a", "upgraded", "2025.11")),
        # A change said with both values.
        ("Femke's bleep changed from 2319 to 2268.", ("femke", "bleep", "2268")),
        ("My bleep has changed from 2319 to 2268.", ("kim", "bleep", "2268")),
        ("Rohan has a new bleep: 2344 (the old 2240 has been handed back).", ("rohan", "bleep", "2344")),
        # Day-first dates with dashes date the statement instead of hiding it.
        ("As of 20-01-2026, Rohit's clinical supervisor is Dr Hayes.", ("rohit", "clinical supervisor", "Dr Hayes")),
        # Config-style records, and a value's own closing bracket.
        ("[rota]\nname = Aisling\npattern = nights (20:00-08:30)", ("aisling", "pattern", "nights (20:00-08:30)")),
        ("Name: Aisling\nPattern: nights (20:00-08:30)", ("aisling", "pattern", "nights (20:00-08:30)")),
    ],
)
def test_phrasings_that_state_a_fact(text, expected):
    assert expected in claims(text)


@pytest.mark.parametrize(
    "text",
    [
        "Noor is on Team Atlas.",  # a team with a name, not a numbered place of a kind
        "As of 12-07-2026, the infusion pump on Ward 7B is next due for service on 15-05-2027.",  # not the pump's status
        "Kim was promoted to Lead.",  # a change without the value it replaces: no slot to find
    ],
)
def test_phrasings_that_make_no_fact_of_the_place(text):
    assert not [c for c in claims(text) if c[1] in ("status", "ward", "team", "infusion pump", "promoted")]


def test_a_known_place_phrase_keeps_its_reading():
    # "in Room 4" was a location before numbered places were read, and stays one.
    assert claims("Kai is in Room 4.") == [("kai", "location", "Room 4")]


def test_subject_names_of_a_thing_in_a_numbered_place_agree():
    names = ["the infusion pump on Ward 7B", "The Ward 7B infusion pump", "infusion pump (Ward 7B)", "infusion pump on the Ward 7B"]
    assert {canonical_subject(n) for n in names} == {"infusion pump ward 7b"}
    assert canonical_subject("Noor in Berlin") != "noor berlin"  # a person somewhere is no placed thing
    assert "infusion pump ward 7b" in subject_keys("When is the infusion pump on Ward 7B next due for service?")


def test_a_records_asset_status_is_the_things_status_and_brackets_close():
    assert normalise_attribute("asset_status") == normalise_attribute("status") == "status"
    assert normalise_attribute("marital status") == "marital status"
    assert clean("Ward 10 (General Surgery).") == "Ward 10 (General Surgery)"
    assert clean("(General Surgery)") == "General Surgery"


def test_questions_reach_the_slot_they_name():
    clinic = [("heart valve clinic", "lead"), ("heart valve clinic", "lead clinician"), ("heart valve clinic", "location")]
    # The whole slot name said beats its head word alone.
    assert question_slot("Who is the lead clinician for Heart Valve Clinic now?", clinic) == ("heart valve clinic", "lead clinician")
    assert question_slot("Which room is Heart Valve Clinic held in now?", clinic) == ("heart valve clinic", "location")
    assert question_slot("Which ward is Ashling placed on now?", [("ashling", "ward"), ("ashling", "bleep")]) == ("ashling", "ward")


def _say(memory, text, days, source="user:coordinator"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def _established(memory, source="user:coordinator", days=30):
    for i in range(10):
        _say(memory, f"Standup note {i}: the printer on floor {i} is jammed again.", days + i * 4, source)


def test_a_ward_change_said_in_a_new_phrasing_answers_the_question(memory):
    _established(memory)
    _say(memory, "Ashling is on Ward 12 (Gastro).", 60)
    new = _say(memory, "Ashling is on Ward 9 (Respiratory) now, not Ward 12 (Gastro) - can someone update the whiteboard?", 5)
    assert memory.query("Which ward is Ashling placed on now?", top_k=3)[0].id == new
    # ", not Ward 12" corrects: the old value is kept in the history, no longer current.
    history = {f.value: f.status for f in memory.history("ashling", "ward")}
    assert history["Ward 9 (Respiratory)"] == "current" and history["Ward 12 (Gastro)"] != "current"


def test_a_records_stale_status_is_flagged_for_a_status_question(memory):
    _established(memory)
    # One record with a status (an observation) and a register (stable): a question about the
    # status gets the record flagged stale once the status is months old.
    record = _say(memory, "Asset: infusion pump (Ward 7B)\nStatus: faulty\nRegister: EBME", 120)
    _say(memory, "Asset: infusion pump (Ward 7B)\nStatus: faulty\nRegister: EBME", 150)
    packets = memory.query("What is the status of the infusion pump on Ward 7B now?", top_k=3)
    mine = [p for p in packets if p.id == record]
    assert mine and "stale" in {str(f) for f in mine[0].flags}


def test_a_text_stored_many_times_comes_back_once(memory):
    for i, who in enumerate(["user:a", "user:b", "user:c", "user:d", "user:e"]):
        _say(memory, "lol Aisling has been looking for the ward printer all morning", 3 + i, who)
    roster = _say(memory, "Ward doctors\nWard 10 (General Surgery): Aisling", 40, "user:f")
    texts = [p.text for p in memory.query("Which ward printer is Aisling looking for?", top_k=5)]
    assert texts.count("lol Aisling has been looking for the ward printer all morning") == 1
    assert roster in [p.id for p in memory.query("Which ward printer is Aisling looking for?", top_k=5)]
    every = memory.query("Which ward printer is Aisling looking for?", top_k=5, distinct=False)
    assert [p.text for p in every].count("lol Aisling has been looking for the ward printer all morning") >= 4


def _pumps(memory):
    """A pump on Ward 7A and its look-alike on Ward 7B, whose software lines are the newer ones."""
    _established(memory, days=400)
    _say(memory, "The infusion pump on Ward 7A is working.", 200)
    _say(memory, "The infusion pump on Ward 7B is faulty.", 200)
    asked = _say(memory, "Software on the infusion pump on Ward 7A: version 2025.15.", 150)
    others = [_say(memory, f"Software on the infusion pump on Ward 7B: version 2025.{n}.", 100 - n) for n in (20, 26, 31)]
    top = [p.id for p in memory.query("Which software version is the infusion pump on Ward 7A running now?", top_k=3)]
    return asked, others, top


def test_a_look_alike_places_memories_go_below_the_asked_ones(memory):
    asked, others, top = _pumps(memory)
    assert top[0] == asked and not set(others) & set(top)


def test_without_the_look_alike_rule_the_look_alikes_stay_in_the_top(backend):
    # The same writes with the rule off (belief.other_subjects_window=0): what the rule changes.
    memory = backend.open(belief={"other_subjects_window": 0})
    try:
        _, others, top = _pumps(memory)
    finally:
        memory.close()
    assert set(others) & set(top)
