"""First-party authority: what one source says *about* another principal of the tenant.

A *principal* of a tenant is someone who is themselves a source there: a user whose own words
the store holds (``actor`` "John", ``source`` "user:john"). A memory whose text speaks about a
principal in the third person ("John went camping with Max on 2 June") but was written by a
*different* source is **hearsay**: a claim about John by someone who is not John. The read-time
defence (``deltacore.retrieval.defence``) lets hearsay drive ranking only when it does not
compete with the principal's own account: when one of the principal's own memories among the
candidates is about the same thing (cosine ≥ ``TrustPolicy.hearsay_topic_similarity``) and none
of them *confirms* the hearsay (near-duplicate cosine ≥ ``corroboration_similarity`` **and** every
value the hearsay asserts — a number, a date, a month, a name — appears in the principal's
statement), the hearsay is weighted down, whatever its writer's standing.

Why this is a rule a user accepts on their own data: about themselves, a person is the
authority; a third party's different account of what John did loses to what John said he did.
It costs nothing when the principal has said nothing on the topic (a parent's note about a
child's appointment keeps its rank), when the report repeats the principal (it is confirmed),
and it never touches a principal's own statements. Why values, not only similarity:
misinformation is written to be *topically* close to the truth ("John went camping with Max on
2 June 2021" vs John's "I went camping with Max last week"), so a cosine, however high, cannot
tell a confirmation from a planted variant; the value it changes can.

A principal is named by their name or by a shortening of it ("Mel" for "Melanie").
Addressing someone is not a claim about them: "Thanks Melanie!", "Hey, John that's awesome",
"That's great Tim! …" are vocatives and do not make a memory hearsay.

Everything here is text-level and deterministic (regular expressions, no model).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from deltacore.delta.mentions import mentioned_names

_MONTHS = frozenset(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_NUMBER = re.compile(r"\b\d+(?:[.,:/-]\d+)*\b")
_WORD = re.compile(r"[\w'’-]+")
# Words before a name that make it an address ("Hey John", "Thanks, Gina", "Woah Joanna").
_GREETINGS = frozenset(
    """hey hi hello yo thanks thank thx cheers bye goodbye congrats congratulations wow woah whoa oh ooh aww awww
    yep yeah yes no nope sure okay ok dear sorry absolutely totally great awesome cool nice lovely right well
    morning evening night later soon""".split()
)
# Words right after a name that make it an address ("Jon you've got this", "John, that's …").
_SECOND_PERSON = frozenset("you you're you've you'll you'd your yours".split())


def source_names(source: str | None, actor: str | None) -> set[str]:
    """The names a source goes by: the words of its ``actor`` and the part of its label after
    the last ``:`` ("user:john" → "john"), casefolded. How a principal is recognised in text."""
    names: set[str] = set()
    if actor:
        names |= {w for w in actor.rsplit(":", 1)[-1].casefold().split() if len(w) > 1}
    if source:
        tail = source.rsplit(":", 1)[-1].casefold()
        if len(tail) > 1:
            names.add(tail)
    return names


def principal_sources(mention: str, by_name: dict[str, set[str]]) -> set[str]:
    """The sources of the principals a mentioned name (casefolded) refers to: an exact name, or
    a shortening of one by truncation of at least three letters ("Mel" for "Melanie", "Sam" for
    "Samantha") — how people refer to each other in conversation."""
    found = set(by_name.get(mention, ()))
    if len(mention) >= 3:
        for name, sources in by_name.items():
            if name != mention and name.startswith(mention):
                found |= sources
    return found


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text)


def third_person_names(text: str, names: Iterable[str]) -> set[str]:
    """Which of ``names`` (casefolded) ``text`` speaks *about* rather than *to*.

    A mention is an address when a greeting or a comma precedes the name and nothing but
    punctuation, a second-person word or the end follows, or when punctuation or a
    second-person word follows it directly ("Thanks Melanie - …", "Jon you've got this").
    """
    wanted = {n.casefold() for n in names}
    if not wanted:
        return set()
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        if not word[:1].isupper():
            continue
        base = re.sub(r"['’]s$", "", word).strip("'’-").casefold()
        if base not in wanted or base in found:
            continue
        possessive = base != word.strip("'’-").casefold()
        preceding = _tokens(text[: match.start()])
        previous = preceding[-1].casefold() if preceding else ""
        follow = text[match.end() :].lstrip()
        following = _WORD.search(follow)
        next_word = following.group(0).casefold() if following else ""
        if possessive:
            found.add(base)  # "Caroline's identity is …" is about Caroline
            continue
        addressed = (
            not follow  # "See you later Joanna"
            or follow[:1] in ",!?.;:-–—)" and not follow.startswith(("'s", "’s"))
            or next_word in _SECOND_PERSON
            or previous in _GREETINGS
        )
        if not addressed:
            found.add(base)
    return found


@functools.lru_cache(maxsize=65_536)
def spoken_about(text: str) -> frozenset[str]:
    """The names (casefolded) ``text`` mentions in the third person — ``third_person_names`` of
    every name it mentions. Cached: the read path asks it of every candidate of every query."""
    names = mentioned_names(text)
    return frozenset(third_person_names(text, names)) if names else frozenset()


def values(text: str, ignore: Iterable[str] = ()) -> set[str]:
    """What a statement asserts that a confirmation must repeat: numbers (dates, counts, times),
    month names and names (capitalised words that are not function words), casefolded; minus
    ``ignore`` (the principal's own names: John says "I", not "John")."""
    found = set(mentioned_names(text))
    found |= {m.group(0) for m in _NUMBER.finditer(text)}
    found |= {w for w in (t.casefold() for t in _tokens(text)) if w in _MONTHS}
    return found - {n.casefold() for n in ignore}


def agrees(claim: str, statement: str, ignore: Iterable[str] = ()) -> bool:
    """Every value ``claim`` asserts (``values``) also appears in ``statement`` — the value-level
    half of a confirmation (the other half is a near-duplicate cosine, checked by the caller)."""
    wanted = values(claim, ignore)
    if not wanted:
        return True
    said = {re.sub(r"['’]s$", "", t).casefold() for t in _tokens(statement)}
    said |= {m.group(0) for m in _NUMBER.finditer(statement)}
    return wanted <= said
