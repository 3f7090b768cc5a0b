"""Which fact slot a question asks about: its subject, named as the store knows it, and an
attribute cue ("where does Anna live" → Anna's home city). Pure and deterministic.

Unsure means no slot: a question that names no known subject, or whose cues fit none or two of
the subject's attributes equally, is left to ordinary retrieval.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from deltacore.belief.dates import is_date_key, says_date
from deltacore.belief.lexicon import (
    ATTRIBUTES,
    BROADER,
    ENVIRONMENTS,
    KEY_SUFFIXES,
    MULTI_VALUED_ATTRIBUTES,
    PLACING_WORDS,
    TYPE_NOUNS,
    WORD_SENSE,
    canonical_subject,
)
from deltacore.belief.open_slots import value_shape
from deltacore.belief.slots import FUNCTION_WORDS, content_words

_WORD = re.compile(r"[\w][\w.+#'’-]*", re.UNICODE)
MAX_SUBJECT_WORDS = 4
MAX_PLACED_SIDE = 3

# Question-side cues per normalised attribute: how people ask, beside the attribute's own names.
_CUES: dict[str, tuple[str, ...]] = {
    "home city": (r"\bliv(?:e|es|ed|ing)\b", r"\bbased\b", r"\bhome\b", r"\bresid", r"\bhometown\b"),
    "work city": (r"\bwork(?:s|ed|ing)? (?:in|from|out of)\b", r"\boffice\b", r"\bwhere\b.*\bwork"),
    "employer": (r"\bwork(?:s|ed|ing)? (?:for|at)\b", r"\bemploy", r"\bcompany\b", r"\bfirm\b", r"\bon (?:the )?staff\b", r"\bpayroll\b"),
    "preferred language": (r"\blanguage\b", r"\bprogramming\b", r"\bcod(?:e|es|ing) in\b"),
    "job title": (r"\brole\b", r"\bjob\b", r"\btitle\b", r"\bposition\b", r"\boccupation\b", r"\bwork(?:s)? as\b"),
    "status": (r"\bstatus\b", r"\bhealth(?:y)?\b", r"\bup or down\b"),
    "version": (r"\bversion\b", r"\brelease\b"),
    "owner": (r"\bown(?:s|ed|er|ership)?\b", r"\bmaintain", r"\blooks? after\b", r"\bstewards?\b",
              r"\b(?:squad|team|group|unit)\b.*\bresponsible for\b"),
    "manager": (r"\bmanager\b", r"\bboss\b", r"\breports? to\b"),
    "lead": (r"\blead(?:s|ing|er)?\b", r"\bled\b"),
    "on call": (r"\bon[- ]call\b",),
    "deadline": (r"\bdue\b", r"\bdeadline\b"),
    "region": (r"\bregion\b", r"\bhosted\b"),
    "commute": (r"\bcommut", r"\bgets? (?:in|to work)\b", r"\bcomes? in\b"),
    "dentist": (r"\bdental\b", r"\bdentists?\b"),
    "location": (r"\broom\b", r"\bvenue\b", r"\bheld (?:in|at)\b", r"\bmeets? (?:in|at)\b"),
}
_COMPILED = {attribute: [re.compile(c, re.IGNORECASE) for c in cues] for attribute, cues in _CUES.items()}


def subject_keys(text: str) -> list[str]:
    """Canonical subject ids a question may name: every run of up to four words."""
    words = [w.rstrip(".'’") for w in _WORD.findall(text)]
    keys: list[str] = []
    for size in range(1, MAX_SUBJECT_WORDS + 1):
        for start in range(len(words) - size + 1):
            key = canonical_subject(" ".join(words[start : start + size]))
            if key and key not in keys:
                keys.append(key)
    # A thing named by where it is takes more words: "the fume hood in the upstairs lab", "the
    # reach truck on the North Yard".
    folded = [w.casefold() for w in words]
    # A place with a name of its own needs no article: "the smoke alarm in Flat A".
    for i in range(1, len(words) - 1):
        if folded[i] not in PLACING_WORDS:
            continue
        first = i + 2 if folded[i + 1] == "the" else i + 1
        if first == i + 1 and not words[first][:1].isupper():
            continue
        for start in range(max(0, i - MAX_PLACED_SIDE), i):
            for end in range(first + 1, min(len(words), first + MAX_PLACED_SIDE) + 1):
                key = canonical_subject(" ".join(words[start:i] + [words[i], "the"] + words[first:end]))
                if key and key not in keys:
                    keys.append(key)
    # "Which contractor maintains the reach trucks?" asks about the kind of thing, "reach truck".
    for key in list(keys):
        singular = _singular(key)
        if singular != key and singular not in keys:
            keys.append(singular)
    # One environment named anywhere qualifies the subject ("which version of billing-api runs
    # in production?" asks about "billing-api production", however many words sit between).
    envs = {ENVIRONMENTS[w.casefold()] for w in words if w.casefold() in ENVIRONMENTS}
    if len(envs) == 1:
        env = envs.pop()
        for key in list(keys):
            if env not in key.split():
                qualified = canonical_subject(f"{key} {env}")
                if qualified and qualified not in keys:
                    keys.append(qualified)
    return keys


def _singular(key: str) -> str:
    """The key with its last word in the singular ("reach trucks" → "reach truck")."""
    head, _, last = key.rpartition(" ")
    if len(last) <= MIN_STEM or not last.endswith("s") or last.endswith(("ss", "us", "is")):
        return key
    one = last[:-2] if last.endswith(("ches", "shes", "xes", "sses")) else last[:-1]
    return f"{head} {one}".strip()


def attribute_score(text: str, attribute: str) -> int:
    """How many cues of ``attribute`` the question carries (its own words count too)."""
    folded = text.casefold()
    score = sum(1 for cue in _COMPILED.get(attribute, ()) if cue.search(folded))
    names = {attribute, *(syn for syn, name in ATTRIBUTES.items() if name == attribute)}
    return score + sum(_name_said(folded, name) for name in names)


def _name_said(text: str, name: str) -> int:
    """How many words of ``name`` the question says, when it says them all."""
    tokens = set(re.findall(r"[\w]+", text.casefold()))
    parts = re.findall(r"[\w]+", name)
    return len(parts) if parts and all(any(_inflected(p, t) for t in tokens) for p in parts) else 0


MIN_STEM = 4
MAX_ENDING = 3


def _inflected(word: str, token: str) -> bool:
    """``token`` is ``word`` or an inflection of it ("coach" / "coaches", "coached", "coaching"):
    a question says "who coaches Noor?" of the slot "coach"."""
    return token == word or (
        len(word) >= MIN_STEM and token.startswith(word) and len(token) - len(word) <= MAX_ENDING
    )


# Words of a question that ask, not what about: left out of the phrase compared with the slots.
ASKING = frozenset(
    {"who", "whom", "whose", "what", "which", "where", "when", "how", "does", "do", "did", "is", "are", "was", "were",
     "has", "have", "the", "a", "an", "now", "currently", "these", "days", "today", "right", "nowadays", "still", "at",
     "moment", "of", "for", "in", "on", "to", "by", "with", "s", "present", "presently", "anymore", "again", "tell",
     "me", "please"}
)
"""Words that ask rather than say what is asked about ("tell me who coaches Noor these days?")."""


def asked_phrase(text: str, subject: str) -> str:
    """What a question asks about its subject, in its own words ("who coaches Noor these days?"
    about Noor → "coaches"): the question without the subject's words, environment words and
    the words that only ask."""
    own = set(subject.split())
    words = [w.rstrip(".'’").casefold() for w in _WORD.findall(text)]
    kept = [
        w for w in words
        if w not in ASKING and w not in ENVIRONMENTS and w not in TYPE_NOUNS and (canonical_subject(w) or w) not in own
        and _singular(w) not in own and not w.endswith(("'s", "’s"))
    ]
    return " ".join(kept)


def question_slot(
    text: str,
    slots: Iterable[tuple[str, str]],
    matcher: Any | None = None,
    values: Callable[[str], dict[str, str]] | None = None,
) -> tuple[str, str] | None:
    """The one (subject, attribute) among the store's ``slots`` the question asks about.

    A cue or the slot's whole name decides first. When none fits, the question's own words
    are matched word by word with the subject's slot names (inflections, derivations, the
    lexicon's senses: "who is responsible for …" names "responsible person"), then by the
    shape of the value asked for ("when …?" of the one slot holding a date; ``values`` gives
    a subject's current values), then, with ``matcher`` (a
    :class:`~deltacore.belief.slots.SlotMatcher`), by embedding similarity with the matcher's
    threshold and margin. Unsure is no slot."""
    keys = subject_keys(text)
    # A many-valued slot ("likes") has no one value to answer with.
    named = [slot for slot in slots if slot[0] in keys and slot[1] not in MULTI_VALUED_ATTRIBUTES]
    if not named:
        return None
    # Of the slots the question's words fit, the longest subject named wins ("api staging"
    # over "api"); a longer subject without a fitting attribute does not hide a shorter one
    # that has it ("who owns api in staging?": the owner is the service's, not the deployment's).
    fitting = [(attribute_score(text, attribute), (subject, attribute)) for subject, attribute in named]
    fitting = [pair for pair in fitting if pair[0] > 0]
    if not fitting:
        subject = _named_subject(named)
        if subject is None:
            return None
        attributes = sorted(a for s, a in named if s == subject)
        slot = _by_words(text, subject, attributes, values)
        if slot is None and matcher is not None:
            slot = _by_meaning(text, subject, attributes, matcher)
        return (subject, slot) if slot is not None else None
    longest = max(len(slot[0]) for _, slot in fitting)
    # Equal cues, the slot whose whole name the question says in more words wins: "who is the
    # lead clinician?" asks for the "lead clinician", not the "lead".
    scored = sorted(
        (((score, _name_said(text, slot[1])), slot) for score, slot in fitting if len(slot[0]) == longest), reverse=True
    )
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    subject, attribute = scored[0][1]
    wanted = wanted_shapes(text) & {"date", "time"}
    if wanted and values is not None:
        held = values(subject).get(attribute)
        if held is not None and answer_shape(held) not in wanted:
            return None  # "when is Tim attending a book conference?" asks no book
    return subject, attribute


def value_named(text: str, values: Sequence[str]) -> str | None:
    """The one of ``values`` (normalised keys) the question names ("before Berlin" → berlin)."""
    folded = text.casefold()
    found = [
        v for v in values
        if v and (says_date(text, v) if is_date_key(v) else re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", folded))
    ]
    return max(found, key=len) if found else None


def slot_holding(text: str, held: dict[tuple[str, str], Sequence[str]]) -> tuple[str, str] | None:
    """For "what was X's … before V?" whose words name no slot: the one slot of ``held`` (slot →
    the normalised values it ever held) with the value the question names. Two slots holding it
    (a home and a work city both once Berlin) is unsure: no slot."""
    named = value_named(text, sorted({v for values in held.values() for v in values}))
    if named is None:
        return None
    holding = [slot for slot, values in held.items() if named in values and slot[1] not in MULTI_VALUED_ATTRIBUTES]
    return holding[0] if len(holding) == 1 else None


def _named_subject(named: list[tuple[str, str]]) -> str | None:
    """The subject named by most words, when only one is ("billing-api staging" before
    "billing-api")."""
    longest = max(len(subject.split()) for subject, _ in named)
    subjects = {subject for subject, _ in named if len(subject.split()) == longest}
    return subjects.pop() if len(subjects) == 1 else None


# The shape of the value a question asks for, by how it asks.
_WANTS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    # "what time does it leave?", not "which time zone is she in?"
    (re.compile(r"\b(?:what|which) time\s+(?:does|do|did|is|are|was|were|will|should|has|have)\b|\bat what (?:time|hour)\b", re.I),
     frozenset({"time"})),
    (re.compile(r"\bwhen\b|\b(?:what|which) (?:date|day)\b|\bby when\b", re.I), frozenset({"date"})),
    (re.compile(r"\bwho(?:m|se)?\b", re.I), frozenset({"name"})),
)
_CLOCK = re.compile(r"^\d{1,2}[:.h]\d{2}(?:\s*[ap]\.?m\.?)?$", re.I)
# "Why …?", "how did …?": a reason or a manner, not a slot's value ("how many", "how long" may be).
_ASKS_WHY_OR_HOW = re.compile(r"^\W*(?:why\b|how\b(?!\s+(?:many|much|long|old|often|far)\b))", re.I)
_VERB_ENDINGS = ("s", "ed", "ing")  # "which haulier runs …": a verb, not a noun, follows the head
MAX_OTHER_WORDS = 1
MIN_DERIVED_STEM = 5
MAX_DERIVED_ENDING = 4


def wanted_shapes(text: str) -> frozenset[str]:
    """What kind of value answers the question ("what time …" a time, "when …" a date, "who …"
    a name); empty when its wording does not say."""
    for pattern, shapes in _WANTS:
        if pattern.search(text):
            return shapes
    return frozenset()


def answer_shape(value: str) -> str:
    """A value's shape, with a time of day apart from other numbers."""
    return "time" if _CLOCK.match(value.strip()) else value_shape(value)


def word_fits(slot_word: str, token: str) -> bool:
    """A question's word names a word of a slot's name: itself, an inflection or a derivation
    ("depart" / "departure"), one sense in the lexicon ("primary" / "main"), or its kind
    ("vehicle" of "van")."""
    if _inflected(slot_word, token) or _inflected(token, slot_word) or _stem(slot_word) == _stem(token):
        return True
    stem = len(os.path.commonprefix([slot_word, token]))
    if stem >= MIN_DERIVED_STEM and max(len(slot_word), len(token)) - stem <= MAX_DERIVED_ENDING:
        return True
    if slot_word in WORD_SENSE and WORD_SENSE[slot_word] == WORD_SENSE.get(token):
        return True
    return BROADER.get(slot_word) == token


_SUFFIX = re.compile(r"(?:ing|ed|er|es|s)$")


def _stem(word: str) -> str:
    """A word without one inflectional ending, when four letters stay: "headed" and "heads" are
    both "head" ("who heads Orion?" of the slot "headed by")."""
    stem = _SUFFIX.sub("", word)
    return stem if len(stem) >= MIN_STEM else word


def name_words(attribute: str) -> list[str]:
    """The words of a slot's name that a question may say, head noun last: a record key's
    trailing "name", "id" or "env" is how the key was spelled, not what it is ("phase name" is
    a phase, "runtime env" a runtime, "warranty expires" a warranty)."""
    words = content_words(attribute).split()
    while len(words) > 1 and words[-1] in KEY_SUFFIXES:
        words.pop()
    return words


def _by_words(
    text: str, subject: str, attributes: list[str], values: Callable[[str], dict[str, str]] | None
) -> str | None:
    """The subject's slot whose name's words the question says most of (its head noun, or a
    modifier with a value of the shape asked for); the shape breaks a tie, and alone names a
    date or time slot when only one has that shape."""
    if _ASKS_WHY_OR_HOW.search(text):
        return None  # "why did Gina open her store?" asks no slot's value
    tokens = asked_phrase(text, subject).split()
    wanted = wanted_shapes(text)
    held = values(subject) if values is not None and wanted else {}
    shaped = {a for a in attributes if a in held and answer_shape(held[a]) in wanted}
    if wanted & {"date", "time"}:
        # "When did Gina open her store?" asks a date, not the store's name.
        attributes = [a for a in attributes if a not in held or a in shaped]
    said = [w.rstrip(".'’").casefold() for w in _WORD.findall(text)]
    scored = []
    for attribute in attributes:
        words = name_words(attribute)
        matched = [w for w in words if any(word_fits(w, t) for t in tokens)]
        # A modifier alone ("work" of "work city") names the slot only when the value asked
        # for has the slot's shape ("who is responsible …" of a "responsible person" named).
        if not matched or words[-1] not in matched and attribute not in shaped:
            continue
        # The head noun alone, among a question's other words, is a mention, not the question:
        # "what book did Tim get in Italy?" does not ask for his "favorite book".
        others = [t for t in tokens if not any(word_fits(w, t) for w in words)]
        if len(matched) == 1 < len(words) and attribute not in shaped and len(others) > MAX_OTHER_WORDS:
            continue
        if attribute not in shaped and _not_what_is_asked(said, words):
            continue
        if not _otherwise_qualified(said, words, set(subject.split())):
            scored.append((len(matched), attribute in shaped, words[-1] in matched, attribute))
    if scored:
        scored.sort(reverse=True)
        if len(scored) > 1 and scored[1][:3] == scored[0][:3]:
            return None
        return scored[0][3]
    if wanted & {"date", "time"} and len(shaped) == 1:
        return shaped.pop()
    return None


_PREPOSITIONS = frozenset({"for", "about", "with", "to", "from", "into", "at", "of"})
_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "their", "my", "our", "its", "your", "this", "that"})


def _not_what_is_asked(said: list[str], words: list[str]) -> bool:
    """The slot's name is said, but not as what the question asks for: in the plural ("what
    books has Tim read?" asks for many, a slot holds one) or after a preposition ("what did Gina
    find for her clothing store?")."""
    for i, token in enumerate(said):
        if not any(word_fits(w, token) for w in words):
            continue
        if token != words[-1] and token in (words[-1] + "s", words[-1] + "es"):
            return True
        j = i - 1
        while j >= 0 and (said[j] in _DETERMINERS or any(word_fits(w, said[j]) for w in words)):
            j -= 1
        return j >= 0 and said[j] in _PREPOSITIONS
    return False


def _otherwise_qualified(said: list[str], words: list[str], subject: set[str]) -> bool:
    """The question qualifies the slot's head noun with a word the slot's name does not have
    ("what is Dariusz's primary route?" does not ask for the "backup route"), or uses it to
    qualify another noun ("a book conference" is no "favorite book")."""
    for i in range(1, len(said)):
        if not word_fits(words[-1], said[i]):
            continue
        after = said[i + 1] if i + 1 < len(said) else None
        if (
            after is not None and after not in ASKING and after not in FUNCTION_WORDS and after not in subject
            and not after.endswith(_VERB_ENDINGS)
        ):
            return True  # a noun follows: the head is its modifier ("book conference")
        before = said[i - 1]
        if before in ASKING or before in FUNCTION_WORDS or before in subject or before.endswith(("'s", "’s")):
            continue
        if not any(word_fits(w, before) for w in words):
            return True
    return False


def _by_meaning(text: str, subject: str, attributes: list[str], matcher: Any) -> str | None:
    """The subject's slot the question's phrase names by embedding similarity."""
    phrase = asked_phrase(text, subject)
    if not phrase:
        return None
    return matcher.join_predicate(phrase, set(attributes))
