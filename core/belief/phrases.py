"""Phrase patterns the rule extractor shares, and the readings of verb phrases nothing names.

``change_reading`` finds a change that names the value it replaces ("X swapped A for B", "X went
from A to B"); ``noun_reading`` a value said as the modifier of the slot's noun ("X is in the
build phase"); ``open_predicate`` says whether a predicate may name a slot at all. They make
*open* claims: :mod:`deltacore.belief.open_slots` decides, against the subject's existing slots,
whether one becomes a fact.
"""

from __future__ import annotations

import re

from deltacore.belief.grammar import name_span
from deltacore.belief.lexicon import FIRST_PERSON, clean
from deltacore.belief.slots import FUNCTION_WORDS

SUBJECT = r"(?P<subject>I|[Mm]y|[Tt]he user|(?:[Tt]he\s+)?[A-Za-z][\w.&-]*(?:\s+[A-Za-z][\w.&-]*){0,2}?)"
AUX = r"(?:\s*(?:'ve|’ve|'s|’s|'m|’m)|\s+(?:has|have|am|is))?(?:\s+been)?(?:\s+(?:just|recently|now|finally|since|also|still))?"
VALUE = r"(?P<value>[^,;]{1,60}?)"

# A change that names the value it replaces ("X swapped A for B", "X went from A to B"): the old
# value identifies the slot, whatever the verb (the layer finds the one slot whose current value
# it is, or drops the claim). Only verbs of exchange and change of state: "flew from A to B" is a
# trip, not a change.
_EXCHANGE = r"(?:traded|swapped|exchanged|replaced|substituted|dropped|ditched|gave\s+up(?:\s+on)?)"
_CHANGE_VERB = (
    r"(?:moved|switched|changed|went|migrated|shifted|transitioned|transferred|relocated|upgraded|downgraded|"
    r"bumped|rolled\s+(?:back|forward)|slipped|pushed|promoted|converted|ported|flipped|progressed|advanced|"
    r"rotated|handed\s+over|passed)"
)
_OLD = r"(?P<old>[^,;]{1,40}?)"
_CHANGE_FOR = re.compile(rf"^{SUBJECT}{AUX}\s+(?P<verb>{_EXCHANGE})\s+{_OLD}\s+(?:for|with|in\s+favou?r\s+of)\s+{VALUE}$")
_CHANGE_FROM_TO = re.compile(rf"^{SUBJECT}{AUX}\s+(?P<verb>{_CHANGE_VERB})(?:\s+over)?\s+from\s+{_OLD}\s+(?:to|into|onto)\s+{VALUE}$")
# "Project Quill is in the build phase", "Noor joined the platform team": the value as the modifier
# of a noun that names the slot. Only verbs of being, belonging and change of state ("visited the
# platform team" is no membership), and only a slot the subject already has by that noun.
_NOUN_VERBS = (
    r"(?:(?:is|are|sits|stays|remains|belongs)\s+)?(?:now\s+)?"
    r"(?:in|on|at|part\s+of|(?:a\s+)?member\s+of|with|entered|joined|rotated\s+into|moved\s+(?:in)?to|switched\s+to|transferred\s+to|went\s+(?:in)?to|"
    r"runs\s+on|uses|is\s+using|is\s+running|follows|(?:gone|went)\s+over\s+to|moved\s+onto|enrolled\s+in)"
    r"\s+(?:the|a|an)\s+(?P<value>[\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?P<noun>[a-z]{3,})$"
)
_NOUN_VALUE = re.compile(rf"^{SUBJECT}{AUX}\s+{_NOUN_VERBS}")
# The same of a thing named by where it is: "the kiosk in the west wing follows the beta channel".
_PLACED_NOUN_VALUE = re.compile(
    rf"^(?P<subject>(?:[Tt]he\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}\s+in\s+the\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}?)"
    rf"{AUX}\s+{_NOUN_VERBS}"
)
# A predicate naming another person or thing by pronoun relates two parties ("told me about"):
# never a slot of the subject.
_PRONOUNS = frozenset({"me", "you", "him", "her", "us", "them", "my", "your", "his", "their", "our", "it", "this", "that"})
MAX_OPEN_CONTENT_WORDS = 3
_ARTICLE_WORDS = frozenset({"the", "a", "an"})
UNITS = frozenset({"team", "squad", "group", "department", "unit", "crew", "guild", "chapter", "tribe", "pod"})
# Hedges, plans, questions and reported past: a sentence saying one of these states no current value.
UNSURE = re.compile(
    r"\?|\b(?:if|maybe|perhaps|might|could|would|should|probably|possibly|wants? to|plans? to|planning|will|"
    r"going to|hopes? to|thinks?|think|believes?|wonder|unless|whether|supposedly|rumou?red|allegedly|"
    r"used to|once|sometimes|had)\b|\b(?:was|were)\b(?!\s+\w+(?:ed|en)\s+(?:to|by|over|into)\b|\s+(?:marked|flagged|listed)\b)",
    re.IGNORECASE,
)
# A negated statement says what a value is not.
NEGATED = re.compile(r"\b(?:not|never|no longer|nobody|none|no)\b|n't\b|n’t\b", re.IGNORECASE)


def name_phrase(text: str) -> bool:
    """Every word of ``text`` belongs to a name ("the staging deployment of billing-api", "my"),
    not a description ("the office party from Nora")."""
    words = text.split()
    return bool(words) and (text.casefold() in FIRST_PERSON or name_span(words) == len(words))


def open_predicate(predicate: str) -> bool:
    """A verb phrase that may name a slot: one to three content words, no pronoun (a relation to
    another party), nothing but words ("told me about", "is" and "in" are no predicates)."""
    words = predicate.split()
    if not words or any(w in _PRONOUNS or not w.replace("-", "").isalpha() for w in words):
        return False
    content = [w for w in words if w not in FUNCTION_WORDS]
    return 1 <= len(content) <= MAX_OPEN_CONTENT_WORDS


def noun_reading(s: str, embeds: bool) -> tuple[str, str, str, float, str] | None:
    """(subject, noun, value, confidence, rule) of "X is in the build phase"; the layer keeps it
    only for a slot the subject has by that noun."""
    if not embeds:
        return None
    if (m := _NOUN_VALUE.match(s)) is None or not name_phrase(m["subject"]):
        if " in the " not in s or (m := _PLACED_NOUN_VALUE.match(s)) is None:
            return None
    if m["value"].split()[0].casefold() in _ARTICLE_WORDS:
        return None
    return m["subject"], m["noun"], m["value"], 0.85, "noun"

# "The ECG machine on Ward 7A was upgraded to 2025.11 (previously 2025.8)": a change whose old
# value the sentence gave apart; only read when it did (the old value finds the slot).
_CHANGED_TO = re.compile(
    rf"^(?P<subject>(?:[Tt]he\s+)?[\w][\w.&' -]{{0,60}}?)\s+(?:was|has\s+been|have\s+been|got|has|have)\s+(?:just\s+)?"
    rf"(?P<verb>{_CHANGE_VERB})\s+(?:to|into|onto)\s+{VALUE}$"
)


def changed_to(s: str) -> tuple[str, str, str, float, str] | None:
    """(subject, predicate, new value, confidence, rule) of "X was upgraded to V"; the caller
    holds the old value the sentence named apart ("(previously W)")."""
    if (m := _CHANGED_TO.match(s)) is None:
        return None
    value = clean(m["value"])
    if not value or (not name_phrase(value) and not any(ch.isdigit() for ch in value)):
        return None
    return m["subject"], " ".join(m["verb"].split()), value, 0.85, "change"


def change_reading(s: str) -> tuple[str, str, str, float, str, str] | None:
    """A change naming the value it replaces: (subject, predicate, new value, confidence,
    rule, old value). The slot is named by the lexicon when the value says it (a language),
    else found by the layer from the old value."""
    for pattern in (_CHANGE_FOR, _CHANGE_FROM_TO):
        if (m := pattern.match(s)) is None:
            continue
        old, value = clean(m["old"]), re.sub(r"^(?:a|an)\s+", "", clean(m["value"]))  # "with a Honda Jazz"
        words = value.split()
        if not old or not words or (not name_phrase(value) and not any(ch.isdigit() for ch in value)):
            return None  # "went from Berlin to Lisbon for the weekend": a trip, not a change
        return m["subject"], " ".join(m["verb"].split()), value, 0.85, "change", old
    return None

