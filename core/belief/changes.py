"""Changes read by the value they replace: "from A to B", "A -> B", "B instead of A", "B (was A)",
"B, not A", "B has taken over … from A", "A handed … over to B", "B now, moved over from A",
"off A, on B now", "to B, drop A", "B replaces A", "traded A for B" and a ticket's "From: A. To: B".

People write a change in many more ways than a rule per verb can follow ("Shona has transferred
from Crick DC to Avonmouth hub", "Rota change: Shona goes onto weekend relief (was nights)",
"Schedule change - Dover shuttle: departure 03:00 -> 04:20"). What these share is the old value
beside the new one, and the old value is what the store already holds: the one slot, of a subject
the text names, whose current value is A is the slot the change is about, whatever the verb or
the slot's name. So no attribute has to be read from the words, and nothing is guessed:

- the text must name a subject the store knows (or speak in the first person);
- A must be the current value of exactly one slot among those subjects' slots;
- B is cut from its side of the marker by where a value ends (a clause break, a verb or
  preposition before it, a trailing "now" or "this week" after it) and must have the shape of A
  (a name for a name, a time for a time).

Anything else reads as no change. Pure: the belief layer looks up the subjects and their values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from deltacore.belief.claims import FactClaim
from deltacore.belief.extract import MAX_TEXT_CHARS, TRAILING_TIME
from deltacore.belief.lexicon import FIRST_PERSON, MULTI_VALUED_ATTRIBUTES, canonical_subject, value_key
from deltacore.belief.open_slots import value_shape
from deltacore.belief.questions import answer_shape, subject_keys

# A span stops at a clause break; a colon inside a time ("04:20") is no break.
_STOP = r"(?:[^:;,!?\n()]|:(?=\d))"
_JOURNEY = (
    r"fl(?:y|ew|ies|ying|ight)|dr(?:ove|iving)|travel\w*|commut\w*|walk(?:s|ed)?|r(?:ode|iding)|cycl\w*|sail\w*|"
    r"trips?|journey\w*|visit\w*|ship(?:s|ped)|heading|on the way"
)
_MOVED = r"moved|moving|transferred|transferring|switched|switching|came|relocated|relocating|swapped|changed"
_TRADED = r"trade[sd]?|trading|swap(?:s|ped|ping)?|exchang(?:e|es|ed|ing)|left|leaves|leaving|ditch(?:es|ed|ing)?"
_SPANS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # (pattern, where the old span may carry extra words, where the new span may)
    # "from A to B", unless it is a journey ("flew from Ghent to Porto" moves no one's home).
    (re.compile(rf"^(?!.*\b(?:{_JOURNEY})\b.*\bfrom\b).*?\bfrom\s+(?P<old>{_STOP}+?)\s+(?:to|onto|into)\s+(?P<new>{_STOP}+)", re.I), "", "right"),
    (re.compile(rf"(?P<old>{_STOP}+?)\s*(?:->|=>|→)\s*(?P<new>{_STOP}+)"), "left", "right"),
    (re.compile(rf"(?P<new>{_STOP}+?),?\s+instead\s+of\s+(?P<old>{_STOP}+)", re.I), "right", "left"),
    (re.compile(rf"(?P<new>{_STOP}+?)\s*\((?:was|previously|formerly|not)\s+(?P<old>[^)\n]+)\)", re.I), "", "left"),
    (re.compile(rf"(?P<new>{_STOP}+?),?\s+not\s+(?P<old>{_STOP}+)", re.I), "right", "left"),
    # "traded Crick DC for Avonmouth hub", "left Brennan Haulage for Kinross Logistics" (a journey's
    # "left Ghent for Porto on the night train" moves no one).
    (re.compile(rf"^(?!.*\b(?:{_JOURNEY})\b).*?\b(?:{_TRADED})\s+(?P<old>{_STOP}+?)\s+for\s+(?P<new>{_STOP}+)", re.I), "", "right"),
    # A hand-over: "Denis has taken over the night trunk from Shauna", "Shauna handed the truck over to Denis".
    (re.compile(rf"(?P<new>{_STOP}+?)\s+(?:has\s+|have\s+)?(?:take|takes|took|taken|taking)\s+over\b{_STOP}*?\bfrom\s+(?P<old>{_STOP}+)", re.I), "right", "left"),
    (re.compile(rf"(?P<old>{_STOP}+?)\s+(?:has\s+|have\s+)?hand(?:s|ed)?\s+(?:over\s+{_STOP}*?|{_STOP}*?\s+over\s+)to\s+(?P<new>{_STOP}+)", re.I), "left", "right"),
    # The new value first, where it came from after a comma: "Shona is at Magor depot now, moved
    # over from Warrington Omega" (not a journey: "is in Porto, flew in from Ghent").
    (re.compile(rf"^(?!.*\b(?:{_JOURNEY})\b)(?P<new>{_STOP}+?),\s+(?:{_MOVED})(?:\s+(?:over|across|back))?\s+from\s+(?P<old>{_STOP}+)", re.I),
     "right", "left"),
    # What was left, then what replaced it: "swapped off nights, they're on weekend relief now".
    (re.compile(rf"\b(?:came|comes|coming|swapped|switched|moved|taken|took|rotated|stepped)\s+off\s+(?P<old>{_STOP}+?),\s*(?P<new>{_STOP}+)", re.I), "", "left"),
    # "swap my relief route to R13, drop R24"; "R13 replaces R24".
    (re.compile(rf"\bto\s+(?P<new>{_STOP}+?),\s*(?:and\s+)?(?:drop|dropping|dropped|leave|leaving|ditch|ditching)\s+(?P<old>{_STOP}+)", re.I), "right", ""),
    (re.compile(rf"(?P<new>{_STOP}+?)\s+(?:replaces|replaced|has\s+replaced|is\s+replacing|supersedes|superseded)\s+(?P<old>{_STOP}+)", re.I), "right", "left"),
)
# A ticket's fields on lines or sentences of their own: "From: Tue-Sat days. To: nights".
_TICKET = re.compile(r"\bfrom:\s*(?P<old>(?:[^\n:]|:(?=\d))+?)[.;,]?\s+to:\s*", re.I)
# Words a value never starts with: what stands before it ("now has VN73", "leaves at 04:20").
_BEFORE_VALUE = frozenset(
    {"is", "are", "was", "were", "be", "been", "has", "have", "had", "now", "on", "to", "at", "onto", "into", "in",
     "they're", "we're", "he's", "she's", "you're", "i'm", "they’re", "we’re", "he’s", "she’s",
     "by", "with", "for", "of", "the", "a", "an", "gets", "got", "given", "drives", "runs", "covers", "uses",
     "leaves", "departs", "goes", "takes", "took", "me", "us", "them", "him", "her", "their", "my", "our", "its",
     "i", "i'm", "i've", "we", "they", "he", "she", "it", "it's", "that's", "as", "do", "does", "doing"}
)
# Words that end a value said first ("to Avonmouth hub from Monday", "R16 when needed").
_AFTER_VALUE = frozenset(
    {"as", "for", "when", "this", "next", "from", "effective", "starting", "since", "today", "tomorrow", "so",
     "but", "because", "pls", "please", "until", "now", "instead", "anymore", "again", "going", "forward",
     "is", "are", "was", "were", "has", "have", "had", "will", "if", "then", "every", "each", "and"}
)
_EDGE = ".'\"`“”‘’ "
MAX_VALUE_WORDS = 6
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_HEDGED = re.compile(
    r"\?|\b(?:if|maybe|perhaps|might|could|would|should|probably|possibly|wants? to|plans? to|planning|going to|"
    r"hopes? to|think|thinks|wonder|unless|whether|quoted?|applied|propos\w*|suggest\w*)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|never|no longer)\b|n't\b|n’t\b", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    """An old and a new span around a change marker; ``*_open`` says which side may hold extra
    words ("left", "right" or "")."""

    old: str
    new: str
    old_open: str
    new_open: str


def changes_in(text: str) -> list[Change]:
    """Every old/new pair a change marker puts side by side in ``text``, outside questions,
    wishes and denials ("could it go at 05:10 instead?", "Denis never moved from A to B")."""
    found = []
    text = _TICKET.sub(lambda m: f"from {m['old']} to ", text)
    for sentence in _SENTENCE.split(text):
        if _HEDGED.search(sentence):
            continue
        for pattern, old_open, new_open in _SPANS:
            for m in pattern.finditer(sentence):
                said = sentence[: m.start("old")] if m.start("old") < m.start("new") else sentence[: m.end("new")]
                old, new = m["old"].strip(_EDGE), m["new"].strip(_EDGE)
                if old and new and not _NEGATED.search(said):
                    found.append(Change(old, new, old_open, new_open))
    return found


def _words(span: str) -> list[str]:
    return [w.strip(_EDGE) for w in span.split() if w.strip(_EDGE)]


def names_old(change: Change, value: str) -> bool:
    """The change's old side is ``value`` (the old span's end nearest the marker is the value)."""
    have, want = _words(change.old), _words(value)
    if not want or len(have) < len(want):
        return False
    if change.old_open == "left":
        have = have[-len(want):]
    elif change.old_open == "right":
        have = have[: len(want)]
    return value_key(" ".join(have)) == value_key(value)


def new_value(change: Change, old: str) -> str | None:
    """The new side, cut where a value ends, when it has the shape of the old value."""
    words = _words(change.new)
    if change.new_open == "left":
        while words and words[-1].casefold() in _AFTER_VALUE:
            words = words[:-1]  # "on R02 Westbrook now"
        cut = max((i for i, w in enumerate(words) if w.casefold() in _BEFORE_VALUE), default=-1)
        words = words[cut + 1 :]
    if change.new_open:
        end = next((i for i, w in enumerate(words) if i and w.casefold() in _AFTER_VALUE), len(words))
        words = words[:end]
    if not words or len(words) > MAX_VALUE_WORDS or words[0].casefold() in _BEFORE_VALUE:
        return None
    value = TRAILING_TIME.sub("", " ".join(words)) if change.new_open else " ".join(words)
    if not value or value_key(value) == value_key(old) or _dated(value) != _dated(old):
        return None
    if value_shape(old) == "name" and value_shape(value) == "word":
        return None  # "Milan will be late, the bus from Riga …": Riga was no home left for "late"
    return value


def _dated(value: str) -> str | None:
    """A date or a time of day for a date or a time (a code may follow a name: "DISPATCH-S" ->
    "TG-SPARE-9")."""
    shape = answer_shape(value)
    return shape if shape in ("date", "time") else None


def anchored_change(
    text: str, held: dict[tuple[str, str], list[str]], changes: list[Change] | None = None
) -> tuple[str, str, str, str] | None:
    """(subject, attribute, new value, old value) of the one change in ``text`` whose old side is
    a value one of the ``held`` slots has held ((subject, attribute) -> its values, of the
    subjects the text names); None when no slot, or more than one, fits. A value held before
    counts too: a change the store missed must not hide the next one ("A to B", then "B to C")."""
    found = set()
    for change in changes if changes is not None else changes_in(text):
        for (subject, attribute), values in held.items():
            for value in values:
                if not names_old(change, value):
                    continue
                new = new_value(change, value)
                if new is not None:
                    found.add((subject, attribute, new, value))
    slots = {(s, a) for s, a, _, _ in found}
    if len(slots) != 1:
        return None
    values = {value_key(new) for _, _, new, _ in found}
    return min(found) if len(values) == 1 else None


# Any of the markers above, cheaply: text without one costs no more than this search.
_MARKED = re.compile(
    r"\bfrom\b|->|=>|→|\binstead\s+of\b|\((?:was|previously|formerly|not)\b|\bnot\b|\bhand(?:s|ed)?\b|\boff\b|"
    r"\bdrop(?:ping|ped)?\b|\bleav(?:e|ing)\b|\bditch(?:ing)?\b|\breplac(?:es|ed|ing)\b|\bsupersede[sd]?\b|\btrad(?:e|es|ed|ing)\b|\bswap|\bexchang|\bleft\b",
    re.IGNORECASE,
)
ANCHORED_CONFIDENCE = 0.9
CHANGE_KINDS = frozenset({"message", "fact", "observation"})
_WORD = re.compile(r"[\w'’]+")


def named_subjects(event: Any) -> list[str]:
    """Subject ids the event's text may name: its word runs, and its speaker when it says "I"."""
    text = event.text or ""
    keys = subject_keys(text)
    if any(w.casefold() in FIRST_PERSON or w.casefold().startswith(("i'", "i’")) for w in _WORD.findall(text)):
        speaker = canonical_subject("I", event.actor, event.user_id)
        if speaker and speaker not in keys:
            keys.append(speaker)
    return keys


def anchored_claims(
    event: Any, claims: list[FactClaim], held_of: Callable[[list[str]], dict[tuple[str, str], list[str]]]
) -> list[FactClaim]:
    """``claims`` with the change the event states by the value it replaces: added, or put in
    place of a claim of the same new value that a rule filed under another slot ("the night
    crew has moved from DISPATCH-S to TG-SPARE-9" is the crew's talkgroup, not a home city).
    ``held_of(subject ids)`` gives the values those subjects' slots have held."""
    text = event.text or ""
    if event.kind not in CHANGE_KINDS or len(text) > MAX_TEXT_CHARS or text.lstrip().startswith("{") or not _MARKED.search(text):
        return claims
    changes = changes_in(text)
    if not changes:
        return claims  # most text: no store lookup
    held = {slot: value for slot, value in held_of(named_subjects(event)).items() if slot[1] not in MULTI_VALUED_ATTRIBUTES}
    found = anchored_change(text, held, changes) if held else None
    if found is None:
        return claims
    subject, attribute, new, _old = found
    same = [c for c in claims if c.subject == subject and value_key(c.value) == value_key(new)]
    if any(c.attribute == attribute for c in same):
        return claims
    confidence = ANCHORED_CONFIDENCE * min(1.0, float(event.confidence))
    # The old value was true until now (a change, not a correction): it is superseded, never
    # rejected, unless the rule's own claim read a correction ("…, not A").
    change = FactClaim(subject, subject, attribute, new, confidence, "rule:anchored-change")
    if same:
        change = replace(change, valid_from=same[0].valid_from, correction=same[0].correction, denied=same[0].denied)
    return [c for c in claims if c not in same] + [change]
