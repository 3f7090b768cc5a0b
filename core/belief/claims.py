"""A claim found in an event, and the dates statements carry ("as of 4 March 2026")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class FactClaim:
    """One statement of a value for a slot, as found in one event."""

    subject: str
    subject_name: str
    attribute: str
    value: str
    confidence: float
    method: str
    valid_from: float | None = None
    """Unix seconds when the statement says when it became true ("as of March 2025")."""
    correction: bool = False
    denied: str | None = None
    """The value a correction says is wrong ("…, not Paris")."""
    open_predicate: bool = False
    """True when ``attribute`` is a verb phrase no lexicon or prototype names ("is coached by"):
    the belief layer joins it to one of the subject's existing slots or drops the claim; it
    never opens a slot of its own (a distractor such as "flew to X" must not become one)."""
    previous: str | None = None
    """The old value a change names ("swapped Vim for Emacs", "went from A to B"): the slot
    whose current value it is, is the slot the change is about."""


# ---- dates -------------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for m in names
}
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# "Wednesday 4 March 2026": a weekday before a full date says nothing more.
_DATE = (
    r"(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?"
    rf"|(?:{_WEEKDAY},?\s+)?{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|(?:{_WEEKDAY},?\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{4}"
    rf"|{_MONTH},?\s+\d{{4}}"
    rf"|{_WEEKDAY}"
    r"|today|this morning|this afternoon|this evening|tonight|yesterday|this week|last week|this month|now)"
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# 04/03/2026 is the 4th of March, as 31.12.2025 and 31-12-2025 are the 31st of December (day first, the
# order of most of the world and of the tool stamps this module reads); 03/31/2026 is read
# month first, as only that is a date.
_NUMERIC = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})")
def parse_date(text: str, reference: float) -> float | None:
    """Unix seconds of a date phrase; relative words are taken from ``reference`` (the event time)."""
    folded = text.strip().casefold().rstrip(",")
    if folded in ("today", "now", "this week", "this month", "this morning", "this afternoon", "this evening", "tonight"):
        return reference
    if folded == "yesterday":
        return reference - 86_400.0
    if folded == "last week":
        return reference - 7 * 86_400.0
    if folded in _WEEKDAYS:
        # "since Monday": the last Monday on or before the day it was said.
        said = datetime.fromtimestamp(reference, UTC)
        back = (said.weekday() - _WEEKDAYS.index(folded)) % 7
        day = said.replace(hour=0, minute=0, second=0, microsecond=0)
        return day.timestamp() - back * 86_400.0
    if (numeric := _NUMERIC.fullmatch(folded)) is not None:
        first, second, year = (int(g) for g in numeric.groups())
        day, month = (second, first) if second > 12 >= first else (first, second)
        try:
            return datetime(year, month, day, tzinfo=UTC).timestamp()
        except ValueError:
            return None
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?)?", folded)
    try:
        if match:
            y, m, d, hh, mm, ss = (int(g) if g else 0 for g in match.groups())
            return datetime(y, m, d, hh, mm, ss, tzinfo=UTC).timestamp()
        words = re.findall(r"[a-z]+|\d+", folded)
        month = next((_MONTHS[w] for w in words if w in _MONTHS), None)
        numbers = [int(w) for w in words if w.isdigit()]
        year = next((n for n in numbers if n >= 1000), None)
        day = next((n for n in numbers if n < 32), 1)
        if month is None or year is None:
            return None
        return datetime(year, month, day, tzinfo=UTC).timestamp()
    except ValueError:
        return None


def timestamp_of(value: Any) -> float | None:
    """Unix seconds of a datetime, a number or an ISO string; None when it is none of them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))  # noqa: FURB162 - Python 3.10
        except ValueError:
            return parse_date(value, 0.0) if re.search(r"\d{4}", value) else None
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    return None


