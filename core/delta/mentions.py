"""What a text mentions: named entities (proper nouns) and time expressions.

Deterministic and cheap (regular expressions, no model): run on every write to fill the mention
index, and on every query to pick routers. Precision over recall: a missed mention costs a
little ranking signal, a false one adds noise to every query naming it.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS.pop("may", None)  # re-added below: "may" is also a verb, so it needs a year or day beside it
_MONTH_NAMES = "|".join(sorted((m for m in _MONTHS if len(m) > 3), key=len, reverse=True))
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"

_MONTH_YEAR = re.compile(rf"\b(?P<month>{_MONTH_NAMES}|may)\s*,?\s+(?P<year>(19|20)\d\d)\b", re.I)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?P<day>\d{{1,2}})(st|nd|rd|th)?\s+(of\s+)?(?P<month>{_MONTH_NAMES}|may)\s*,?\s+(?P<year>(19|20)\d\d)\b", re.I
)
_ISO_DATE = re.compile(r"\b(?P<year>(19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")
_YEAR = re.compile(r"\b(?:in|during|of)\s+(?P<year>(19|20)\d\d)\b", re.I)
# A date after one of these opens a range ("since March 2024") rather than naming one.
_OPEN_ENDED = re.compile(r"\b(since|after|before|until|till|from|by|prior\s+to)\s+(the\s+)?$", re.I)

# Anything that places an event in time; used to find memories that say *when* something happened.
TIME_EXPRESSION = re.compile(
    rf"\b(yesterday|today|tonight|tomorrow|last\s+(night|week|weekend|month|year|summer|winter|spring|fall|{_WEEKDAYS})|"
    rf"next\s+(week|weekend|month|year|{_WEEKDAYS})|this\s+(morning|afternoon|evening|week|weekend|month|year)|"
    rf"\d+\s+(days?|weeks?|months?|years?)\s+ago|(a|one|two|three|few|couple\s+of)\s+(days?|weeks?|months?|years?)\s+ago|"
    rf"ago|recently|earlier|{_WEEKDAYS}|{_MONTH_NAMES}|(19|20)\d\d|\d{{1,2}}/\d{{1,2}}(/\d{{2,4}})?)\b",
    re.I,
)
# "When" asks for a time when it opens the question or is followed by an auxiliary ("...and
# when did she move?"); "what should I do when the job fails" is a condition, not a when-question.
_AUXILIARY = r"(did|does|do|is|was|were|are|will|would|has|have|had|can|could|should|shall)"
_WHEN_QUESTION = re.compile(
    rf"(^\W*when\b|\bwhen\s+{_AUXILIARY}\b|\bwhat\s+(time|date|day|month|year)\b|\bhow\s+long\s+ago\b|\bsince\s+when\b)",
    re.I,
)
_RECENT = re.compile(r"\b(latest|most\s+recent|recently|last\s+time|currently|right\s+now|now)\b", re.I)

# Capitalised words that start a sentence or are function words are not names.
_NAME = re.compile(r"\b[A-Z][a-zA-Z'’-]+(?:\s+[A-Z][a-zA-Z'’-]+)*")
_POSSESSIVE = re.compile(r"['’]s$")
_NOT_NAMES = frozenset(
    """I I'm I've I'd I'll The A An And But Or So If When What Where Who Why How Which Whose Did Do Does Is Are Was
    Were Has Have Had Can Could Would Should Will Yes No Hey Hi Hello Thanks Thank Wow Oh Ok Okay Sure Great Good
    Nice Sounds That This These Those There Here It Its My Your Our Their We You They He She Me Him Her Us Them Let
    Just Also Well Really Not Any Some All Maybe Please Congrats Congratulations Awesome Cool Haha Lol Aww Sorry
    Anyway Totally Definitely Absolutely Exactly Yeah Yep Nope By On In At For From To Of With As After Before""".split()
) | {name.capitalize() for name in _MONTHS} | {d.capitalize() for d in _WEEKDAYS.split("|")} | {"May"}


def mentioned_names(text: str) -> list[str]:
    """Capitalised words that are not function words (``"Caroline"``, ``"Boston"``), casefolded,
    in order. A sentence-initial common word can slip through; it only matters if a query
    capitalises the same word, which is then usually a name too."""
    found: dict[str, None] = {}
    for match in _NAME.finditer(text):
        for word in match.group(0).split():
            word = _POSSESSIVE.sub("", word).strip("'’-")
            if len(word) > 1 and word not in _NOT_NAMES:
                found.setdefault(word.casefold(), None)
    return list(found)


def has_time_expression(text: str) -> bool:
    return TIME_EXPRESSION.search(text) is not None


def asks_when(text: str) -> bool:
    return _WHEN_QUESTION.search(text) is not None


def wants_recent(text: str) -> bool:
    return _RECENT.search(text) is not None


@dataclass(frozen=True)
class TimeRange:
    start: datetime
    end: datetime


def explicit_time_range(text: str) -> TimeRange | None:
    """A calendar range named in ``text`` ("8 May 2023", "June 2023", "in 2022"), else None."""
    for pattern, kind in ((_DAY_MONTH_YEAR, "day"), (_ISO_DATE, "iso"), (_MONTH_YEAR, "month"), (_YEAR, "year")):
        match = pattern.search(text)
        if not match:
            continue
        if _OPEN_ENDED.search(text[: match.start()]):
            return None
        year = int(match["year"])
        if kind == "year":
            return TimeRange(datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc))
        month = int(match["month"]) if kind == "iso" else _month_number(match["month"])
        if kind == "month":
            start = datetime(year, month, 1, tzinfo=timezone.utc)
            days = calendar.monthrange(year, month)[1]
            return TimeRange(start, start + timedelta(days=days))
        try:
            day = datetime(year, month, int(match["day"]), tzinfo=timezone.utc)
        except ValueError:
            continue
        return TimeRange(day, day + timedelta(days=1))
    return None


def _month_number(name: str) -> int:
    name = name.lower()
    return 5 if name == "may" else _MONTHS[name]
