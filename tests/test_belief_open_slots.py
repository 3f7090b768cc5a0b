"""Verb phrases no lexicon or prototype names: joined to a slot the subject already has, or no
fact at all (``deltacore.belief.open_slots``).

A user writes "Noor's coach is Imre" and a month later "Noor is coached by Vesna": the second
must retire the first, although nothing in the engine knows the word "coach". The same
machinery must never turn a trip, a dinner, a second party's relation or a doubtful sentence
into a supersede. MiniLM (offline weights) is the embedder: the joins need meaning.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from deltacore.belief import BeliefPolicy, FactStatus, slot_matcher
from deltacore.belief.claims import FactClaim
from deltacore.belief.open_slots import agentive, form_slot, open_slot, value_form, value_shape

NOW = datetime.now(UTC)


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    from deltacore.embedding import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder(["warm up"])
    return embedder


@pytest.fixture
def memory(backend, minilm):
    store = backend.open(embedder=minilm)
    yield store
    store.close()


def say(memory, text, days, source="user:ops"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def values(memory, subject, attribute):
    return [(f.value, f.status) for f in memory.history(subject, attribute)]


def current(memory, subject, attribute):
    return [f.value for f in memory.facts(subject, attribute)]


# ---- pure rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shape"),
    [("Imre", "name"), ("2027-01-15", "date"), ("March 3, 2027", "date"), ("v4.2", "number"), ("discovery", "word")],
)  # fmt: skip
def test_a_value_has_the_shape_of_what_it_names(value, shape):
    assert value_shape(value) == shape


@pytest.mark.parametrize(
    ("verb", "slot", "expected"),
    [("coaches", "coach", True), ("owns", "owner", True), ("manages", "manager", True), ("tutors", "tutor", True),
     ("coached", "coach", False), ("runs", "runtime", False), ("is coached by", "coach", False)],
)  # fmt: skip
def test_a_bare_verb_made_from_the_slots_noun_is_agentive(verb, slot, expected):
    assert agentive(verb, slot) is expected


def test_an_open_claim_with_a_value_of_another_shape_joins_nothing(minilm):
    matcher = slot_matcher(BeliefPolicy(), minilm)
    claim = FactClaim("noor", "Noor", "is coached by", "2027-01-15", 0.85, "rule:open", open_predicate=True)
    known = {"coach", "home city"}
    assert open_slot(claim, known, {("noor", "coach"): "Imre"}, matcher) is None
    assert open_slot(FactClaim("noor", "Noor", "is coached by", "Vesna", 0.85, "rule:open", open_predicate=True),
                     known, {("noor", "coach"): "Imre"}, matcher) == "coach"  # fmt: skip


def test_without_an_embedder_an_unnamed_predicate_is_no_fact():
    from deltacore.belief.extract import RuleFactExtractor

    # "shadowed by" is no role verb of the curated list (deltacore.belief.roles), so it is unnamed.
    assert RuleFactExtractor().sentence_claim("Noor is shadowed by Vesna.", None, None, 0.0) is None


# ---- verb phrases joined to the subject's slot ----------------------------------------------------


def test_a_verb_phrase_joins_the_slot_its_noun_names_and_supersedes(memory):
    say(memory, "Noor's coach is Imre.", 60)
    say(memory, "Noor's mentor is Rahel.", 60)
    say(memory, "Noor is coached by Vesna.", 5)
    assert values(memory, "Noor", "coach") == [("Imre", FactStatus.SUPERSEDED), ("Vesna", FactStatus.CURRENT)]
    assert current(memory, "Noor", "mentor") == ["Rahel"]  # the look-alike slot is untouched
    assert memory.facts("Noor", "is coached by") == []  # no slot named by the verb phrase
    top = memory.query("Who coaches Noor?", top_k=3)
    assert top[0].text == "Noor is coached by Vesna."


def test_a_verb_phrase_opens_no_slot_of_its_own(memory):
    say(memory, "Noor is shadowed by Vesna.", 5)
    say(memory, "Noor flew to Porto for a wedding.", 4)
    say(memory, "Noor had dinner with Dalia in Porto.", 3)
    assert memory.facts("Noor") == []


def test_trips_dinners_and_doubts_never_touch_a_slot(memory):
    say(memory, "Noor lives in Ghent.", 60)
    say(memory, "Noor's coach is Imre.", 60)
    for days, text in enumerate(
        ["Noor flew to Porto for a wedding.", "Noor visited Porto.", "Noor might be coached by Vesna soon.",
         "Noor is no longer coached by Imre.", "Noor's sister is coached by Vesna.", "Noor flew from Ghent to Porto."],
        start=1,
    ):  # fmt: skip
        say(memory, text, days)
    assert current(memory, "Noor", "home city") == ["Ghent"]
    assert current(memory, "Noor", "coach") == ["Imre"]
    assert memory.conflicts() == []


def test_an_active_verb_from_the_slots_noun_is_not_read_backwards(memory):
    say(memory, "Imre's coach is Otto.", 60)
    say(memory, "Dalia's coach is Rahel.", 60)
    say(memory, "Imre coaches Dalia.", 2)  # Imre is Dalia's coach, not the other way round
    assert current(memory, "Imre", "coach") == ["Otto"]
    assert current(memory, "Dalia", "coach") == ["Rahel"]


# ---- changes that name the value they replace -----------------------------------------------------


def test_a_swap_that_names_the_old_value_changes_that_slot(memory):
    say(memory, "Kasimir's text editor is Kate.", 40)
    say(memory, "Kasimir's mentor is Otto.", 40)
    say(memory, "Kasimir swapped Kate for Helix.", 3)
    say(memory, "Kasimir swapped shifts with Dalia.", 2)  # no slot holds "shifts"
    assert values(memory, "Kasimir", "text editor") == [("Kate", FactStatus.SUPERSEDED), ("Helix", FactStatus.CURRENT)]
    assert current(memory, "Kasimir", "mentor") == ["Otto"]


def test_from_a_to_b_changes_the_slot_that_held_a(memory):
    say(memory, "Noor lives in Ghent.", 60)
    say(memory, "Noor works at Initech.", 60)
    say(memory, "Noor went from Initech to Hooli.", 4)
    assert current(memory, "Noor", "employer") == ["Hooli"]
    assert current(memory, "Noor", "home city") == ["Ghent"]


def test_a_change_naming_a_value_no_slot_holds_is_no_fact(memory):
    say(memory, "Noor lives in Ghent.", 60)
    say(memory, "Noor switched over from Antwerp to Bruges.", 4)  # Antwerp was never her city here
    assert current(memory, "Noor", "home city") == ["Ghent"]


# ---- the value as the modifier of the slot's noun -------------------------------------------------


def test_a_value_said_as_the_modifier_of_the_slots_noun(memory):
    say(memory, "Project Quill's phase is discovery.", 40)
    say(memory, "Project Quill is in the build phase.", 5)
    say(memory, "Oskar works at Globex.", 50)
    say(memory, "Oskar's team is payments.", 40)
    say(memory, "Oskar joined the identity team.", 2)
    assert current(memory, "Project Quill", "phase") == ["build"]
    assert current(memory, "Oskar", "team") == ["identity"]
    assert current(memory, "Oskar", "employer") == ["Globex"]  # a team is no new employer


def test_membership_of_a_unit_is_the_subjects_one_unit_slot(memory):
    say(memory, "Petra's team is the welcome pod.", 40)
    say(memory, "Petra is a member of the Puffin squad.", 5)
    assert current(memory, "Petra", "team") == ["Puffin squad"]
    say(memory, "After the move, Petra rotated into the treasury crew.", 2)
    assert current(memory, "Petra", "team") == ["treasury crew"]
    assert [f.value for f in memory.history("Petra", "team")] == ["the welcome pod", "Puffin squad", "treasury crew"]


def test_a_noun_the_subject_has_no_slot_for_is_no_fact(memory):
    say(memory, "Oskar's team is payments.", 40)
    say(memory, "Oskar visited the identity team.", 3)  # a visit, not a membership
    say(memory, "Oskar is in the main office.", 2)  # Oskar has no "office" slot
    assert current(memory, "Oskar", "team") == ["payments"]
    assert [f.attribute for f in memory.facts("Oskar")] == ["team"]


# ---- a predicate that says only what or where: the value's written form names the slot -------------


@pytest.mark.parametrize(
    ("value", "form"),
    [("build 3039", "9"), ("Singapore DC", "N C"), ("VN73 KXD", "C9 C"), ("Avonmouth hub", "N hub"),
     ("Warrington Omega", None), ("Bogota", None)],
)
def test_a_value_is_written_in_a_form(value, form):
    assert value_form(value) == form


def test_a_stative_predicate_joins_the_one_slot_whose_value_is_written_alike():
    known = {"build", "datacenter", "health"}
    held = {("billing sandbox", "build"): "build 3032", ("billing sandbox", "datacenter"): "Ashburn DC",
            ("billing sandbox", "health"): "degraded"}

    def claim(predicate, value):
        return FactClaim("billing sandbox", "billing sandbox", predicate, value, 0.85, "rule:open", open_predicate=True)

    assert form_slot(claim("is at build deployment", "3039"), known, held) == "build"
    assert form_slot(claim("sits in the deployment", "Singapore DC"), known, held) == "datacenter"
    # Something done, not what the subject is; a bare name: no slot.
    assert form_slot(claim("shipped a hotfix to", "Sydney DC"), known, held) is None
    assert form_slot(claim("is in", "Sydney"), known, held) is None


def test_a_stative_sentence_supersedes_the_slot_a_tool_result_opened(memory):
    memory.add('{"resource": {"svc": "billing-api", "stage": "sandbox"}, "observed": {"datacenter": "Ashburn DC"}}',
               kind="tool_result", tool_name="health.probe", ts=NOW - timedelta(days=30), source="user:ops")
    say(memory, "The sandbox deployment of billing-api sits in the Singapore DC.", 2)
    assert values(memory, "billing-api sandbox", "datacenter") == [
        ("Ashburn DC", FactStatus.SUPERSEDED), ("Singapore DC", FactStatus.CURRENT)
    ]
