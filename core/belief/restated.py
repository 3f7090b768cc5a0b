"""Memories that say the same thing with one part changed: one statement form, another value.

A store keeps saying things in the same words: a status board's "ledger-writer in stable looks
in a brownout on the board." and, two months on, "ledger-writer in stable looks nominal on the
board."; a log line with a new reading; a rota line with another name. The rules may read neither
(no rule knows "looks ... on the board"), yet the two plainly state one slot: everything but one
span is the same. For a question about what is true, the newest of such a form written by an
established writer is the answer and the older ones are history, whatever the words are.

Two memories share a form when, after their words are lined up and a short lead-in only one of
them has is set aside ("Scratch that about tag 2025.4: …"), they differ in exactly one span that
both sides fill with words (a replacement, not an added "not" or "next quarter", nor
"!" for "."); what they share is
at least two thirds of the longer one and at least ``MIN_SHARED`` words; and the differing span is
short (``MAX_SPAN`` words). Dates and clock times are masked first when the raw words differ in
more than one span, so that a log line's timestamp does not hide its value. For a question, the
shared part must name something the question asks about, and the differing span nothing it
asks about: "Anna lives in Berlin" and "Ana lives in Berlin" differ in the asked name, not a
value; "svc in staging runs 2.1" and "svc in production runs 2.4" differ in two spans; "my
editor is Neovim" from two speakers is about two people. A span that hedges or negates ("is" /
"might be") is no value. Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from deltacore.belief.dates import date_key, is_date_key, says_date
from deltacore.belief.lexicon import FIRST_PERSON
from deltacore.belief.phrases import NEGATED, UNSURE
from deltacore.belief.questions import ASKING, word_fits
from deltacore.belief.slots import FUNCTION_WORDS

_TOKEN = re.compile(r"\w[\w.+#'’:/-]*[\w+#]|\w|[^\w\s]", re.UNICODE)
_DATE_OR_TIME = re.compile(
    r"^(?:\d{1,4}[-./]\d{1,2}[-./]\d{1,4}(?:[t ]?\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}:\d{2}(?::\d{2})?|\d{8}|"
    r"\d{1,2}[a-z]{3}\d{2,4}|\d{1,2}-[a-z]{3}-\d{2,4})$",
    re.IGNORECASE,
)
_WE = frozenset({"we", "us", "our", "ours"})
MIN_SHARED = 3
MAX_SPAN = 5
MAX_LEAD_IN = 8
_LEAD_IN_ENDS = frozenset({":", ",", "-", "–", "—", ";"})
MIN_ASKED = 3
"""Shorter question words ("on", "it") say nothing about what is asked."""


@dataclass(frozen=True)
class Said:
    """One found memory: its text, its time, and whether its writer is established (trusted
    namespace, a trusted score, not a newcomer) — only such a writer's newer word counts."""

    event_id: str
    text: str
    ts: float
    established: bool
    actor: str | None = None


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def asked_words(question: str) -> list[str]:
    """The question's words that say what it is about (subject, attribute cues)."""
    return [
        w for w in tokens(question)
        if w[0].isalnum() and w not in FUNCTION_WORDS and w not in ASKING and len(w) >= MIN_ASKED
    ]


def _names_asked(words: Sequence[str], asked: Sequence[str]) -> bool:
    return any(word_fits(a, w) for w in words if w[0].isalnum() for a in asked)


def _one_span(a: list[str], b: list[str]) -> tuple[int, int, int, int, int, int] | None:
    """Where two word lists differ in one replaced span, after at most one lead-in that only
    one of them has ("Scratch that about tag 2025.4:", "Update:"): the span's bounds and the
    lead-ins' lengths."""
    ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    lead_a = lead_b = 0
    if len(ops) == 2 and ops[0][1] == 0 and ops[0][3] == 0 and ops[0][0] in ("insert", "delete"):
        lead_a, lead_b = ops[0][2], ops[0][4]
        lead = a[:lead_a] or b[:lead_b]
        if lead[-1] not in _LEAD_IN_ENDS:
            return None  # "The status of Project Falcon is …" is another statement, not a lead-in
        ops = ops[1:]
    if len(ops) != 1 or ops[0][0] != "replace" or max(lead_a, lead_b) > MAX_LEAD_IN:
        return None
    return (*ops[0][1:], lead_a, lead_b)


def _masked(words: list[str]) -> list[str]:
    return ["<when>" if _DATE_OR_TIME.match(w) else w for w in words]


def required_words(question: str, subject: str | None) -> list[str]:
    """Words both memories must share for a question: the asked subject's, as the store knows
    it ("ledger-writer stable"), or else the names the question capitalises ("HALCYON")."""
    if subject:
        return tokens(subject)
    words = _TOKEN.findall(question)[1:]
    return [w.lower() for w in words if w[:1].isupper()]


def differing_span(a: str, b: str, asked: Sequence[str], required: Sequence[str] = ()) -> tuple[list[str], list[str]] | None:
    """The one span in which two memories differ, when they share a form for this question
    (``required``: words the shared part must hold, see :func:`required_words`)."""
    ta, tb = tokens(a), tokens(b)
    spans = _one_span(ta, tb)
    if spans is None:
        ta, tb = _masked(ta), _masked(tb)
        spans = _one_span(ta, tb)
    if spans is None:
        return None
    i1, i2, j1, j2, lead_a, lead_b = spans
    if UNSURE.search(" ".join(ta[:lead_a] + tb[:lead_b])) or NEGATED.search(" ".join(ta[:lead_a] + tb[:lead_b])):
        return None
    sa, sb, shared_words = ta[i1:i2], tb[j1:j2], ta[lead_a:i1] + ta[i2:]
    ta, tb = ta[lead_a:], tb[lead_b:]
    shared = len(shared_words)
    if shared < MIN_SHARED or 3 * shared < 2 * max(len(ta), len(tb)) or max(len(sa), len(sb)) > MAX_SPAN:
        return None
    if "<when>" in sa or "<when>" in sb or not any(w[0].isalnum() for w in sa) or not any(w[0].isalnum() for w in sb):
        return None
    if _names_asked(sa + sb, asked):
        return None
    if not _names_asked(shared_words, asked) or not set(required) <= set(shared_words):
        return None
    phrase = " ".join(sa + ["|"] + sb)
    if UNSURE.search(phrase) or NEGATED.search(phrase):
        return None
    return sa, sb


def _first_person(memory: Said) -> bool:
    return any(w in FIRST_PERSON or w in _WE for w in tokens(memory.text))


def _same_speaker(a: Said, b: Said) -> bool:
    """"My editor is Neovim" and "My editor is Sublime Text" share a form only from one speaker."""
    return not (_first_person(a) or _first_person(b)) or (a.actor is not None and a.actor == b.actor)


def _required(a: Said, b: Said, required: list[str]) -> list[str]:
    """The subject speaking of themself names the subject: nothing more is required."""
    if required and _first_person(a) and _first_person(b) and a.actor and tokens(a.actor) == required:
        return []
    return required


def restated_forms(question: str, memories: Sequence[Said], subject: str | None = None) -> list[list[int]]:
    """Groups of memories (indices, in the given order) that state one form with different
    values; a memory belongs to at most one group. ``subject``: the asked subject, if known."""
    asked, required = asked_words(question), required_words(question, subject)
    if not asked:
        return []
    parent = list(range(len(memories)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(memories)):
        for j in range(i + 1, len(memories)):
            if root(i) != root(j) and _same_speaker(memories[i], memories[j]) and differing_span(memories[i].text, memories[j].text, asked, _required(memories[i], memories[j], required)) is not None:
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(memories)):
        groups.setdefault(root(i), []).append(i)
    return [members for members in groups.values() if len(members) > 1]


def newest_first(memories: Sequence[Said], members: Sequence[int]) -> list[int]:
    """A group's order for a question about now (or as of a time, the group already cut to it):
    established writers' memories newest first, then the others in their found order."""
    established = sorted((i for i in members if memories[i].established), key=lambda i: (-memories[i].ts, i))
    return established + [i for i in members if not memories[i].established]


def _content(words: Sequence[str]) -> list[str]:
    return [w for w in words if w not in FUNCTION_WORDS and w[0].isalnum()]


def says_words(words: Sequence[str], value_key: str) -> bool:
    if is_date_key(value_key):  # a date's key is one spelling; the words may say another
        return says_date(" ".join(words), value_key)
    return bool(value_key) and f" {value_key} " in f" {' '.join(words)} "


def _is_value(span: Sequence[str], value_key: str) -> bool:
    if is_date_key(value_key):
        return date_key(" ".join(span)) == value_key
    return _content(span) == _content(tokens(value_key))


def says_value(text: str, value_key: str, attribute: str) -> bool:
    """The text names the (normalised) value as whole words and a word of the slot's name
    ("carries tag 2025.4" of a tag; not "Selma booked the spectrophotometer" of a custodian)."""
    words = tokens(text)
    named = any(word_fits(a, w) for a in attribute.split() if len(a) >= MIN_ASKED for w in words if w[0].isalnum())
    return named and says_words(words, value_key)


def newer_restatement(
    question: str, stated: Sequence[Said], found: Sequence[Said], value_key: str, subject: str
) -> Said | None:
    """The first of ``found`` (already newer than the stored value) by an established writer
    that states the form of one of ``stated`` (the stored value's own memories) with something
    other than the stored value: "thumbnailer in canary carries tag 2025.7." after the stored
    "… carries tag 2025.4."; both name the value's ``subject``."""
    asked, required = asked_words(question), required_words(question, subject)
    if not asked:
        return None
    for memory in found:
        if not memory.established:
            continue
        for own in stated:
            if not _same_speaker(own, memory):
                continue
            spans = differing_span(own.text, memory.text, asked, _required(own, memory, required))
            # what changed is the value itself: the stored value on one side, not on the other
            if spans is not None and _is_value(spans[0], value_key) and not says_words(spans[1], value_key):
                return memory
    return None
