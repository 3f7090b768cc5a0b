"""The belief layer's pure rules: which sentences state a fact, slot identity, staleness."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from deltacore.belief import BeliefPolicy, RuleFactExtractor
from deltacore.belief.extract import FactFieldError, explicit_fields, parse_date
from deltacore.belief.lexicon import canonical_subject, normalise_attribute, value_key
from deltacore.belief.staleness import retention, slot_belief
from deltacore.errors import ConfigurationError

TS = datetime(2025, 6, 1, tzinfo=timezone.utc)
EXTRACTOR = RuleFactExtractor()


def claims(text: str, kind: str = "message", actor: str | None = "carol", **fields):
    event = SimpleNamespace(text=text, kind=kind, actor=actor, user_id=fields.get("user_id"), meta=fields.get("meta", {}),
                            confidence=fields.get("confidence", 1.0), ts=TS)
    return [(c.subject, c.attribute, c.value) for c in EXTRACTOR.claims(event)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The user prefers Python.", ("user", "preferred language", "Python")),
        ("user switched to Golang", ("user", "preferred language", "Golang")),
        ("The user now uses Rust", ("user", "preferred language", "Rust")),
        ("Alice lives in Berlin", ("alice", "home city", "Berlin")),
        ("Alice is based in Berlin.", ("alice", "home city", "Berlin")),
        ("Alice has moved to Lisbon", ("alice", "home city", "Lisbon")),
        # When it happened is no part of the value.
        ("Alice moved to Lisbon last year.", ("alice", "home city", "Lisbon")),
        ("I moved to Oslo 3 months ago.", ("carol", "home city", "Oslo")),
        ("I've moved to Berlin", ("carol", "home city", "Berlin")),
        ("I live in Oslo", ("carol", "home city", "Oslo")),
        ("My email is carol@example.com", ("carol", "email", "carol@example.com")),
        ("Alice's employer is Acme Corp", ("alice", "employer", "Acme Corp")),
        ("Alice works at Globex", ("alice", "employer", "Globex")),
        ("Alice works in Munich", ("alice", "work city", "Munich")),
        # A title's or an initial's period ends no sentence.
        ("Alice's dentist is Dr. Ito.", ("alice", "dentist", "Dr. Ito")),
        ("Alice moved to St. Louis.", ("alice", "home city", "St. Louis")),
        ("My GP is Dr. J. Okafor.", ("carol", "gp", "Dr. J. Okafor")),
        ("Bob's home city is Paris", ("bob", "home city", "Paris")),
        ("The manager of Bob is Dana", ("bob", "manager", "Dana")),
        ("The api service is down", ("api", "status", "down")),
        ("Alice is a doctor", ("alice", "job title", "doctor")),
        ("the api service runs on port 8080", ("api", "port", "8080")),
        ("Alice is in London", ("alice", "location", "London")),
        ("Correction: Alice lives in Berlin, not Paris", ("alice", "home city", "Berlin")),
        ("As of March 2025, Alice lives in Madrid", ("alice", "home city", "Madrid")),
        ("Alice lives in Rome as of 2025-02-03", ("alice", "home city", "Rome")),
        # A question is a sentence of its own, an answer's "no," is no negation of the clause
        # after it, a trailing "now" is no part of the attribute, and a long correction label
        # is still a correction.
        ("Q: still with Dr. Ito? A: no, Dr. Mwangi is my GP now.", ("carol", "gp", "Dr. Mwangi")),
        ("Correction for the records: Alice lives in Oslo.", ("alice", "home city", "Oslo")),
        # An attribute's other common names, and how one gets to work.
        ("Alice's family doctor is Dr. Ito.", ("alice", "gp", "Dr. Ito")),
        ("Alice's dental practitioner is Dr. Ito.", ("alice", "dentist", "Dr. Ito")),
        ("Alice gets to work by train.", ("alice", "commute", "train")),
        ("I come in by ferry.", ("carol", "commute", "ferry")),
        ("After the move, Alice now lives in Turin.", ("alice", "home city", "Turin")),
    ],
)
def test_phrasings_that_state_a_fact(text, expected):
    assert claims(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Does Alice live in Berlin?",
        "Alice doesn't live in Paris",
        "No, Alice doesn't live in Paris.",
        "Alice no longer works at Acme",
        "Alice might move to Rome",
        "Alice will move to Rome next year",
        "If Alice moved to Rome she would be happy",
        "I think Alice lives in Rome",
        "Alice used to live in Rome",
        "Alice was based in Rome",
        "Alice prefers tea",
        "Alice lives in berlin",  # a city is a proper noun: unsure
        "It is down",
        "He moved to Paris",
        "They switched to Go",
        "The reason is simple",
        "Alice is a good friend",  # a copula with a noun that is no occupation: unsure
        "The weather is nice",
        "As of sometime, Alice lives in Rome",
        "Alice's favourite thing in the whole wide world is a very long value that keeps going",
    ],
)
def test_phrasings_that_must_not_make_a_fact(text):
    assert claims(text) == []


def test_first_person_without_a_speaker_is_unresolved():
    assert claims("I've moved to Berlin", actor=None) == []
    assert claims("I've moved to Berlin", actor=None, user_id="u-7") == [("u-7", "home city", "Berlin")]


def test_several_sentences_each_stand_alone():
    assert claims("Anna lives in Oslo. Ana lives in Rome.") == [("anna", "home city", "Oslo"), ("ana", "home city", "Rome")]


def test_dates_and_corrections_are_kept():
    event = SimpleNamespace(text="Correction: as of 1 March 2025, Alice lives in Berlin, not Paris", kind="message", actor=None,
                            user_id=None, meta={}, confidence=1.0, ts=TS)
    [claim] = EXTRACTOR.claims(event)
    assert claim.valid_from == datetime(2025, 3, 1, tzinfo=timezone.utc).timestamp()
    assert claim.correction and claim.denied == "Paris" and claim.confidence >= 0.95
    assert parse_date("yesterday", 86_400.0 * 3) == 86_400.0 * 2
    assert parse_date("sometime", 0.0) is None


def test_tool_result_json_about_an_entity():
    text = '{"service": "api", "status": "down", "version": "1.4.2", "checked_at": "2025-05-31T10:00:00Z", "details": {"x": 1}}'
    assert claims(text, kind="tool_result") == [("api", "status", "down"), ("api", "version", "1.4.2")]
    assert claims('{"status": "down"}', kind="tool_result") == []  # about no identified entity
    assert claims("[1, 2, 3]", kind="tool_result") == []


def test_a_json_record_that_is_one_field_of_its_subject_states_that_field():
    # A poller's key/value record: one fact, named by its field, dated by its compact ISO stamp;
    # "field", "value" and the read time are no attributes of Rosa.
    text = '{"employee": "Rosa", "field": "family_doctor", "value": "Dr. Ito", "polled": "20250531T1104Z"}'
    event = SimpleNamespace(text=text, kind="tool_result", actor="hr-sync", user_id=None, meta={}, confidence=1.0, ts=TS)
    found = EXTRACTOR.claims(event)
    assert [(c.subject, c.value) for c in found] == [("rosa", "Dr. Ito")]
    assert found[0].attribute not in ("field", "value", "polled")
    assert found[0].valid_from == datetime(2025, 5, 31, 11, 4, tzinfo=timezone.utc).timestamp()
    # Two such records about one subject are two slots, not one slot "value" changing.
    bay = claims('{"employee": "Rosa", "field": "parking_bay", "value": "E-03"}', kind="tool_result")
    assert [(s, v) for s, _, v in bay] == [("rosa", "E-03")] and bay[0][1] != found[0].attribute
    # Which name a value belongs to is unclear: no fact from those fields, the others still count.
    assert claims('{"employee": "Rosa", "key": "a", "field": "b", "value": 3, "desk": "4F"}', kind="tool_result") == [
        ("rosa", "desk", "4F")]


def test_explicit_fields_name_what_is_missing():
    assert explicit_fields({"subject": "Dana", "predicate": "home city", "object": "Oslo"}) == ("Dana", "home city", "Oslo")
    assert explicit_fields({"other": 1}) is None
    assert explicit_fields({"key": "drink", "value": {"text": "green tea"}}) is None  # the LangGraph store's payload
    with pytest.raises(FactFieldError, match="meta.subject"):
        explicit_fields({"attribute": "home city", "value": "Oslo"})
    with pytest.raises(FactFieldError, match="meta.value"):
        explicit_fields({"subject": "Dana", "attribute": "home city"})


def test_slot_identity_is_exact_after_normalisation():
    assert canonical_subject("Anna") != canonical_subject("Ana")
    assert canonical_subject("The user", user_id="u1") == "u1" and canonical_subject("my", actor="Bob") == "bob"
    assert normalise_attribute("home city") != normalise_attribute("work city")
    assert normalise_attribute("Favourite language") == normalise_attribute("programming_language") == "preferred language"
    assert value_key("Golang") == value_key("go") and value_key("Berlin.") == value_key("berlin")
    assert value_key("running") == value_key("healthy") == "up"
    assert value_key("Acme Corp.") == value_key("acme") and value_key("Co") == "co"


def _fact(value, weight=1.0, last=0.0, klass="status", status="current"):
    return {"id": value, "attribute": "status", "attribute_class": klass, "value": value, "weight": weight,
            "valid_from": 0.0, "valid_until": None, "last_observed": last, "status": status}


def test_belief_mass_bleeds_to_unknown_with_the_half_life():
    policy = BeliefPolicy()
    assert retention(policy, "status", 3600.0) == pytest.approx(0.5)
    assert retention(policy, "stable", 10**9) == 1.0
    fresh = slot_belief(policy, [_fact("up")], 60.0)
    old = slot_belief(policy, [_fact("up")], 2 * 3600.0)
    assert not fresh.stale and fresh.confidence > 0.9
    assert old.stale and old.distribution["UNKNOWN"] == pytest.approx(0.75) and "re-observe" in old.hint
    split = slot_belief(policy, [_fact("up", 0.7, klass="stable"), _fact("down", 0.3, klass="stable")], 10.0)
    assert split.value == "up" and split.distribution == {"up": 0.7, "down": 0.3, "UNKNOWN": 0.0}


def test_staleness_is_silence_measured_against_how_often_the_slot_is_observed():
    day = 24 * 3600.0
    # Reported once a day for ten days (one fact, ten observations), then silence.
    daily = {**_fact("up", last=9 * day), "observations": 10}
    policy = BeliefPolicy()
    assert not slot_belief(policy, [daily], 9 * day + 6 * 3600).stale  # six hours after a daily report
    late = slot_belief(policy, [daily], 14 * day)  # five silent days
    assert late.stale and "re-observe" in late.hint
    # A value change is an observation too: two facts of one slot share the cadence.
    before = {**_fact("down", last=4 * day), "observations": 5, "valid_until": 5 * day, "status": "superseded"}
    after = {**_fact("up", last=9 * day), "valid_from": 5 * day, "observations": 5}
    assert not slot_belief(policy, [before, after], 9 * day + 6 * 3600).stale
    # Seen once: no cadence, the class's half-life (1 hour) alone; and so with the rule off.
    assert slot_belief(policy, [_fact("up")], 2 * 3600.0).stale
    assert slot_belief(BeliefPolicy(half_life_from_cadence=False), [daily], 9 * day + 6 * 3600).stale
    # A rejected value was never observed: it does not stretch the cadence.
    wrong = {**_fact("down", last=0.0), "observations": 1, "status": "rejected", "valid_until": 0.0}
    first = {**_fact("up", last=10 * day), "valid_from": 10 * day}
    assert slot_belief(policy, [wrong, first], 10 * day + 3 * 3600).stale


def test_unknown_attribute_class_in_config_is_named():
    with pytest.raises(ConfigurationError, match="belief.attribute_classes.queue depth"):
        BeliefPolicy(attribute_classes={"queue depth": "weather"}).checked()
    assert BeliefPolicy(attribute_classes={"queue depth": "status"}).checked().class_of("queue depth") == "status"


@pytest.mark.parametrize(
    ("attribute", "klass"),
    [("build status", "status"), ("device state", "status"), ("service health", "status"),
     ("marital status", "stable"), ("home state", "stable"), ("preferred language", "stable")],
)
def test_a_things_status_or_state_is_an_observation_a_persons_standing_is_not(attribute, klass):
    assert BeliefPolicy().class_of(attribute) == klass
