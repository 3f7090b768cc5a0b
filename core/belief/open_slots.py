"""Verb phrases no lexicon or prototype names, joined to a slot the subject already has.

The rule extractor states a fact only for predicates it can name. A predicate it cannot name
("Noor is coached by Imre", "Noor swapped Kate for Helix") is handed over as an *open* claim,
and only here, where the subject's existing slots are known, does it become a fact:

- a change that names the value it replaces ("swapped A for B", "went from A to B") is about
  the one slot of the subject whose current value is A;
- any other open predicate joins the one slot its words name (embedding similarity with the
  slot matcher's threshold and margin, look-alike rules on content words), and only when the
  new value has the shape of the slot's current one (a name for a name, a date for a date);
- a bare active verb made from the slot's own noun ("Imre coaches Noor", with a slot "coach")
  says whose coach someone is the other way round: no fact, since reading it forward would
  make Noor Imre's coach;
- a predicate that only says where or what something is ("is at", "sits in the", "carries")
  names no slot by its words; its value does, when it has the written form of the values one
  slot of the subject holds and no other's ("build 3039" beside "build 2999", "Singapore DC"
  beside "Ashburn DC"). A bare name has no form of its own and joins nothing this way.

Whatever is unsure makes no fact and never a slot of its own: a distractor ("flew to Porto")
must not become a slot that the next distractor supersedes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from deltacore.belief.claims import FactClaim
from deltacore.belief.dates import DATE
from deltacore.belief.lexicon import TYPE_NOUNS, value_key
from deltacore.belief.phrases import UNITS
from deltacore.belief.slots import SlotMatcher, content_words

_DATE_VALUE = re.compile(rf"^(?:{DATE})$", re.IGNORECASE)
_AGENT_SUFFIXES = ("", "r", "er", "or")
# Words of a predicate that states what or where its subject is, and nothing it did.
_STATIVE = frozenset({
    "is", "are", "sits", "sit", "stays", "lives", "works", "carries", "runs", "uses", "serves", "based", "stationed",
    "located", "hosted", "deployed", "running", "sitting", "assigned", "now", "currently", "at", "in", "on", "out",
    "of", "from", "with", "under", "the", "a", "an",
})
_VERSION_WORD = re.compile(r"^(?:version|build|release|v)\s*(?=\d)", re.IGNORECASE)  # as value_key drops it
_FORM_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^A-Za-z\d\s]")


def inflects(word: str, token: str) -> bool:
    """``token`` is ``word`` or its plural ("team" / "teams")."""
    return token == word or token in (word + "s", word + "es")


def value_shape(value: str) -> str:
    """What kind of thing a value looks like: a date, something with digits (a version, a port),
    a name (capitalised) or a plain word."""
    text = value.strip()
    if _DATE_VALUE.match(text):
        return "date"
    if any(ch.isdigit() for ch in text):
        return "number"
    if text[:1].isupper():
        return "name"
    return "word"


def agentive(predicate: str, slot: str) -> bool:
    """True when ``predicate`` is one bare active verb formed from the slot's head noun
    ("coaches" / "coach", "owns" / "owner", "manages" / "manager")."""
    words = predicate.split()
    if len(words) != 1 or not words[0].endswith("s"):
        return False
    verb = words[0]
    stems = {verb[:-1], verb[:-2]} if verb.endswith("es") else {verb[:-1]}
    head = slot.split()[-1]
    return any(stem and stem + suffix == head for stem in stems for suffix in _AGENT_SUFFIXES)


def current_values(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(subject, attribute) -> the value of its open fact believed now (the latest valid one)."""
    latest: dict[tuple[str, str], tuple[float, str]] = {}
    for row in rows:
        if row.get("valid_until") is not None or row.get("status") not in ("current", "contested"):
            continue
        key = (row["subject"], row["attribute"])
        if key not in latest or float(row["valid_from"]) >= latest[key][0]:
            latest[key] = (float(row["valid_from"]), str(row["value"]))
    return {key: value for key, (_, value) in latest.items()}


def value_form(value: str) -> str | None:
    """How a value is written, without what it says: digits and codes by their pattern, a
    capitalised name as one mark, plain words as themselves ("build 3039" -> "build 9",
    "Singapore DC" -> "N C"). None for a bare name or word, whose form says nothing."""
    marks = []
    for token in _VERSION_WORD.sub("", value.strip()).split():
        if any(ch.isdigit() for ch in token) or not token.isalpha():
            parts = ["9" if p.isdigit() else "C" if p.isalpha() and p.isupper() else "a" if p.isalpha() else p for p in _FORM_TOKEN.findall(token)]
            marks.append("".join(parts))
        elif token.isupper() and len(token) > 1:
            marks.append("C")
        elif token[:1].isupper():
            if not marks or marks[-1] != "N":
                marks.append("N")
        else:
            marks.append(token.casefold())
    form = " ".join(marks)
    says_something = (form not in ("N", "") and len(marks) > 1) or any(ch.isdigit() or ch == "9" for ch in form)
    return form if says_something else None


def form_slot(claim: FactClaim, known: set[str], values: dict[tuple[str, str], str]) -> str | None:
    """The one slot of the subject whose current value is written as the claim's is, for a
    predicate that only says what or where the subject is (see the module's notes)."""
    form = value_form(claim.value)
    if form is None:
        return None
    named = [a for a in sorted(known) if (held := values.get((claim.subject, a))) is not None and value_form(held) == form]
    if len(named) != 1:
        return None
    own = set(named[0].split()) | set(values[(claim.subject, named[0])].casefold().split())
    if any(w not in _STATIVE and w not in TYPE_NOUNS and w not in own for w in claim.attribute.casefold().split()):
        return None  # "dropped a pallet at Magor depot" is something done, not where Shona is
    return named[0]


def previous_slot(claim: FactClaim, known: set[str], values: dict[tuple[str, str], str]) -> str | None:
    """The one slot of the subject whose current value is the old value a change names."""
    old = value_key(claim.previous or "")
    if not old or old == value_key(claim.value):
        return None
    named = [a for a in sorted(known) if value_key(values.get((claim.subject, a), "")) == old]
    return named[0] if len(named) == 1 else None


def unit_value(claim: FactClaim, held: str | None) -> str:
    """A unit's value as its slot writes it: "treasury crew" beside "Puffin squad", "identity"
    beside "payments"."""
    if claim.method == "rule:noun" and claim.attribute in UNITS and held and held.split()[-1].casefold() in UNITS:
        return f"{claim.value} {claim.attribute}"
    return claim.value


def open_slot(
    claim: FactClaim, known: set[str], values: dict[tuple[str, str], str], matcher: SlotMatcher | None
) -> str | None:
    """The subject's existing slot an open claim is about, or None (then it states no fact)."""
    if claim.previous is not None:
        slot = previous_slot(claim, known, values)
        if slot is None:
            return None
    elif claim.method == "rule:noun":
        # "in the build phase": only the slot named by that very noun (or its inflection).
        named = [a for a in sorted(known) if inflects(a.split()[-1], claim.attribute)]
        if not named and claim.attribute in UNITS:
            # "a member of the treasury crew": the one slot naming which unit the subject is in.
            named = [a for a in sorted(known) if a.split()[-1] in UNITS]
            if len(named) == 1:
                return named[0]
        if len(named) != 1:
            return None
        slot = named[0]
    else:
        if matcher is None or not content_words(claim.attribute):
            return None
        slot = matcher.join_predicate(claim.attribute, known) or form_slot(claim, known, values)
        if slot is None or agentive(claim.attribute, slot):
            return None
    held = values.get((claim.subject, slot))
    if held is not None and value_shape(held) != value_shape(claim.value):
        return None  # "Noor's coach is Imre" then "Noor is coached by 3 people": not the same kind
    return slot
