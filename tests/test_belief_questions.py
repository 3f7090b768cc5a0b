"""A question about one fact slot is answered by the memory stating the slot's value at the
asked time, even when ordinary retrieval ranks other memories first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore.belief.questions import question_slot, subject_keys

NOW = datetime.now(timezone.utc)
SLOTS = [
    ("anna", "home city"), ("anna", "work city"), ("anna", "employer"),
    ("ana", "home city"), ("ana", "job title"), ("billing staging", "status"), ("billing", "owner"),
    ("billing production", "version"),
]


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("Where does Anna live now?", ("anna", "home city")),
        ("Which city does Anna work in these days?", ("anna", "work city")),
        ("Who does Anna work for?", ("anna", "employer")),
        ("Where is Ana based?", ("ana", "home city")),
        ("What is Ana's role?", ("ana", "job title")),
        ("What's the status of billing staging?", ("billing staging", "status")),
        ("Who owns billing?", ("billing", "owner")),
        # The environment qualifies the subject wherever it stands in the question...
        ("Which version of billing runs in production?", ("billing production", "version")),
        ("What was the status of billing in staging on 2026-03-01?", ("billing staging", "status")),
        # ...and a deployment without the asked attribute does not hide its service's.
        ("Who owns billing in staging?", ("billing", "owner")),
    ],
)
def test_a_question_names_its_slot(question, slot):
    assert question_slot(question, SLOTS) == slot


@pytest.mark.parametrize(
    "question",
    [
        "Where does Hanna live?",  # a subject the store does not know
        "What did Anna say yesterday?",  # no attribute cue
        "Where does Ana work?",  # Ana has no work slot; nothing else fits
        "What is the status of billing in production?",  # only staging's status is known
        "What about Anna's work?",  # work city or employer? no cue says which: unsure
    ],
)
def test_unsure_questions_name_no_slot(question):
    assert question_slot(question, SLOTS) is None


def test_subject_keys_keep_look_alikes_apart():
    keys = subject_keys("Where does Anna live?")
    assert "anna" in keys and "ana" not in keys


def test_the_current_value_leads_over_louder_memories(memory):
    memory.add("Anna lives in Lisbon", ts=NOW - timedelta(days=90), source="user:anna")
    for n in range(5):  # newer, unrelated memories that share the question's words
        memory.add(f"Anna said the weather where she lives is nice, day {n}", ts=NOW - timedelta(days=n))
    current = memory.add("Anna moved to Berlin", ts=NOW - timedelta(days=10), source="user:anna")
    memory.add("Ana lives in Madrid", ts=NOW - timedelta(days=2), source="user:ana")

    top = memory.query("Where does Anna live now?", top_k=5)[0]
    assert top.id == current


def test_as_of_and_before_pick_the_earlier_value(memory):
    lisbon = memory.add("Anna lives in Lisbon", ts=NOW - timedelta(days=90), source="user:anna")
    memory.add("Anna moved to Berlin", ts=NOW - timedelta(days=3), source="user:anna")

    assert memory.query("Where did Anna live?", as_of=NOW - timedelta(days=30), top_k=3)[0].id == lisbon
    assert memory.query("Where did Anna live before Berlin?", top_k=3)[0].id == lisbon


def test_a_question_names_a_thing_by_where_it_is():
    slots = [("fume hood upstairs lab", "status"), ("fume hood downstairs lab", "status"), ("fume hood upstairs lab", "custodian")]
    assert question_slot("What is the status of the fume hood in the upstairs lab now?", slots) == ("fume hood upstairs lab", "status")
    assert question_slot("Who is the custodian of the fume hood in the downstairs lab?", slots) is None  # no such slot
    assert "fume hood downstairs lab" in subject_keys("Is the fume hood in the downstairs lab on hold?")
