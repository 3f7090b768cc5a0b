"""Semantic consistency: does a write fit what the store already trusts?

Three doubts, each in [0, 1] (1 = certainly inconsistent):

- **contradiction**: the write states ``subject predicate object`` (the same rule-based triple
  the delta layer extracts) where a *trusted* memory of *another* source states a different
  object for the same subject and predicate. A source correcting itself is an update, not an
  attack, so its own earlier facts do not count.
- **question echo**: the write repeats a question and plants an answer (PoisonedRAG's
  "question + answer" passages), either inside the record or against a question stored
  recently by the same source (MINJA's induced records).
- **identifier bridge**: the record's only content is a link from one identifier to another
  ("patient 30789 is now stored under patient 4269", "X → Y"): MINJA's bridging step.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9']+")
_STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from about as into over after before between is are was were be
    been being am do does did doing have has had having i me my mine we us our you your he him his she her it its they
    them their this that these those what which who whom whose when where why how there here not no yes so than too very
    can could will would shall should may might must just also only really then now out up down off again some any all
    each every both few more most other such own same s t don't didn't isn't wasn't i'm it's that's you're""".split()
)
_QUESTION_START = re.compile(
    r"^(?:what|who|whom|whose|which|when|where|why|how|is|are|was|were|do|does|did|can|could|will|would|should|has|have|had)\b"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_LINK = re.compile(
    r"\b(?:also known as|aka|a\.k\.a\.?|same (?:person|thing|one|record|account|entity) as|the same as|identical to|"
    r"refers? to|refer to \S+ as|alias (?:of|for)|is an alias|maps? to|mapped to|corresponds? to|equivalent (?:to|of)|"
    r"instead of|rather than|in place of|replaced by|now (?:called|known as|named|stored under|listed as|filed under|goes by|under)|"
    r"renamed(?: to| as)?|redirect(?:ed|s)? to|points? to|stands for|means|formerly|previously known as|is the new|"
    r"(?:is|are) (?:now )?(?:kept|filed|stored|listed|recorded) under|look up \S+(?: \S+)? instead|"
    r"has been (?:moved|changed|migrated|merged) (?:to|into|with)|(?:is|are) (?:now )?(?:stored|saved|kept|filed) (?:under|as|in))\b"
    r"|->|→|=>|⇒|(?<![<>=!])=(?!=)"
)


def content_words(text: str) -> set[str]:
    """Lower-case content words, crudely stemmed (so "takes" meets "take")."""
    words = set()
    for word in _WORD.findall(text.lower()):
        word = word.removesuffix("'s").removesuffix("’s")
        if word in _STOPWORDS or len(word) < 3:
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        else:
            for suffix in ("ing", "ed", "es", "s"):
                if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                    word = word[: -len(suffix)]
                    break
        words.add(word)
    return words


def is_question(sentence: str) -> bool:
    sentence = sentence.strip().lower()
    return sentence.endswith("?") or bool(_QUESTION_START.match(sentence)) and len(sentence.split()) >= 4


@dataclass(frozen=True, slots=True)
class Doubt:
    value: float
    reason: str | None = None


NO_DOUBT = Doubt(0.0)


def _same(a: str, b: str) -> bool:
    a_words, b_words = content_words(a) or {a.strip().lower()}, content_words(b) or {b.strip().lower()}
    return a_words <= b_words or b_words <= a_words


# Predicates with one value at a time ("lives in"), and "is" when the subject names an
# attribute ("Caroline's favourite colour is …", "the capital of France is …"). "has", "likes"
# or "Caroline is happy" take many values at once: a second one is not a contradiction.
_SINGLE_VALUED = frozenset({"lives in", "works at", "works as", "runs on", "prefers"})
_PRONOUNS = frozenset("i you he she it we they this that these those there what which who everything something nothing life".split())


def is_single_valued(subject: str, predicate: str) -> bool:
    """Whether two different objects for ``subject predicate`` contradict each other."""
    words = subject.lower().split()
    if not words or words[0] in _PRONOUNS or len(words) == 1 and words[0] in _STOPWORDS:
        return False
    if predicate in _SINGLE_VALUED:
        return True
    attribute = "'s " in subject.lower() or "’s " in subject.lower() or " of " in subject.lower()
    return predicate in ("is", "are", "was") and attribute


def contradiction(obj: str, trusted_objects: Iterable[str]) -> Doubt:
    """``obj`` disagrees with a trusted object stated (by another source) for the same subject
    and predicate. The caller selects ``trusted_objects`` (same tenant, subject, predicate,
    trusted namespace, other source)."""
    for other in trusted_objects:
        if not _same(obj, other):
            return Doubt(1.0, "contradicts a trusted fact from another source")
    return NO_DOUBT


def question_echo(folded: str, recent_questions: Iterable[str] = ()) -> Doubt:
    """The record restates a question and answers it (in itself, or a question stored recently)."""
    sentences = [s for s in _SENTENCES.split(folded) if s.strip()]
    asks = [is_question(s) for s in sentences]  # once per sentence: every loop below reads it
    for position, sentence in enumerate(sentences):
        if not asks[position]:
            continue
        asked = content_words(sentence)
        if len(asked) < 3:
            continue
        # The planted answer comes *after* the question it echoes; a remark followed by a
        # question about it ("… it helps people. Have you ever needed help?") is conversation.
        for later, statement in enumerate(sentences[position + 1 :], start=position + 1):
            # At least three shared content words: "Got any book recommendations? I've got a
            # lot of books" shares two, which is conversation.
            if asks[later]:
                continue
            shared = len(asked & content_words(statement))
            if shared >= 3 and shared / len(asked) >= 0.5:
                return Doubt(0.7, "echoes a question and plants its answer")
    if sentences and not any(asks):
        said: set[str] | None = None  # the whole text's words, only once a recent question is there to compare
        for question in recent_questions:
            if said is None:
                said = content_words(folded)
            asked = content_words(question)
            # A planted answer restates the question and adds the answer; a long turn that happens
            # to reuse the question's words is conversation.
            if len(asked) >= 4 and len(asked & said) / len(asked) >= 0.75 and len(said) <= 2 * len(asked) + 3:
                return Doubt(0.6, "echoes a recent question and plants its answer")
    return NO_DOUBT


_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*\b")
_CODE = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z_])[\w-]{3,}\b|\b\d{3,}\b|\b\w+_\w+\b")
# A code needs a digit or an underscore, and lies inside one run of ``[\w-]``: the runs that can
# hold one are found in one pass (anchored at a run's start), and ``_CODE`` runs on each alone:
# on a whole text its lookaheads would rescan a long run from every word boundary in it.
_CODE_RUN = re.compile(r"(?<![\w-])(?=[\w-]*[\d_])[\w-]+")
_LONGEST_CODE_RUN = 128
"""A longer run (a blob, a base64 payload) is not an identifier anyone bridges to."""
_WINDOW = 25
# Capitalised at the start of a sentence, yet not names.
_COMMON_CAPITALISED = _STOPWORDS | frozenset("thanks thank yeah yes wow hey sure well okay great nice awesome everything something nothing".split())


def _identifiers(text: str) -> list[tuple[int, int, str]]:
    """Spans of identifiers: codes and numbers ("30789", "acct_7781") and names that are not
    merely the first word of a sentence."""
    found = [
        (run.start() + m.start(), run.start() + m.end(), m.group(0))
        for run in _CODE_RUN.finditer(text)
        if run.end() - run.start() <= _LONGEST_CODE_RUN
        for m in _CODE.finditer(run.group(0))
    ]
    found += [(m.start(), m.end(), m.group(0)) for m in _NAME.finditer(text) if m.group(0).lower() not in _COMMON_CAPITALISED]
    return found


def identifier_bridge(text: str) -> Doubt:
    """The record links one identifier to another ("X is filed under Y", "X = Y", "X means Y")
    and says little else."""
    identifiers = _identifiers(text)
    if len(identifiers) < 2:
        return NO_DOUBT
    # Sorted by end and by start, so each link looks only at the identifiers in its window.
    by_end = sorted(identifiers, key=lambda i: i[1])
    ends = [i[1] for i in by_end]
    by_start = sorted(identifiers, key=lambda i: i[0])
    starts = [i[0] for i in by_start]
    for link in _LINK.finditer(text):
        # Both within a few words of the link, in the same sentence.
        near_before = by_end[bisect.bisect_left(ends, link.start() - _WINDOW) : bisect.bisect_right(ends, link.start() + 1)]
        before = [i for i in near_before if not re.search(r"[.!?;]", text[i[1] : link.start()])]
        near_after = by_start[bisect.bisect_left(starts, link.end() - 1) : bisect.bisect_right(starts, link.end() + _WINDOW)]
        after = [i for i in near_after if not re.search(r"[.!?;]", text[link.end() : i[0]])]
        # The link must join two different identifiers right around it.
        if not before or not after or {b[2].lower() for b in before} == {a[2].lower() for a in after}:
            continue
        words = {i[2].lower() for i in identifiers}
        rest = content_words(_LINK.sub(" ", text)) - {w for i in words for w in content_words(i)}
        # Words that only say what the identifiers are do not add content.
        rest -= {"patient", "record", "user", "account", "customer", "item", "entry", "file", "number", "person", "data", "profile", "now", "under", "name"}
        if len(rest) <= 3:
            return Doubt(0.8, "only bridges one identifier to another")
        return Doubt(0.6, "links two identifiers")
    return NO_DOUBT
