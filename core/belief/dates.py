"""Dates as people and systems write them, and one key per calendar day.

``DATE`` is the grammar that finds a date phrase inside a statement ("as of DATE, …", "due
DATE"); :func:`parse_date` turns a phrase into Unix seconds; :func:`date_key` gives a date
value one spelling, so "4/3/27", "Thursday 4 March 2027" and "2027-03-04" are one value (a
date said in another spelling corroborates, it does not contradict).

Spellings read: ISO ("2027-03-04", with a time), day first with a month name ("4 March 2027",
"the 4th of March, 2027", "04 Mar 27", "04MAR27", "04-MAR-27"), month name first ("March 4th,
2027", "Mar 04, 2027"), numbers ("04/03/2027", "4.3.2027", "4/3/27", "04-03-27"), compact
stamps ("20270304", "202703040915"), a month and year ("March 2027"), a day and month with no
year ("4 March", "March 4th", "Thu 4/3"), weekdays ("since Monday", "Thu 04.03.2027") and
relative words ("yesterday", "this week"). A weekday before a full date says nothing more.

Numbers are read day first (04/03/2027 is the 4th of March, the order of most of the world and
of most tool stamps) unless only month first is a date (03/31/2027). A two-digit year is in
this century. A date with no year is the one nearest the day it was said: "4 March" said in
late February is this year's, "due 4 March" said in December is next year's.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_MONTH_NAMES = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"),
)
MONTHS = {name: i for i, names in enumerate(_MONTH_NAMES, start=1) for name in names}
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# Short weekdays ("Thu", "Sat") only before a date: alone, "sun" and "sat" are words.
_WEEKDAY_DAY = rf"(?:{_WEEKDAY}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
_WEEKDAY_LEAD = rf"(?:{_WEEKDAY_DAY}\.?,?\s+)?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_TIME = r"(?:,?\s+(?:at\s+)?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]m)?(?:\s*(?:utc|z))?|\s+\d{4}z)?"
DATE = (
    rf"(?:{_WEEKDAY_LEAD}(?:"
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?"
    rf"|{_MONTH}\s+\d{{1,2}}{_ORDINAL},?\s+\d{{4}}{_TIME}"
    rf"|(?:the\s+)?\d{{1,2}}{_ORDINAL}\s+(?:of\s+)?{_MONTH},?\s+(?:\d{{4}}|\d{{2}}(?![\d:])){_TIME}"
    rf"|\d{{1,2}}-?{_MONTH}-?\d{{2}}(?:\d{{2}})?(?![\w:]){_TIME}"
    rf"|\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{4}}{_TIME}"
    rf"|\d{{1,2}}[/-]\d{{1,2}}[/-]\d{{2}}(?![\d/-]|\.\d){_TIME}"
    r"|(?<!\d)(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[0-2]\d[0-5]\d)?(?!\d)"
    rf"|{_MONTH},?\s+\d{{4}}"
    rf"|(?:the\s+)?\d{{1,2}}{_ORDINAL}\s+(?:of\s+)?{_MONTH}(?![\w])"
    rf"|{_MONTH}\s+\d{{1,2}}{_ORDINAL}(?![\w:])"
    r")"
    rf"|{_WEEKDAY_DAY}\.?,?\s+\d{{1,2}}/\d{{1,2}}(?![\d/])"  # "Thu 4/3": bare, "3/4" is a fraction
    rf"|{_WEEKDAY}"
    r"|today|this morning|this afternoon|this evening|tonight|yesterday|this week|last week|this month|now)"
)
"""A date phrase (case-insensitive; embed it in a pattern compiled with ``re.IGNORECASE``)."""

_DATE_ONLY = re.compile(rf"(?:{DATE})", re.IGNORECASE)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE = {"yesterday": -1, "last week": -7}
_NOW = frozenset({"today", "now", "this week", "this month", "this morning", "this afternoon", "this evening", "tonight"})
_LEAD = re.compile(rf"^(?:{_WEEKDAY}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+(?=\d|the\b|[a-z]{{3}})")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2}))?z?)?")
_COMPACT = re.compile(r"((?:19|20)\d{2})(\d{2})(\d{2})(?:(\d{2})(\d{2}))?")
_NUMERIC = re.compile(r"(\d{1,2})[/.-](\d{1,2})(?:[/.-](\d{4}|\d{2}))?")
_CLOCK = re.compile(r"(?:,?\s+(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap])m)?(?:\s*(?:utc|z))?|\s+(\d{2})(\d{2})z)$")
_WORDS = re.compile(r"[a-z]+|\d+")
_KEY = re.compile(r"\d{4}-\d{2}(?:-\d{2})?|--\d{2}-\d{2}")
_FIND = re.compile(rf"(?<![\w/.-])(?:{DATE})(?![\w/])", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"{_MONTH},?\s+\d{{4}}")


def parse_date(text: str, reference: float) -> float | None:
    """Unix seconds of a date phrase; relative words and a missing year are taken from
    ``reference`` (when it was said). None when the phrase is no date (31/02/2027)."""
    folded = text.strip().casefold().rstrip(",.")
    if folded in _NOW:
        return reference
    if folded in _RELATIVE:
        return reference + _RELATIVE[folded] * 86_400.0
    if folded in _WEEKDAYS:
        # "since Monday": the last Monday on or before the day it was said.
        said = datetime.fromtimestamp(reference, UTC)
        back = (said.weekday() - _WEEKDAYS.index(folded)) % 7
        return said.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() - back * 86_400.0
    parts = _parts(_LEAD.sub("", folded), bool(_LEAD.match(folded)))
    if parts is None:
        return None
    year, month, day, clock = parts
    try:
        if year is None:
            return _nearest(month, day, reference)
        return datetime(year, month, day, *clock, tzinfo=UTC).timestamp()
    except ValueError:
        return None


def date_key(value: str) -> str | None:
    """One spelling of a date value: ``2027-03-04`` (``--03-04`` when no year is said, ``2027-03``
    for a month), or None
    when the value is not wholly a calendar date. Weekdays and relative words are no key: they
    name a day only beside when they were said."""
    folded = value.strip().casefold().rstrip(",.")
    if not _DATE_ONLY.fullmatch(folded) or folded in _NOW or folded in _RELATIVE or folded in _WEEKDAYS:
        return None
    parts = _parts(_LEAD.sub("", folded), bool(_LEAD.match(folded)))
    if parts is None:
        return None
    year, month, day, _ = parts
    if _MONTH_YEAR.fullmatch(folded):
        return f"{year:04d}-{month:02d}"  # a month, not its first day
    try:
        datetime(year or 2000, month, day)  # 2000 is a leap year: "29 February" with no year is a date
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}" if year is not None else f"--{month:02d}-{day:02d}"


def is_date_key(key: str) -> bool:
    """``key`` is what :func:`date_key` makes of a date (a value key that text spells otherwise)."""
    return _KEY.fullmatch(key) is not None


def says_date(text: str, key: str) -> bool:
    """``text`` names the date whose :func:`date_key` is ``key``, in any spelling."""
    return any(date_key(m.group(0)) == key for m in _FIND.finditer(text))


def _parts(folded: str, weekday: bool) -> tuple[int | None, int, int, tuple[int, int, int]] | None:
    """(year or None, month, day, (hour, minute, second)) of a date phrase without its weekday
    (``weekday``: one was said before it; "Thu 4/3" is a day, "3/4" alone a fraction)."""
    if (m := _ISO.fullmatch(folded)) is not None:
        y, mo, d, hh, mm, ss = (int(g) if g else 0 for g in m.groups())
        return y, mo, d, (hh, mm, ss)
    if (m := _COMPACT.fullmatch(folded)) is not None:
        y, mo, d, hh, mm = (int(g) if g else 0 for g in m.groups())
        return y, mo, d, (hh, mm, 0)
    clock = (0, 0, 0)
    if (t := _CLOCK.search(folded)) is not None and t.start() > 0:
        hh, mm, ss, half, zh, zm = t.groups()
        hour, minute = (int(zh), int(zm)) if zh else (int(hh), int(mm))
        hour = hour % 12 + 12 if half == "p" else hour % 12 if half == "a" else hour
        clock, folded = (hour, minute, int(ss or 0)), folded[: t.start()]
    if (m := _NUMERIC.fullmatch(folded)) is not None:
        if m[3] is None and not weekday:
            return None
        first, second = int(m[1]), int(m[2])
        day, month = (second, first) if second > 12 >= first else (first, second)
        return _year(m[3]), month, day, clock
    words = _WORDS.findall(folded)  # "04mar27" is three words: 04, mar, 27
    months = [MONTHS[w] for w in words if w in MONTHS]
    if len(months) != 1:
        return None
    numbers = [w for w in words if w.isdigit()]
    if len(numbers) == 1:
        if len(numbers[0]) == 4:  # "March 2027": its first day
            return int(numbers[0]), months[0], 1, clock
        return None if int(numbers[0]) > 31 else (None, months[0], int(numbers[0]), clock)
    if len(numbers) == 2 and len(numbers[0]) <= 2:
        return _year(numbers[1]), months[0], int(numbers[0]), clock
    return None


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    return int(text) + 2000 if len(text) == 2 else int(text)


def _nearest(month: int, day: int, reference: float) -> float:
    said = datetime.fromtimestamp(reference, UTC)
    options = []
    for year in (said.year - 1, said.year, said.year + 1):
        try:
            options.append(datetime(year, month, day, tzinfo=UTC))
        except ValueError:  # 29 February of a common year
            continue
    if not options:
        raise ValueError("no such day")
    return min(options, key=lambda d: (abs((d - said) / timedelta(days=1)), -d.year)).timestamp()
