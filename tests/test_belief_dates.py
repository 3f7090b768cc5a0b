"""Dates as people and systems write them ("4/3/27", "04MAR27", "Thu 04.03.2027", "4 March"):
what the parser reads, one value however a date is spelled, and, end to end on each backend,
a date in another spelling corroborating instead of contradicting, and "as of" lines in those
spellings dating the value they set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deltacore.belief import RuleFactExtractor
from deltacore.belief.dates import date_key, parse_date, says_date
from deltacore.belief.lexicon import value_key

MARCH_4 = datetime(2027, 3, 4, tzinfo=UTC)
LATE_FEB = datetime(2027, 2, 20, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    "text",
    [
        "2027-03-04", "4 March 2027", "the 4th of March, 2027", "04 Mar 27", "04MAR27", "04-MAR-27", "March 4th, 2027",
        "Mar 04, 2027", "04/03/2027", "4.3.2027", "4/3/27", "04-03-27", "20270304", "Thu 04.03.2027",
        "Thursday 4 March 2027", "4 March", "March 4th", "Thu 4/3",
    ],
)
def test_spellings_of_one_day(text):
    assert parse_date(text, LATE_FEB) == MARCH_4.timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("04MAR27 0912Z", datetime(2027, 3, 4, 9, 12, tzinfo=UTC)),
        ("202703040915", datetime(2027, 3, 4, 9, 15, tzinfo=UTC)),
        ("04/03/2027 09:15", datetime(2027, 3, 4, 9, 15, tzinfo=UTC)),
        ("4 Mar 2027, 9:15 pm", datetime(2027, 3, 4, 21, 15, tzinfo=UTC)),
        ("03/31/2027", datetime(2027, 3, 31, tzinfo=UTC)),  # only month first is a date
        ("March 2027", datetime(2027, 3, 1, tzinfo=UTC)),
    ],
)
def test_times_month_first_and_months(text, expected):
    assert parse_date(text, LATE_FEB) == expected.timestamp()


def test_a_date_without_a_year_is_the_one_nearest_when_it_was_said():
    said_in_december = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    assert parse_date("4 March", said_in_december) == MARCH_4.timestamp()  # next year's, not last March
    said_in_june = datetime(2027, 6, 1, tzinfo=UTC).timestamp()
    assert parse_date("4 March", said_in_june) == MARCH_4.timestamp()  # this year's, three months ago


@pytest.mark.parametrize("text", ["31/02/2027", "1.2.3", "3/4", "version 2025.14", "12345678", "Sunday lunch"])
def test_what_is_no_date(text):
    assert parse_date(text, LATE_FEB) is None
    assert date_key(text) is None


def test_one_value_key_however_a_date_is_spelled():
    spellings = ["4/3/27", "Thursday 4 March 2027", "2027-03-04", "04MAR27", "Mar 04, 2027."]
    assert {value_key(s) for s in spellings} == {"2027-03-04"}
    assert value_key("4 March") == value_key("March 4th") == "--03-04"  # no year: still one day of the year
    assert value_key("March 2027") == "2027-03" != value_key("1 March 2027")  # a month is not its first day
    assert value_key("Monday") == "monday"  # a weekday names a day only beside when it was said
    assert says_date("Press card renewed, now valid to 4/3/27.", "2027-03-04")
    assert not says_date("Press card renewed, now valid to 5/3/27.", "2027-03-04")


@given(st.dates(min_value=datetime(2000, 1, 1).date(), max_value=datetime(2069, 12, 31).date()))
def test_every_spelling_of_any_day_has_the_same_key(day):
    spellings = [
        day.isoformat(), f"{day.day} {day:%B %Y}", f"{day:%d%b%y}".upper(), f"{day:%d/%m/%Y}", f"{day.day}/{day.month}/{day:%y}",
        f"{day:%b} {day.day}, {day.year}", f"{day:%Y%m%d}", f"{day:%a %d.%m.%Y}",
    ]
    assert {date_key(s) for s in spellings} == {day.isoformat()}


def test_as_of_lines_in_other_spellings_date_the_statement():
    extractor = RuleFactExtractor()
    ts = datetime(2027, 3, 10, tzinfo=UTC)
    for line in ["As of 4/3/27, Noor's beat is courts.", "Effective 04MAR27, Noor's beat is courts.", "From Thu 4/3, Noor's beat is courts."]:
        event = SimpleNamespace(text=line, kind="message", actor="desk", user_id=None, meta={}, confidence=1.0, ts=ts)
        found = [(c.subject, c.attribute, c.value, c.valid_from) for c in extractor.claims(event)]
        assert ("noor", "beat", "courts", MARCH_4.timestamp()) in found, line


NOW = datetime.now(UTC)


def _say(memory, text, days, source="user:desk"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def test_a_date_said_in_another_spelling_corroborates(memory):
    first = _say(memory, "Noor's press card expiry is 4/3/27.", 40)
    second = _say(memory, "Noor's press card expiry is Thursday 4 March 2027.", 10)
    facts = memory.history("noor", "press card expiry")
    assert [f.status for f in facts] == ["current"]  # one value, seen twice: no supersede
    assert set(facts[0].event_ids) == {first, second}
    assert not memory.conflicts()
    # A different day is a change.
    changed = _say(memory, "Noor's press card expiry is 04MAR28.", 2)
    assert memory.query("What is Noor's press card expiry date?", top_k=3)[0].id == changed


def test_an_as_of_line_with_a_two_digit_year_answers_as_of_questions(memory):
    old = _say(memory, "Noor's beat is transport.", 300)
    when = NOW - timedelta(days=100)
    new = _say(memory, f"As of {when.day}/{when.month}/{when:%y}, Noor's beat is courts.", 90)
    before = memory.query("Which beat did Noor cover?", top_k=3, as_of=when - timedelta(days=5))
    after = memory.query("Which beat did Noor cover?", top_k=3, as_of=when + timedelta(days=5))
    assert before[0].id == old and after[0].id == new
