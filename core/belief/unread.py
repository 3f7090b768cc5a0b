"""Newer memories the rules could not read, that may say a slot's value changed.

Extraction that is unsure makes no fact, so a value can change in words no rule reads ("Karen
is the fire warden at the Ropewalk office", "Rolled webhook-fanout in stable forward to tag
2025.28") while the store still holds the old value as current. Such a memory cannot supersede
anything: the store does not know what it says. But when a question asks for the slot's value
now, a reader should see it before the stored value, not below it.

A memory found for the question is *unread evidence* about the slot when it was written after
the slot's value was last observed and after it took effect, by a writer in the trusted
namespace; the rules read no fact in it; it names the slot's subject (or, in the first person,
is the subject speaking); it says a word of the slot's name that no other slot of the subject has
("warden" for a fire warden, not "fire" when the office also has a fire drill date), and not after
another qualifier ("my billing address" is no delivery address); it states no hedge, plan,
question or negation; it says something of the value's shape (a digit for a date or a number, a
capitalised word other than the subject's for a name); and it names no value the slot ever held,
except as the old side of a change ("awaiting parts => in service"): a restatement of an old
value is history, not news. Unsure means no.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deltacore.belief.dates import is_date_key, says_date
from deltacore.belief.lexicon import FIRST_PERSON, canonical_subject
from deltacore.belief.open_slots import value_shape
from deltacore.belief.phrases import NEGATED, UNSURE
from deltacore.belief.questions import word_fits
from deltacore.belief.slots import FUNCTION_WORDS

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CHANGE_MARK = re.compile(r"=>|->|→|\bto\b")
_DETERMINERS = frozenset({"my", "our", "your", "his", "her", "their", "this", "that", "s", "new", "current"})
MIN_ATTRIBUTE_WORD = 3
"""Shorter words of a slot's name ("id", "on") say nothing about which slot a memory is about."""


@dataclass(frozen=True)
class Candidate:
    """A memory the query found in which the rules read no fact, as the check needs it."""

    event_id: str
    text: str
    ts: float
    actor: str | None
    trusted: bool


def newer_unread(
    fact: dict[str, Any], held_values: Iterable[str], other_attributes: Iterable[str], candidates: Sequence[Candidate]
) -> Candidate | None:
    """The first of ``candidates`` (in the query's order) that is unread evidence about the slot
    of ``fact`` (a stored fact row: subject, subject_name, attribute, value, last_observed), or
    None. ``held_values`` are the value keys the slot ever had; ``other_attributes`` the names of
    the subject's other slots."""
    subject_words = _words(fact["subject_name"])
    own = _own_words(fact["attribute"], other_attributes, subject_words)
    if not own:
        return None
    held = [v for v in held_values if v]
    # Newer than the value's last observation and than its start ("from 1 February" said in
    # December): a memory in between restates what held before.
    since = max(float(fact["last_observed"]), float(fact.get("valid_from") or 0.0))
    shape = value_shape(fact["value"])
    slot_words = set(_words(fact["attribute"]))
    for candidate in candidates:
        if not candidate.trusted or candidate.ts <= since:
            continue
        text = candidate.text
        words = _words(text)
        if not _names_subject(words, subject_words, candidate.actor, fact["subject"]):
            continue
        if not any(word_fits(slot_word, token) for slot_word in own for token in words if token not in subject_words):
            continue
        if _otherwise_qualified(words, _words(fact["attribute"]), subject_words):
            continue
        if UNSURE.search(text) or NEGATED.search(text):
            continue
        if not _says_a_value(text, shape, set(subject_words) | slot_words):
            continue
        if _restates(text.casefold(), held):
            continue
        return candidate
    return None


def _says_a_value(text: str, shape: str, named: set[str]) -> bool:
    """A date or a number is said with a digit; a name with a capitalised word that is not the
    subject's, the slot's or a function word ("lol Dana spilled coffee on the manager's desk"
    names no new manager)."""
    if shape in ("date", "number"):
        return any(ch.isdigit() for ch in text)
    if shape == "name":
        return any(
            w[:1].isupper() and w.casefold() not in named and w.casefold() not in FUNCTION_WORDS and w.casefold() not in FIRST_PERSON
            for w in _WORD.findall(text)
        )
    return True


def _otherwise_qualified(words: list[str], slot: list[str], subject_words: list[str]) -> bool:
    """The slot's head noun is said after a word its name does not have: "my billing address"
    is not the delivery address."""
    if len(slot) < 2:
        return False
    head = slot[-1]
    allowed = set(slot) | set(subject_words) | FUNCTION_WORDS | _DETERMINERS
    return any(
        word_fits(head, token) and before not in allowed and not before.isdigit() for before, token in zip(words, words[1:])
    )


def _restates(folded: str, held: list[str]) -> bool:
    """A value the slot held is named, other than as the old side of a change ("awaiting parts =>
    in service", "changed from Dariusz to Dariush")."""
    after = _CHANGE_MARK.split(folded)[-1]
    return any(
        says_date(after, v) if is_date_key(v) else re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", after) for v in held
    )


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _own_words(attribute: str, others: Iterable[str], subject_words: list[str]) -> list[str]:
    """The words of the slot's name that tell it from the subject's other slots."""
    shared = {w for other in others if other != attribute for w in _words(other)}
    return [
        w for w in _words(attribute)
        if len(w) >= MIN_ATTRIBUTE_WORD and w not in FUNCTION_WORDS and w not in shared and w not in subject_words
    ]


def names_subject(text: str, actor: str | None, subject: str) -> bool:
    """``text`` (written by ``actor``) names ``subject`` (a canonical subject key): every word of
    its name is said, or the subject speaks of themself."""
    return _names_subject(_words(text), _words(subject), actor, subject)


def _names_subject(words: list[str], subject_words: list[str], actor: str | None, subject: str) -> bool:
    """Every word of the subject's name is said (a plural counts: "pallet wrappers"), or the
    subject speaks of themself."""
    said = set(words)
    if subject_words and all(w in said or f"{w}s" in said or f"{w}es" in said for w in subject_words):
        return True
    return bool(actor) and canonical_subject(actor) == subject and bool(said & FIRST_PERSON)
