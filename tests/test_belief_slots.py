"""Open-vocabulary slot identity: an attribute the lexicon does not name joins the subject's slot
it names in other words, by predicate-embedding similarity, and look-alikes stay apart.

The joins need an embedder that knows meaning, so these tests use MiniLM (offline weights); the
look-alike rule is tested without one too, since it holds whatever the vectors say."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from deltacore.belief import BeliefPolicy, FactStatus, SlotMatcher, slot_matcher
from deltacore.belief.slots import aligned, qualified_pair
from deltacore.testing import FakeEmbedder

NOW = datetime.now(UTC)


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    from deltacore.embedding import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder(["warm up"])
    return embedder


def say(memory, text, days, source="user:ops"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def current(memory, subject, attribute):
    return [f.value for f in memory.facts(subject, attribute)]


@pytest.mark.parametrize(
    ("a", "b"),
    [("home city", "work city"), ("home phone", "office phone"), ("staging bucket", "production bucket"),
     ("start date", "end date"), ("native language", "preferred language")],
)  # fmt: skip
def test_phrases_with_one_head_and_other_qualifiers_are_look_alikes(a, b):
    assert qualified_pair(a, b) and qualified_pair(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("favourite lang", "favourite language"),
        ("mentor", "manager"),
        ("due date", "due"),
    ],
)
def test_clipped_words_disjoint_words_and_a_bare_head_are_not_look_alikes(a, b):
    assert not qualified_pair(a, b)


def test_a_clipped_word_aligns_with_its_full_form():
    assert aligned("favourite lang", "favourite language")
    assert not aligned("home city", "work city")


def test_an_unknown_attribute_joins_the_subjects_slot_it_names_in_other_words(minilm):
    matcher = slot_matcher(BeliefPolicy(), minilm)
    known = {"preferred language", "home city", "employer", "job title"}
    assert matcher.join("favourite lang", known) == "preferred language"
    # Nothing close enough: its own slot, not the nearest one.
    assert matcher.join("mentor", {"manager", "home city"}) is None
    assert matcher.join("target date", {"deadline", "owner"}) is None


@pytest.mark.parametrize(
    ("candidate", "known"),
    [("office phone", {"home phone"}), ("production bucket", {"staging bucket"}), ("native language", {"preferred language"}),
     ("end date", {"start date"}), ("work town", {"home town"})],
)  # fmt: skip
def test_look_alikes_never_join_however_close_their_vectors(minilm, candidate, known):
    matcher = SlotMatcher(
        lambda texts: minilm(texts), threshold=0.0, margin=0.0
    )  # any similarity at all would join
    assert matcher.join(candidate, known) is None


def test_lexicon_names_are_exact_and_never_joined(minilm):
    matcher = SlotMatcher(lambda texts: minilm(texts), threshold=0.0, margin=0.0)
    assert matcher.join("work city", {"home city"}) is None


def test_a_name_said_word_for_word_in_the_lexicons_senses_joins_without_vectors():
    def broken(texts):
        raise RuntimeError("model unavailable")

    matcher = SlotMatcher(broken)
    assert matcher.join("primary route", {"main route", "home city"}) == "main route"
    assert matcher.join("relief route", {"main route", "backup route"}) == "backup route"
    # One word in other senses is not enough, and a slot the subject has stays its own.
    assert matcher.join("relief route", {"main route"}) is None
    assert matcher.join("backup route", {"backup route", "relief route"}) is None


def test_an_embedder_failure_joins_nothing_and_fails_no_write():
    def broken(texts):
        raise RuntimeError("model unavailable")

    assert SlotMatcher(broken).join("favourite lang", {"preferred language"}) is None


def test_a_new_value_under_other_words_supersedes_the_slot_end_to_end(backend, minilm):
    memory = backend.open(embedder=minilm)
    try:
        say(memory, "Mari prefers Python.", 30)
        say(memory, "Mari's favourite lang is Rust.", 1)
        assert current(memory, "Mari", "preferred language") == ["Rust"]
        [old, new] = memory.history("Mari", "preferred language")
        assert (old.value, old.status, new.value) == (
            "Python",
            FactStatus.SUPERSEDED,
            "Rust",
        )
        assert memory.facts("Mari", "favourite lang") == []  # no second slot beside it
    finally:
        memory.close()


def test_look_alike_slots_stay_apart_end_to_end(backend, minilm):
    memory = backend.open(embedder=minilm)
    try:
        say(memory, "Mari's home phone is 555-0100.", 30)
        say(memory, "Mari's office phone is 555-0199.", 1)
        say(memory, "Mari's work email is mari@acme.io.", 30)
        say(memory, "Mari's personal email is mari@home.io.", 1)
        say(memory, "The rollout channel for billing-api in production is stable.", 30)
        say(memory, "The rollout channel for billing-api in staging is beta.", 20)
        say(memory, "The rollout channel for billing-api in staging is nightly.", 1)
        assert current(memory, "Mari", "home phone") == ["555-0100"]
        assert current(memory, "Mari", "office phone") == ["555-0199"]
        assert current(memory, "Mari", "work email") == ["mari@acme.io"]
        assert current(memory, "Mari", "personal email") == ["mari@home.io"]
        assert current(memory, "billing-api in staging", "rollout channel") == [
            "nightly"
        ]
        assert current(memory, "billing-api in production", "rollout channel") == [
            "stable"
        ]
        assert memory.conflicts() == []
    finally:
        memory.close()


def test_a_fact_about_one_subject_never_joins_anothers_slot(backend, minilm):
    memory = backend.open(embedder=minilm)
    try:
        say(memory, "Mari prefers Python.", 30)
        say(memory, "Iris's favourite lang is Rust.", 1)
        assert current(memory, "Mari", "preferred language") == ["Python"]
        assert current(memory, "Iris", "favourite lang") == ["Rust"]
    finally:
        memory.close()


def test_without_a_semantic_embedder_other_words_make_a_slot_of_their_own(backend):
    memory = backend.open(embedder=FakeEmbedder())
    try:
        say(memory, "Mari prefers Python.", 30)
        say(memory, "Mari's favourite lang is Rust.", 1)
        # The fake embedder hashes words: "favourite lang" shares one word of two with the
        # slot's phrases, below the threshold, so no join (and no wrong supersede either).
        assert current(memory, "Mari", "preferred language") == ["Python"]
        assert current(memory, "Mari", "favourite lang") == ["Rust"]
    finally:
        memory.close()


def test_a_phrase_headed_by_another_lexicon_word_is_not_that_slot(minilm):
    from deltacore.belief.attributes import AttributeResolver

    resolver = AttributeResolver(lambda texts: minilm(texts))
    assert resolver.resolve("office phone") is None  # its vector is near "office city"
    assert resolver.resolve("residence city") == (
        "home city",
        False,
        pytest.approx(0.95, abs=0.05),
    )
    matcher = slot_matcher(BeliefPolicy(), minilm)
    assert (
        matcher.join("release date", {"version", "owner"}) is None
    )  # a date, not the "release"


def test_a_noun_taken_for_another_slot_must_get_a_value_of_that_slots_kind(backend, minilm):
    # "report" sits near the prototype "reports to" (manager) and "commute" near "commutes to"
    # (work city). Taken as those slots with any value, a due date would supersede a manager and
    # a bike a city.
    memory = backend.open(embedder=minilm)
    try:
        say(memory, "Juno's manager is Priya.", 30)
        say(memory, "Juno's report is due on 28/03/2027.", 2)
        say(memory, "Juno works in Leeds.", 30)
        say(memory, "Juno's commute is by bike.", 1)
        say(memory, "Juno's home town is Whitby.", 1)
        assert current(memory, "Juno", "manager") == ["Priya"]
        assert current(memory, "Juno", "work city") == ["Leeds"]
        assert current(memory, "Juno", "home city") == ["Whitby"]  # a near synonym is still that slot
        assert memory.conflicts() == []
    finally:
        memory.close()
