"""Roles said the other way round (passives, value first, handovers), things named by where they
are, reasons after a name, arrows between values and the dates these statements use."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from deltacore.belief import RuleFactExtractor
from deltacore.belief.claims import parse_date
from deltacore.belief.lexicon import canonical_subject

TS = datetime(2026, 3, 6, 15, tzinfo=timezone.utc)  # a Friday
EXTRACTOR = RuleFactExtractor()


def claim(text: str, actor: str | None = "carol"):
    event = SimpleNamespace(text=text, kind="message", actor=actor, user_id=None, meta={}, confidence=1.0, ts=TS)
    found = EXTRACTOR.claims(event)
    return found[0] if len(found) == 1 else None if not found else found


def triple(text: str):
    c = claim(text)
    return None if c is None else (c.subject, c.attribute, c.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Noor is mentored by Imre.", ("noor", "mentor", "Imre")),
        ("Noor has been coached by Imre Kovacs.", ("noor", "coach", "Imre Kovacs")),
        ("Imre is the assigned mentor for Noor.", ("noor", "mentor", "Imre")),
        ("Vera is the custodian of the centrifuge in the upstairs lab.", ("centrifuge upstairs lab", "custodian", "Vera")),
        ("Vera is budget holder for the Orion study.", ("orion", "budget holder", "Vera")),
        ("Imre took over as Noor's mentor from Kai.", ("noor", "mentor", "Imre")),
        ("Imre took over from Kai as Noor's mentor.", ("noor", "mentor", "Imre")),
        ("Noor now reports to Imre after the reorg.", ("noor", "manager", "Imre")),
        ("The open ticket for the plate reader in the lower lab is OPS-4872.", ("plate reader lower lab", "open ticket", "OPS-4872")),
        ("The fume hood in the upstairs lab is out for repair.", ("fume hood upstairs lab", "status", "out for repair")),
        ("The fume hood in the upstairs lab was marked on hold.", ("fume hood upstairs lab", "status", "on hold")),
        # A unit holds a role as a person does, and owns what it is responsible for.
        ("quota-keeper is maintained by the discovery pod.", ("quota-keeper", "owner", "discovery pod")),
        ("The partners squad is responsible for ticketing-core.", ("ticketing-core", "owner", "partners squad")),
        ("ticketing-core belongs to the trust squad.", ("ticketing-core", "owner", "trust squad")),
    ],
)
def test_roles_and_placed_things(text, expected):
    assert triple(text) == expected


def test_a_handover_names_the_value_it_replaces():
    assert claim("Imre took over as Noor's mentor from Kai.").previous == "Kai"


def test_an_arrow_gives_the_new_value_and_the_old():
    c = claim("Custodian for the autoclave in the lower lab reassigned: Wanda -> Vera.")
    assert (c.subject, c.attribute, c.value, c.previous) == ("autoclave lower lab", "custodian", "Vera", "Wanda")


@pytest.mark.parametrize(
    "text",
    [
        "Tom is a friend of Anna.",  # one friend of many: no holder of a role
        "Anna was stopped by Tom.",  # no role verb
        "Noor might be mentored by Imre.",  # a hedge
        "Noor is not mentored by Imre.",  # a negation
        "Is Noor mentored by Imre?",  # a question
        "Imre is the team of Noor.",  # a kind of thing, not a role
        "The fume hood in the upstairs lab is used by Vera.",  # a relation, not a state
        "If the fume hood in the upstairs lab is ever on hold, call Vera.",
    ],
)
def test_no_fact_from_what_states_no_role(text):
    assert claim(text) is None


def test_a_placed_thing_is_one_subject_however_it_is_written():
    assert canonical_subject("the centrifuge in the upstairs lab") == canonical_subject("centrifuge (upstairs lab)")
    assert canonical_subject("the centrifuge in the upstairs lab") != canonical_subject("the centrifuge in the downstairs lab")


def test_dates_said_with_weekdays_and_numbers():
    day = 86_400.0
    friday = datetime(2026, 3, 6, tzinfo=timezone.utc).timestamp()
    assert parse_date("Wednesday", TS.timestamp()) == friday - 2 * day  # the last one on or before the day said
    assert parse_date("04/03/2026", 0.0) == friday - 2 * day  # day first
    assert parse_date("03/31/2026", 0.0) == datetime(2026, 3, 31, tzinfo=timezone.utc).timestamp()  # only month first is a date
    assert parse_date("Wednesday 4 March 2026", 0.0) == friday - 2 * day
    assert parse_date("31/02/2026", 0.0) is None


def test_since_a_weekday_dates_the_fact_and_from_a_weekday_is_unsure():
    c = claim("Noor has been mentored by Imre since Wednesday.")
    assert c.valid_from == datetime(2026, 3, 4, tzinfo=timezone.utc).timestamp()
    assert claim("From Monday Noor is mentored by Imre.") is None  # maybe next Monday
    c = claim("From today Noor reports to Imre rather than Kai.")
    assert (c.value, c.valid_from, c.denied) == ("Imre", TS.timestamp(), "Kai")


def test_a_label_that_says_the_record_was_wrong_marks_a_correction():
    c = claim("Typo in the onboarding email: the Genomics group's request channel is #core-requests, not #lab-triage.")
    assert (c.subject, c.attribute, c.value, c.correction, c.denied) == (
        "genomics", "request channel", "#core-requests", True, "#lab-triage")
    c = claim("Mentoring list fix: Noor's mentor is Imre.")
    assert (c.value, c.correction) == ("Imre", True)


def test_the_value_replaced_said_after_the_new_one():
    c = claim("Heads-up: the fume hood in the upstairs lab is available as of this morning (was on hold).")
    assert (c.subject, c.value, c.previous, c.valid_from) == ("fume hood upstairs lab", "available", "on hold", TS.timestamp())


def test_a_change_names_its_old_value_with_an_article():
    c = claim("Sorin has replaced the Volvo XC40 with a Honda Jazz.")
    assert (c.value, c.previous, c.open_predicate) == ("Honda Jazz", "the Volvo XC40", True)
    c = claim("Budget authority for the Orion study passed from Viggo to Vigo.")
    assert (c.subject, c.attribute, c.value) == ("orion", "budget authority", "Vigo")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ana is on call for the platform team.", ("platform", "on call", "Ana")),  # a lexicon attribute
        ("Vera is budget holder for Orion.", ("orion", "budget holder", "Vera")),  # an agent noun
        ("Tom is ready for Berlin.", None),  # an adjective, no role
        ("Ana is on leave for Kai.", None),  # a state of Ana's, not a role of Kai's
    ],
)
def test_a_role_said_without_the_is_an_agent_noun(text, expected):
    assert triple(text) == expected


def test_a_thing_due_on_a_date_is_its_due_date():
    assert triple("The Orion study's report is due on 28/03/2027.") == ("orion", "report due", "28/03/2027")
    assert triple("Orion's deadline is 28/03/2027.") == ("orion", "deadline", "28/03/2027")  # a lexicon name stays


def test_a_possessive_slot_changed_in_the_passive():
    assert triple("Jana's work location was changed to Ghent.") == ("jana", "work city", "Ghent")
    assert triple("Jana's editor has been switched to Helix.") == ("jana", "preferred editor", "Helix")
    assert triple("Jana's work location was changed to Ghent?") is None


def test_reporting_lines_in_each_tense():
    assert triple("Heads up: I report to Zelma now, not Viggo.") == ("carol", "manager", "Zelma")
    c = claim("Kai has reported to Imre since Wednesday.")
    assert (c.subject, c.attribute, c.value, c.valid_from) == ("kai", "manager", "Imre", datetime(2026, 3, 4, tzinfo=timezone.utc).timestamp())
    assert triple("Kai reported to Imre.") is None  # once, or still: unsure


def test_a_holder_listed_for_or_named_by_the_subject():
    assert triple("Anton is the emergency contact listed for Maren.") == ("maren", "emergency contact", "Anton")
    assert triple("Maren named Anton as their emergency contact.") == ("maren", "emergency contact", "Anton")
    assert triple("Maren might name Anton as their emergency contact.") is None


def test_a_placed_thing_s_value_said_as_the_modifier_of_the_slot_noun():
    from deltacore.belief.phrases import noun_reading

    assert noun_reading("the lobby kiosk in the west wing follows the early access channel", True)[1:3] == ("channel", "early access")
    assert noun_reading("The kiosk in the west wing has since gone over to the beta channel", True)[1:3] == ("channel", "beta")
    assert noun_reading("The kiosk in the west wing has since gone over to the beta channel", False) is None  # no embedder: no open claim


def test_a_possessive_is_never_a_value():
    # "since the 11th of November 2026" is a date now; what is left must not read as Anton's
    # slot holding "Antonia's".
    assert triple("Anton has been Antonia's emergency contact since the 11th of November 2026.") == (
        "antonia", "emergency contact", "Anton")


def test_a_participle_phrase_is_no_value():
    assert triple("The new issue on the fume hood in the upstairs lab is filed as OPS-5205.") is None
    assert triple("Zelma's pay is deposited with Alder Mutual.") is None
