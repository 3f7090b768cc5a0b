"""Who holds a role, said the other way round: passives, the value first, and handovers.

- "Noor is mentored by Imre": the agent of a role verb holds the role ("mentor"). Only verbs
  whose agent noun is a role one person holds for another (a short curated list): "was hit by a
  car" and "was stopped by Tom" name no slot.
- "Imre is the mentor of Noor", "Vera is the custodian of the centrifuge in the upstairs lab":
  the value first, then the role noun with the definite article (one holder). "Tom is a friend
  of Anna" is no such statement (one friend of many); a bare noun is one holder too ("Vera
  is budget holder for Orion", as "CEO of").
- "Imre took over as Noor's mentor from Kai": the new holder, the slot and the old holder.

A thing named with where it is ("the centrifuge in the upstairs lab") is a subject here, as it
is in a tool result ("centrifuge (upstairs lab)"): :func:`placed_thing`.
"""

from __future__ import annotations

import re

from deltacore.belief.lexicon import ATTRIBUTES, normalise_attribute
from deltacore.belief.phrases import UNITS, name_phrase

_LEXICON_NAMES = frozenset(ATTRIBUTES.values())

_WORDS = r"[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}"
# "the centrifuge in the upstairs lab": a lowercase thing, "in the", a lowercase place.
# A numbered place needs no article: "the infusion pump on Ward 7B", "the crane at Pier 4".
NUMBERED = r"[A-Z][a-z]{2,15}\s+[A-Z]?\d{1,4}[A-Za-z]?"
_THING = r"[A-Za-z][\w-]*(?:\s+[a-z][\w-]*){0,2}"  # may open with an acronym: "ECG machine"
_PLACED = re.compile(rf"^(?:[Tt]he\s+)?(?:{_WORDS}\s+in\s+the\s+{_WORDS}|{_THING}\s+(?:on|in|at)\s+(?:the\s+)?{NUMBERED})$")
_NAME = r"(?P<value>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3})"
_HOLDER = r"(?P<subject>(?:[Tt]he\s+)?[\w][\w.&'’ -]{0,60}?)"

# Past participle -> the role its agent holds ("mentored by X": X is the mentor).
ROLE_AGENTS: dict[str, str] = {
    "mentored": "mentor", "coached": "coach", "tutored": "tutor", "supervised": "supervisor", "managed": "manager",
    "sponsored": "sponsor", "advised": "advisor", "led": "lead", "owned": "owner", "maintained": "maintainer",
    "chaired": "chair", "represented": "representative", "employed": "employer", "line-managed": "manager",
    "stewarded": "steward", "supplied": "supplier", "provided": "provider",
}
# A unit holds a role as a person does: "maintained by the discovery pod".
_UNIT = rf"(?:[Tt]he\s+)?(?P<unit>(?:[\w-]+\s+){{1,3}}(?:{'|'.join(sorted(UNITS))}))"
_PASSIVE = re.compile(
    rf"^{_HOLDER}\s+(?:is|are|was|were|has\s+been|have\s+been|is\s+now|is\s+currently)\s+(?:now\s+)?"
    rf"(?P<verb>[a-z-]+ed|led)\s+by\s+(?:{_NAME}|{_UNIT})$"
)
# "The partners squad is responsible for ticketing-core", "ticketing-core belongs to the trust
# squad": a unit owns a thing (a person belonging to a team is a member, no owner: units only).
_UNIT_OWNS = (
    re.compile(rf"^{_UNIT}\s+(?:is|are)\s+(?:now\s+)?(?:responsible|accountable)\s+for\s+{_HOLDER}$"),
    re.compile(rf"^{_HOLDER}\s+(?:now\s+)?belongs\s+to\s+{_UNIT}$"),
)
# Adjectives of a role noun that say how it was given, not which role it is.
_ROLE_ADJECTIVES = r"(?:(?:assigned|named|designated|appointed|nominated|current|new|official)\s+)?"
_VALUE_FIRST = re.compile(
    rf"^{_NAME}\s+is\s+(?:now\s+)?(?P<the>the\s+)?(?!(?:a|an|one|another|some|any|no)\s){_ROLE_ADJECTIVES}(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)"
    rf"(?:\s+(?:listed|named|registered|recorded|on\s+file|on\s+record))?\s+(?:of|for)\s+{_HOLDER}$"
)
# "Noor named Imre as their emergency contact": the subject chose the holder of its own slot.
_NAMED_AS = re.compile(
    rf"^{_HOLDER}\s+(?:has\s+)?(?:named|listed|chose|picked|nominated|designated|appointed|registered)\s+{_NAME}\s+as\s+"
    r"(?:their|his|her|its)\s+(?:new\s+)?(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)$"
)
_OWNER = r"(?P<subject>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})(?:'s|’s)"
_OLD = r"(?P<old>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3})"
_HANDOVER = (
    re.compile(rf"^{_NAME}\s+(?:has\s+)?(?:took|taken)\s+over\s+as\s+{_OWNER}\s+(?P<attr>[a-z][a-z -]{{0,30}}?)(?:\s+from\s+{_OLD})?$"),
    re.compile(rf"^{_NAME}\s+(?:has\s+)?(?:took|taken)\s+over\s+from\s+{_OLD}\s+as\s+{_OWNER}\s+(?P<attr>[a-z][a-z -]{{0,30}}?)$"),
)
# Role nouns that are kinds of thing, not roles: "X is the team of Y" names no holder.
_PERSON = re.compile(r"^[A-Z][a-z]+(?:-[A-Z][a-z]+)?$")  # "Anna belongs to the chess club": a member
_NOT_ROLES = frozenset({"team", "group", "project", "service", "one", "case", "same", "rest", "end", "start", "home"})


_AGENT_ENDINGS = ("er", "or", "ian", "ist", "ant", "ent", "ee", "ive")
_PREPOSITIONS = frozenset({"on", "in", "at", "off", "out", "away", "with", "by", "from", "to", "up", "down", "for"})


def _bare_role(attr: str) -> bool:
    """A role said without "the": a lexicon attribute ("on call"), or a noun of an agent
    ("holder", "custodian") after no preposition."""
    words = attr.split()
    if normalise_attribute(attr) in _LEXICON_NAMES:
        return True
    return words[0] not in _PREPOSITIONS and words[-1].endswith(_AGENT_ENDINGS)


def placed_thing(text: str) -> bool:
    """A thing named by where it is: "the centrifuge in the upstairs lab"."""
    return _PLACED.match(text.strip()) is not None


def subject_ok(text: str) -> bool:
    return name_phrase(text) or placed_thing(text)


def role_reading(s: str) -> tuple[str, str, str, float, str, str | None] | None:
    """(subject, attribute, value, confidence, rule, old value) of a role said passively, value
    first or as a handover; None for anything else."""
    # Substring checks first: most sentences have none of these words, and regexes cost more.
    if " by " in s and (m := _PASSIVE.match(s)) is not None:
        role = ROLE_AGENTS.get(m["verb"].casefold())
        if role is not None and subject_ok(m["subject"]):
            return m["subject"], normalise_attribute(role), m["value"] or m["unit"], 0.85, "passive", None
        return None
    if " responsible " in s or " accountable " in s or " belongs " in s:
        for pattern in _UNIT_OWNS:
            if (m := pattern.match(s)) is not None and subject_ok(m["subject"]) and not _PERSON.match(m["subject"]):
                return m["subject"], "owner", m["unit"], 0.85, "unit owns", None
    if " is " in s and (m := _VALUE_FIRST.match(s)) is not None:
        if m["attr"].split()[-1] in _NOT_ROLES or not subject_ok(m["subject"]):
            return None
        if not m["the"] and not _bare_role(m["attr"]):
            return None  # "Tom is ready for Berlin", "Ana is on leave for Kai": no role
        return m["subject"], m["attr"], m["value"], 0.85, "value first", None
    if " as " in s and (m := _NAMED_AS.match(s)) is not None:
        if m["attr"].split()[-1] in _NOT_ROLES or not name_phrase(m["subject"]):
            return None
        return m["subject"], m["attr"], m["value"], 0.85, "named as", None
    if " over " not in s:
        return None
    for pattern in _HANDOVER:
        if (m := pattern.match(s)) is not None:
            if m["subject"].casefold() == m["value"].casefold():
                return None
            return m["subject"], m["attr"].strip(), m["value"], 0.85, "handover", m["old"]
    return None


# "The fume hood in the upstairs lab is quarantined / was marked on hold / has gone to out of
# order": a placed thing's state, a short lowercase phrase.
_STATE = re.compile(
    rf"^(?P<subject>(?:[Tt]he\s+)?(?:{_WORDS}\s+in\s+the\s+{_WORDS}?|{_THING}\s+(?:on|in|at)\s+(?:the\s+)?{NUMBERED}))\s+"
    r"(?:is|has\s+been|is\s+now|was\s+marked(?:\s+as)?|has\s+been\s+marked(?:\s+as)?|is\s+marked(?:\s+as)?|was\s+set\s+to|has\s+gone\s+to)"
    r"\s+(?:now\s+)?(?P<value>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})$"
)
# A state is no relation: "is used by", "is booked for", "is next to" name another party.
_NO_STATE = frozenset({"the", "a", "an", "by", "to", "with", "from", "at", "next", "used", "booked", "shared", "trained",
                       "owned", "run", "very", "too", "not", "also", "still", "our", "my", "their", "his", "her"})


def placed_status(s: str) -> tuple[str, str, str, float, str] | None:
    """(subject, "status", state, confidence, rule) of a placed thing's state."""
    if (m := _STATE.match(s)) is None or not placed_thing(m["subject"]):
        return None
    words = m["value"].split()
    if words[0] in _NO_STATE or words[-1] in _NO_STATE:
        return None
    return m["subject"], "status", m["value"], 0.85, "placed state"


# "Ashling is on Ward 12 (Gastro)", "Rohit is placed on Ward 17", "Kim is posted to Gate B4":
# a person or thing put in a numbered place. The place's kind names the slot ("ward", "gate"):
# a number says which one of a kind, so the kind is what the sentence assigns.
_NUMBERED_PLACE = re.compile(
    r"^(?P<subject>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})\s+(?:is|was|has\s+been|is\s+now)\s+"
    r"(?:now\s+)?(?:(?:placed|posted|assigned|allocated|rostered|rotated|based|stationed|working)\s+)?(?:on|in|at|to)\s+"
    r"(?:the\s+)?(?P<kind>[A-Z][a-z]{2,15})\s+(?P<id>[A-Z]?\d{1,4}[A-Za-z]?)(?P<note>\s*\([^()]{1,40}\))?(?:\s+now)?$"
)


def numbered_place(s: str) -> tuple[str, str, str, float, str] | None:
    """(subject, the place's kind, the place, confidence, rule) of "X is on Ward 12"."""
    if (m := _NUMBERED_PLACE.match(s)) is None or not subject_ok(m["subject"]):
        return None
    value = f"{m['kind']} {m['id']}{m['note'] or ''}"
    return m["subject"], normalise_attribute(m["kind"].casefold()), value, 0.85, "numbered place"
