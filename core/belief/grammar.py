"""A dependency-free phrase grammar for sentences the curated rules do not know.

A statement of a fact names a subject (a person, "I", a service in an environment, a project),
a predicate and a value. Here they are spotted by the shape of words, not by exact template
words: the subject is the run of name-like words at one end (capitalised words, identifiers such
as ``billing-api``, environment words, "the identity team"), the value the name-like run at the
other end (a city, a company, a version, a date), and the predicate is what lies between. The
predicate is then named by :class:`~deltacore.belief.attributes.AttributeResolver` (lexicon,
then embedding similarity); an unnamed predicate makes no fact.

Pure: ``parse(sentence)`` returns candidate readings; :mod:`deltacore.belief.extract` resolves
them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from deltacore.belief.lexicon import ENVIRONMENTS, TYPE_NOUNS

_TOKEN = re.compile(r"\(|\)|:|[^\s():]+")
_LINKS = frozenset({"of", "in", "on"})
_FILLER = frozenset({"now", "just", "recently", "currently", "finally", "mostly", "also", "still", "really", "officially"})
_ARTICLES = frozenset({"the", "a", "an"})
_DATE_TOKEN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CONTRACTIONS = ((re.compile(r"\bI['’]m\b"), "I am"), (re.compile(r"\bI['’]ve\b"), "I have"), (re.compile(r"\bI['’]d\b"), "I had"))
FIRST = frozenset({"i", "me"})
MAX_SPAN = 5


@dataclass(frozen=True)
class Reading:
    subject: str
    predicate: str
    value: str
    rule: str
    value_first: bool = False
    """True when the sentence names the value first ("Lina leads Project Juniper"); the
    resolver's prototype decides which end is the subject."""


def _name_like(tok: str, initial: bool) -> bool:
    if tok.casefold() in ENVIRONMENTS:
        return True
    if any(ch.isdigit() for ch in tok) or ("-" in tok.strip("-") and tok[:1].isalnum()):
        return True
    if tok[:1].isupper() and tok.casefold() not in _ARTICLES:
        return not initial or len(tok) > 1 or tok == "I"
    return False


def name_span(toks: list[str]) -> int:
    """How many leading tokens form a name (0 when none)."""
    return _span_forward(_TOKEN.findall(" ".join(toks)))


def _span_forward(toks: list[str]) -> int:
    """How many leading tokens form a name (0 when none)."""
    i = 1 if toks and toks[0].casefold() == "the" else 0
    start, core = i, False
    while i < len(toks) and i - start < MAX_SPAN:
        tok, low = toks[i], toks[i].casefold()
        if _name_like(tok, i == 0):
            core = core or low not in ENVIRONMENTS
            i += 1
        elif low in TYPE_NOUNS and i > start:
            i += 1
        elif i + 1 < len(toks) and toks[i + 1].casefold() in TYPE_NOUNS and tok.isalpha() and tok.islower() and i == start:
            core, i = True, i + 2  # "the identity team"
        elif low in _LINKS and i > start and i + 1 < len(toks) and _name_like(toks[i + 1], False):
            i += 1
        elif tok == "(" and ")" in toks[i:i + 4]:
            i = toks.index(")", i) + 1
        else:
            break
    return i if core else 0


def _span_backward(toks: list[str]) -> int:
    """How many trailing tokens form a value-like name (0 when none)."""
    i = len(toks)
    while i > 0 and len(toks) - i < MAX_SPAN:
        tok, low = toks[i - 1], toks[i - 1].casefold()
        if _name_like(tok, i - 1 == 0) or _DATE_TOKEN.match(tok) or low in TYPE_NOUNS and i == len(toks):
            i -= 1
        elif low in TYPE_NOUNS and i < len(toks):
            break
        elif i < len(toks) and tok.isalpha() and tok.islower() and toks[i].casefold() in TYPE_NOUNS and i == len(toks) - 1:
            i -= 1  # "the platform team"
        else:
            break
    tail = toks[i:]
    if not any(_name_like(t, False) or t.casefold() not in TYPE_NOUNS for t in tail):
        return 0
    return len(toks) - i


def _split_type(span: list[str]) -> tuple[list[str], list[str]]:
    """A span's words and the type nouns it carries ("the Helsinki office" -> Helsinki, office)."""
    words = [t for t in span if t.casefold() not in TYPE_NOUNS or t[:1].isupper() and span.index(t) > 0]
    types = [t.casefold() for t in span if t.casefold() in TYPE_NOUNS and t not in words]
    return words, types


MAX_PREDICATE_WORDS = 7


def predicate_text(tokens: list[str]) -> str:
    """The predicate's words; empty when it is no short verb phrase (too long, a number or a
    clause break inside): such a sentence states no fact, and its words are never embedded."""
    words = [t.casefold() for t in tokens if t.casefold() not in _FILLER and t not in "()"]
    if len(words) > MAX_PREDICATE_WORDS or any(ch.isdigit() or ch in ",;" for w in words for ch in w):
        return ""
    return " ".join(words)


@functools.lru_cache(maxsize=2048)
def parse(sentence: str) -> tuple[Reading, ...]:
    """Readings of a short declarative sentence (without lead-ins, dates or denials); cached, as
    the write path parses a batch's sentences twice (to embed their predicates, then to extract)."""
    return tuple(_parse(sentence))


def _parse(sentence: str) -> list[Reading]:
    s = sentence
    for pattern, replacement in _CONTRACTIONS:
        s = pattern.sub(replacement, s)
    toks = _TOKEN.findall(s)
    if len(toks) < 3 or len(toks) > 16 or ":" in toks:
        return []
    readings: list[Reading] = []
    if toks[0].casefold() in FIRST:
        head = 1
    else:
        head = _span_forward(toks)
        if head and toks[0].endswith(("ed", "ing")) and toks[0][:1].isupper() and head > 1:
            return []  # "Deployed billing-api 2.3 to production": a verb, not a name
    if head == 0 or head >= len(toks) - 1:
        return []
    rest = toks[head:]
    tail = _span_backward(rest)
    subject_words, subject_types = _split_type(toks[:head])
    subject = " ".join(subject_words) if toks[0].casefold() not in FIRST else toks[0]
    if tail and tail < len(rest):
        between, value_span = rest[: len(rest) - tail], rest[len(rest) - tail :]
        value_words, value_types = _split_type(value_span)
        value = " ".join(w for w in value_words if w.casefold() not in _ARTICLES)
        predicate = predicate_text([*between, *value_types, *subject_types])
        if value and predicate:
            readings.append(Reading(subject, predicate, value, "grammar"))
        return readings
    # A name in the middle and at most two words after it: "Tom calls Lisbon home".
    for i in range(len(rest) - 2, 0, -1):
        if _name_like(rest[i], False) and len(rest) - i - 1 <= 2 and not any(_name_like(t, False) for t in rest[i + 1 :]):
            j = i
            while j > 1 and _name_like(rest[j - 1], False):
                j -= 1
            predicate = predicate_text([*rest[:j], *rest[i + 1 :]])
            if predicate:
                readings.append(Reading(subject, predicate, " ".join(rest[j : i + 1]), "grammar"))
            return readings
    return readings


def lowercase_value(sentence: str) -> Reading | None:
    """A service, deployment or project that "is" a short lowercase state ("Project Cobalt is
    blocked", "media-cdn in staging is read-only"): its status."""
    toks = _TOKEN.findall(sentence)
    head = _span_forward(toks)
    if head == 0 or head + 1 >= len(toks):
        return None
    span = [t.casefold() for t in toks[:head]]
    thing = any(t in ENVIRONMENTS or t in ("project", "service", "deployment", "app", "initiative") for t in span) or any(
        "-" in t for t in span
    )
    rest = [t for t in toks[head:] if t.casefold() not in _FILLER]
    folded = [t.casefold() for t in rest]
    copula = folded[:1] in (["is"], ["are"])
    lead = 1 if copula else next((len(verb) for verb in _STATE_CHANGES if tuple(folded[: len(verb)]) == verb), 0)
    if not thing or len(rest) <= lead or lead == 0:
        return None
    value = rest[lead:]
    if not 1 <= len(value) <= 3 or any(not (t.islower() or "-" in t) for t in value) or value[0] in _ARTICLES:
        return None
    if any(ch.isdigit() for t in value for ch in t):
        return None  # "is running rel-474" names a version, not a state
    subject_words, _ = _split_type(toks[:head])
    # A verb of change only names a status when the extractor knows the word as one ("went down").
    return Reading(" ".join(subject_words), "status is", " ".join(value), "state" if copula else "state change")


# Verbs of a change of state before a status word ("changed state to down", "went down").
_STATE_CHANGES = (
    ("changed", "state", "to"), ("changed", "status", "to"), ("has", "gone"), ("went",), ("turned",), ("became",),
    ("has", "become"), ("flipped", "to"), ("switched", "to"), ("transitioned", "to"), ("is", "back"), ("came", "back"),
)
