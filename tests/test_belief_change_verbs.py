"""Verbs of a change of state read as the statement of the new value: "became", "took on a new
position as", "went down", "X of Y passed to Z" (``deltacore.belief.extract``, no embedder).

Each rule has its negative: a change that names no slot's kind of value states no fact."""

from __future__ import annotations

import pytest
from deltacore.belief.extract import RuleFactExtractor


def claim(text, actor=None):
    found = RuleFactExtractor().sentence_claim(text, actor, None, 0.0)
    return (found.subject, found.attribute, found.value) if found is not None else None


@pytest.mark.parametrize(
    ("text", "actor", "expected"),
    [
        ("Priya became a product designer.", None, ("priya", "job title", "product designer")),
        ("I have become a data engineer.", "wen", ("wen", "job title", "data engineer")),
        ("I've become a staff accountant.", "wen", ("wen", "job title", "staff accountant")),
        ("Wen took on a new position as staff accountant.", None, ("wen", "job title", "staff accountant")),
        ("I'm starting a new job as a release manager.", "wen", ("wen", "job title", "release manager")),
    ],
)  # fmt: skip
def test_a_change_of_role_is_a_job_title(text, actor, expected):
    assert claim(text, actor) == expected


@pytest.mark.parametrize("text", ["Wen became a grandmother.", "Priya became famous.", "Wen took on a new hobby as well."])
def test_becoming_what_is_no_occupation_states_no_role(text):
    assert claim(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("ledger-svc in staging went down.", "down"), ("ledger-svc in production changed status to degraded.", "degraded"),
     ("ledger-svc in production came back up.", "up")],
)  # fmt: skip
def test_a_verb_of_change_before_a_status_word_is_the_status(text, value):
    subject, attribute, said = claim(text)
    assert (attribute, said) == ("status", value) and subject.startswith("ledger-svc")


@pytest.mark.parametrize("text", ["ledger-svc in staging went quiet.", "Project Lark turned heads.", "ledger-svc went viral."])
def test_a_verb_of_change_before_any_other_word_is_no_status(text):
    assert claim(text) is None


def test_a_slot_noun_that_changes_hands_is_about_the_subject_not_a_move():
    subject, attribute, value = claim("Ownership of ledger-svc passed to the storage team.")
    assert subject == "ledger-svc" and attribute != "home city" and value == "the storage team"
    assert claim("Stewardship of ledger-svc was handed over to Ravi.")[::2] == ("ledger-svc", "Ravi")


def test_joining_a_team_is_no_new_employer():
    assert claim("Wen joined the storage team.") is None  # no team slot known here: no fact at all
    assert claim("Wen joined Initech.") == ("wen", "employer", "Initech")
