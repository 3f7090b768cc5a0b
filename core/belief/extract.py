"""Finding facts in events: explicit fields, tool-result JSON and common English phrasings.

Deterministic and cheap (a few regexes on short sentences), and cautious: a sentence that is a
question, negated, hypothetical or about someone it cannot resolve makes no fact, because a
missed fact costs less than a wrong supersede. An LLM extractor can replace the rules: anything
with ``claims(event) -> list[FactClaim]`` fits :class:`FactExtractor`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Protocol

from deltacore.belief.lexicon import (
    STATUS_WORDS,
    canonical_subject,
    category_of,
    clean,
    normalise_attribute,
    value_key,
)

MAX_TEXT_CHARS = 2000
MAX_SENTENCES = 8
MAX_SENTENCE_CHARS = 220
MAX_JSON_FIELDS = 20


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


class FactExtractor(Protocol):
    def claims(self, event: Any) -> list[FactClaim]: ...


class FactFieldError(ValueError):
    """A fact event's explicit fields are incomplete (raised by :func:`explicit_fields`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


ATTRIBUTE_KEYS = ("attribute", "predicate")
VALUE_KEYS = ("value", "object")


def explicit_fields(meta: dict[str, Any]) -> tuple[str, str, Any] | None:
    """(subject, attribute, value) of a fact event's ``meta``; None when it names none of them.

    A partial set is a caller mistake: :class:`FactFieldError` names the missing field."""
    attribute = next((meta[k] for k in ATTRIBUTE_KEYS if meta.get(k) not in (None, "")), None)
    value = next((meta[k] for k in VALUE_KEYS if meta.get(k) is not None and meta.get(k) != ""), None)
    subject = meta.get("subject")
    if subject in (None, "") and attribute is None:
        return None  # a bare ``value`` is an adapter's payload (the LangGraph store's), not a fact
    if not isinstance(subject, str) or not subject.strip():
        raise FactFieldError("meta.subject", "a fact with an attribute or value needs a subject (who or what it is about)")
    if attribute is None:
        raise FactFieldError("meta.attribute", f"the fact about {subject!r} needs an attribute (e.g. 'home city')")
    if value is None:
        raise FactFieldError("meta.value", f"the fact {subject!r} / {attribute!r} needs a value")
    if isinstance(value, (dict, list)):
        raise FactFieldError("meta.value", "must be a string, number or boolean")
    return subject, str(attribute), value


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
_DATE = (
    r"(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}"
    rf"|{_MONTH},?\s+\d{{4}}"
    r"|today|yesterday|this week|last week|this month|now)"
)
_LEAD_DATE = re.compile(rf"^(?:as of|since|from|starting|effective|beginning|on|in)\s+(?P<date>{_DATE})\s*,\s*", re.I)
_TAIL_DATE = re.compile(rf"\s*,?\s+(?:as of|since|starting|effective|from)\s+(?P<date>{_DATE})$", re.I)
_LEAD_TIME_WORD = re.compile(r"^(?:as of|since|starting|effective)\b", re.I)


def parse_date(text: str, reference: float) -> float | None:
    """Unix seconds of a date phrase; relative words are taken from ``reference`` (the event time)."""
    folded = text.strip().casefold().rstrip(",")
    if folded in ("today", "now", "this week", "this month"):
        return reference
    if folded == "yesterday":
        return reference - 86_400.0
    if folded == "last week":
        return reference - 7 * 86_400.0
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?)?", folded)
    try:
        if match:
            y, m, d, hh, mm, ss = (int(g) if g else 0 for g in match.groups())
            return datetime(y, m, d, hh, mm, ss, tzinfo=timezone.utc).timestamp()
        words = re.findall(r"[a-z]+|\d+", folded)
        month = next((_MONTHS[w] for w in words if w in _MONTHS), None)
        numbers = [int(w) for w in words if w.isdigit()]
        year = next((n for n in numbers if n >= 1000), None)
        day = next((n for n in numbers if n < 32), 1)
        if month is None or year is None:
            return None
        return datetime(year, month, day, tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None


def timestamp_of(value: Any) -> float | None:
    """Unix seconds of a datetime, a number or an ISO string; None when it is none of them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return parse_date(value, 0.0) if re.search(r"\d{4}", value) else None
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)).timestamp()
    return None


# ---- sentences ---------------------------------------------------------------------------------

# Every rule below needs one of these words: a sentence without any is skipped at once.
_TRIGGER = re.compile(
    r"\b(?:is|are|lives?|living|resid\w+|based|located|moved|relocated|works?|working|joined|employed|prefers?|"
    r"favou?rs?|switch\w*|migrat\w+|changed|uses?|using|codes|programs|writes|develops|runs|running|listens?|"
    r"listening|serves|serving|reports|became)\b|['’]s\b",
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!;])\s+|\n+")
_UNSURE = re.compile(
    r"\?|\b(?:if|maybe|perhaps|might|could|would|should|probably|possibly|wants? to|plans? to|planning|will|"
    r"going to|hopes? to|thinks?|think|believes?|wonder|unless|whether|supposedly|rumou?red|allegedly|"
    r"used to|once|sometimes|was|were|had)\b",
    re.I,
)
_NEGATED = re.compile(r"\b(?:not|never|no longer|nobody|none|no)\b|n't\b|n’t\b", re.I)
_CORRECTION = re.compile(r"^(?:correction|update|actually|erratum|to be clear)\s*[:,\-–]\s*", re.I)
_DENIAL = re.compile(r"\s*[,;]?\s+(?:not|rather than|instead of)\s+(?P<denied>[^,;]{1,60})$", re.I)
_UNRESOLVABLE = frozenset(
    {"he", "she", "they", "we", "you", "it", "this", "that", "there", "these", "those", "who", "what", "which",
     "everyone", "someone", "somebody", "nobody", "anyone", "one", "here", "his", "her", "their", "our", "your",
     "its", "today", "yesterday", "now", "then", "also", "and", "but", "so"}
)

_SUBJECT = r"(?P<subject>I|[Mm]y|[Tt]he user|(?:[Tt]he\s+)?[A-Za-z][\w.&-]*(?:\s+[A-Za-z][\w.&-]*){0,2}?)"
_AUX = r"(?:\s*(?:'ve|’ve|'s|’s|'m|’m)|\s+(?:has|have|am|is))?(?:\s+(?:just|recently|now|finally|since))?"
_VALUE = r"(?P<value>[^,;]{1,60}?)"

# (name, verb regex, attribute or a resolver tag, rule confidence)
_VERBS: tuple[tuple[str, str, str, float], ...] = (
    ("residence", r"(?:lives|living|live|resides|residing|based|located)\s+in", "home city", 0.9),
    ("move", r"(?:moved|relocated)\s+to", "@move", 0.9),
    ("employer", r"(?:works|working|work)\s+(?:at|for)|(?:joined)|employed\s+(?:at|by)", "employer", 0.9),
    ("work city", r"(?:works|working|work)\s+(?:in|from)", "work city", 0.9),
    ("job", r"(?:works|working|work)\s+as|employed\s+as", "job title", 0.9),
    ("preference", r"(?:prefers|prefer|favou?rs|favou?r)", "@category", 0.85),
    ("switch", r"(?:switched|switching|migrated|migrating|changed)\s+(?:over\s+)?to", "@category", 0.85),
    ("usage", r"(?:uses|use|using|codes\s+in|programs\s+in|writes\s+code\s+in|develops\s+in)", "@category", 0.85),
    ("port", r"(?:runs|running|listens|listening|serves|serving)\s+on\s+port|uses\s+port", "port", 0.9),
    ("manager", r"reports\s+to", "manager", 0.9),
)
_VERB_PATTERNS = [
    (name, re.compile(rf"^{_SUBJECT}{_AUX}\s+(?:{verb})\s+{_VALUE}$"), attribute, conf)
    for name, verb, attribute, conf in _VERBS
]
_POSSESSIVE = re.compile(
    rf"^{_SUBJECT}(?:'s|’s|')\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+(?:is|has changed to|changed to|is now|has become|became)\s+{_VALUE}$"
)
_MY = re.compile(rf"^(?P<subject>[Mm]y)\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+(?:is|has changed to|is now)\s+{_VALUE}$")
_OF = re.compile(
    rf"^[Tt]he\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+of\s+{_SUBJECT}\s+(?:is|is now|has changed to)\s+{_VALUE}$"
)
_COPULA = re.compile(rf"^{_SUBJECT}(?:\s+is|'s|’s|\s+are)(?:\s+now)?\s+(?P<rest>.{{1,60}})$")
_AT_PLACE = re.compile(r"^(?:in|at)\s+(?P<value>[A-Z][^,;]{0,40})$")
_PORT_VALUE = re.compile(r"^\d{2,5}$")
_PROPER_ATTRIBUTES = frozenset({"home city", "work city", "employer", "location"})


def _proper(value: str) -> bool:
    return bool(value) and (value[0].isupper() or value[0].isdigit())


class RuleFactExtractor:
    """The default extractor: explicit fields, tool-result JSON, then phrasing rules."""

    def claims(self, event: Any) -> list[FactClaim]:
        meta = event.meta or {}
        actor, user_id = event.actor, event.user_id
        fields = explicit_fields(meta) if event.kind == "fact" else None
        if fields is not None:
            subject_name, attribute, value = fields
            subject = canonical_subject(subject_name, actor, user_id)
            if subject is None:
                return []
            valid_from = timestamp_of(meta.get("valid_from", meta.get("as_of")))
            return [
                FactClaim(subject, clean(subject_name), normalise_attribute(attribute), clean(str(value)),
                          float(event.confidence), "explicit", valid_from)
            ]
        text = event.text or ""
        if event.kind in ("tool_result", "observation") and text.lstrip().startswith("{"):
            return self._json_claims(text, event)
        if event.kind not in ("message", "fact", "observation") or len(text) > MAX_TEXT_CHARS:
            return []
        found: list[FactClaim] = []
        for sentence in _SPLIT.split(text)[:MAX_SENTENCES]:
            claim = self.sentence_claim(sentence, actor, user_id, event.ts.timestamp())
            if claim is not None:
                found.append(_scaled(claim, float(event.confidence)))
        return found

    def sentence_claim(self, sentence: str, actor: str | None, user_id: str | None, reference: float) -> FactClaim | None:
        """The fact one sentence states, or None when it states none this extractor is sure of."""
        s = " ".join(sentence.split()).strip().rstrip(".!")
        if not s or len(s) > MAX_SENTENCE_CHARS or _TRIGGER.search(s) is None:
            return None
        correction = False
        if (m := _CORRECTION.match(s)) is not None:
            correction, s = True, s[m.end():]
        valid_from = None
        if (m := _LEAD_DATE.match(s)) is not None:
            valid_from, s = parse_date(m["date"], reference), s[m.end():]
        elif _LEAD_TIME_WORD.match(s):
            return None  # "as of <something we cannot date>": unsure when
        if (m := _TAIL_DATE.search(s)) is not None:
            valid_from, s = parse_date(m["date"], reference), s[: m.start()]
        denied = None
        if (m := _DENIAL.search(s)) is not None:
            denied, s, correction = clean(m["denied"]), s[: m.start()], True
        if _UNSURE.search(s) or _NEGATED.search(s):
            return None
        match = self._match(s)
        if match is None:
            return None
        subject_name, attribute, value, confidence, rule = match
        if subject_name.casefold() in _UNRESOLVABLE or subject_name.split()[0].casefold() in _UNRESOLVABLE:
            return None
        subject = canonical_subject(subject_name, actor, user_id)
        value = clean(re.sub(r"\s+(?:now|these days|nowadays|currently)$", "", value, flags=re.I))
        if subject is None or not value or len(value.split()) > 6:
            return None
        if attribute in _PROPER_ATTRIBUTES and not _proper(value):
            return None
        if correction:
            confidence = max(confidence, 0.95)
        return FactClaim(subject, clean(subject_name), attribute, value, confidence, f"rule:{rule}", valid_from, correction, denied)

    def _match(self, s: str) -> tuple[str, str, str, float, str] | None:
        for pattern, rule in ((_MY, "possessive"), (_OF, "possessive"), (_POSSESSIVE, "possessive")):
            if (m := pattern.match(s)) is not None:
                attribute = normalise_attribute(m["attr"])
                if attribute.split()[-1] in ("is", "was") or len(attribute.split()) > 3:
                    return None
                return m["subject"], attribute, m["value"], 0.9, rule
        for name, pattern, attribute, confidence in _VERB_PATTERNS:
            if (m := pattern.match(s)) is None:
                continue
            value = m["value"]
            if attribute == "@move":
                attribute = category_of(value) or "home city"
            elif attribute == "@category":
                attribute = category_of(value) or ""
                if not attribute:
                    return None  # "prefers tea": no slot this extractor is sure of
            if attribute == "port" and not _PORT_VALUE.match(value.strip()):
                return None
            return m["subject"], attribute, value, confidence, name
        if (m := _COPULA.match(s)) is not None:
            rest = m["rest"].strip()
            if value_key(rest) in STATUS_WORDS and len(rest.split()) == 1:
                return m["subject"], "status", rest, 0.9, "status"
            if (place := _AT_PLACE.match(rest)) is not None:
                return m["subject"], "location", place["value"], 0.85, "location"
        return None

    def _json_claims(self, text: str, event: Any) -> list[FactClaim]:
        try:
            data = json.loads(text)
        except ValueError:
            return []
        if not isinstance(data, dict):
            return []
        identity = next(
            (k for k in ("id", "name", "service", "entity", "user", "username", "host", "subject") if isinstance(data.get(k), str) and data[k].strip()),
            None,
        )
        if identity is None:
            return []
        subject_name = data[identity].strip()
        subject = canonical_subject(subject_name)
        if subject is None:
            return []
        reference = event.ts.timestamp()
        valid_from = next(
            (t for t in (timestamp_of(data.get(k)) for k in ("as_of", "checked_at", "observed_at", "updated_at", "timestamp")) if t),
            None,
        )
        found = []
        for key, value in data.items():
            if key == identity or key.casefold() in _JSON_SKIP or isinstance(value, (dict, list)) or value is None:
                continue
            text_value = str(value).lower() if isinstance(value, bool) else str(value)
            if not text_value.strip() or len(text_value) > 100:
                continue
            found.append(
                FactClaim(subject, subject_name, normalise_attribute(key), clean(text_value), 0.9 * float(event.confidence),
                          "tool_result", valid_from if valid_from and valid_from <= reference + 300 else None)
            )
            if len(found) == MAX_JSON_FIELDS:
                break
        return found


_JSON_SKIP = frozenset(
    {"as_of", "checked_at", "observed_at", "updated_at", "created_at", "timestamp", "ts", "time", "date", "message",
     "description", "details", "detail", "error", "errors", "url", "link", "type", "kind", "note", "notes", "text"}
)


def _scaled(claim: FactClaim, event_confidence: float) -> FactClaim:
    if event_confidence >= 1.0:
        return claim
    return replace(claim, confidence=claim.confidence * event_confidence)
