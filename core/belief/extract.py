"""Finding facts in events: explicit fields, tool-result JSON and common English phrasings.

Deterministic and cheap (a few regexes on short sentences), and cautious: a sentence that is a
question, negated, hypothetical or about someone it cannot resolve makes no fact, because a
missed fact costs less than a wrong supersede. An LLM extractor can replace the rules: anything
with ``claims(event) -> list[FactClaim]`` fits :class:`FactExtractor`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from deltacore.belief.attributes import AttributeResolver
from deltacore.belief.claims import FactClaim, timestamp_of
from deltacore.belief.dates import DATE, parse_date
from deltacore.belief.grammar import lowercase_value, parse
from deltacore.belief.explicit import FactFieldError, explicit_fields  # noqa: F401 - re-exported
from deltacore.belief.json_facts import json_claims, record_claims
from deltacore.belief.roles import numbered_place, placed_status, placed_thing, role_reading, subject_ok
from deltacore.belief.text_records import text_records
from deltacore.belief.framing import (
    AFTERTHOUGHT,
    CORRECTION,
    CORRECTION_LABELS,
    DENIAL,
    DENIAL_PAREN,
    IT_IS,
    LABEL,
    LEAD_DATE,
    LEAD_TIME_WORD,
    NEWS_LABEL,
    TAIL_DATE,
    WAS_PAREN,
    WEEKDAY_ONLY,
)
from deltacore.belief.lexicon import (
    ATTRIBUTES,
    ENVIRONMENTS,
    FIRST_PERSON,
    MULTI_VALUED,
    PERSON_ATTRIBUTES,
    STATUS_WORDS,
    TYPE_NOUNS,
    canonical_subject,
    category_of,
    clean,
    normalise_attribute,
    value_key,
)
from deltacore.belief.phrases import (
    AUX,
    NEGATED,
    SUBJECT,
    UNITS,
    UNSURE,
    VALUE,
    change_reading,
    changed_to,
    name_phrase,
    noun_reading,
    open_predicate,
)

MAX_TEXT_CHARS = 2000
MAX_SENTENCES = 8
MAX_SENTENCE_CHARS = 220
MAX_GRAMMAR_WORDS = 16
MAX_JSON_FIELDS = 20


class FactExtractor(Protocol):
    def claims(self, event: Any) -> list[FactClaim]: ...


# ---- sentences ---------------------------------------------------------------------------------

# Every rule below needs one of these words: a sentence without any is skipped at once.
_TRIGGER = re.compile(
    r"\b(?:is|are|lives?|living|resid\w+|based|located|moved|relocated|works?|working|joined|employed|prefers?|"
    r"favou?rs?|switch\w*|migrat\w+|changed|uses?|using|codes|programs|writes|develops|runs|running|listens?|"
    r"listening|serves|serving|report(?:s|ed|ing)?|became|likes?|loves?|enjoys?|went|gets?|comes?|commutes?|travels?)\b|['’]s\b",
    re.IGNORECASE,
)
# A period after a title or an initial ends no sentence: "Alice's dentist is Dr. Ito."
_ABBREVIATIONS = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "Jr", "Sr", "Mt", "vs", "etc", "e.g", "i.e", "approx", "No")
_SPLIT = re.compile(
    "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS) + r"(?<!\b[A-Z]\.)(?<=[.!?;])\s+|\n+"
)
# "also", "too", "as well": one more value beside the one held, never a replacement of it.
_ADDITIVE = re.compile(r"\b(?:also|too|as well|additionally|in addition|besides|another)\b", re.IGNORECASE)
_UNRESOLVABLE = frozenset(
    {"he", "she", "they", "we", "you", "it", "this", "that", "there", "these", "those", "who", "what", "which",
     "everyone", "someone", "somebody", "nobody", "anyone", "one", "here", "his", "her", "their", "our", "your",
     "its", "today", "yesterday", "now", "then", "also", "and", "but", "so"}
)

# "Custodian for X reassigned: …": the label says the slot changed; it is no part of the subject.
_CHANGED = r"(?:\s+(?:reassigned|changed|updated|corrected|moved|switched|replaced))?"
_LABEL_SLOTS = (
    re.compile(rf"^{SUBJECT}(?:'s|’s|')\s+(?P<attr>[A-Za-z][\w -]{{0,30}})$"),
    re.compile(rf"^{SUBJECT}\s+has\s+(?:got\s+)?(?:a|an)\s+new\s+(?P<attr>[A-Za-z][\w -]{{0,30}})$"),  # "Rohan has a new bleep: 2344"
    re.compile(r"^(?:[Tt]he\s+)?(?:[Nn]ew\s+)?(?P<attr>[A-Za-z][\w -]{0,30}?)\s+(?:of|for|on)\s+(?P<subject>.{1,60}?)"
               rf"{_CHANGED}$"),
)
_PARTICIPLE = re.compile(r"^[a-z]+ed\s+(?:as|with|in|to|by|at|into|under|for|on)\b")
_DUE = re.compile(rf"^due\s+(?:on\s+|by\s+)?(?P<date>{DATE})$", re.IGNORECASE)
# "Wanda -> Vanda", "on hold => available": a value with the one it replaced.
_ARROW = re.compile(r"^(?P<old>[^<>=→]{1,40}?)\s*(?:->|=>|→)\s*(?P<new>[^<>=→]{1,60})$")

# "from Python" before "to Go": the old value, which the policy finds in the slot itself.
_FROM = r"(?:\s+(?:over\s+)?from\s+[^,;]{1,40}?)?"
# (name, verb regex, attribute or a resolver tag, rule confidence)
_VERBS: tuple[tuple[str, str, str, float], ...] = (
    ("residence", r"(?:lives|living|live|resides|residing|based|located)\s+in", "home city", 0.9),
    ("move", rf"(?:moved|relocated){_FROM}\s+to", "@move", 0.9),
    ("employer", r"(?:works|working|work)\s+(?:at|for)|(?:joined)|employed\s+(?:at|by)", "employer", 0.9),
    ("work city", r"(?:works|working|work)\s+(?:in|from)", "work city", 0.9),
    ("job", r"(?:works|working|work)\s+as|employed\s+as", "job title", 0.9),
    ("preference", r"(?:prefers|prefer|favou?rs|favou?r)", "@category", 0.85),
    ("switch", rf"(?:switched|switching|migrated|migrating|changed|went){_FROM}\s+(?:over\s+)?to", "@category", 0.85),
    ("usage", r"(?:uses|use|using|codes\s+in|programs\s+in|writes\s+code\s+in|develops\s+in)", "@category", 0.85),
    ("port", r"(?:runs|running|listens|listening|serves|serving)\s+on\s+port|uses\s+port", "port", 0.9),
    ("manager", r"(?:reports|report|reporting)\s+to|(?<=\bhas\s)reported\s+to|(?<=\bhave\s)reported\s+to", "manager", 0.9),
    ("liking", r"(?:likes|like|loves|love|enjoys|enjoy)", "likes", 0.85),
    ("commute", r"(?:(?:gets|get|comes|come|travels|travel)\s+(?:in|to\s+work|into\s+work)|commutes|commute)\s+by", "commute", 0.85),
)
_VERB_PATTERNS = [
    (name, re.compile(rf"^{SUBJECT}{AUX}\s+(?:{verb})\s+{VALUE}$"), attribute, conf)
    for name, verb, attribute, conf in _VERBS
]
# "X's work location was changed to Y": a passive of the change says the value now.
_SET_TO = r"(?:was|has\s+been)\s+(?:changed|updated|set|moved|switched)\s+to"
# "X's bleep changed from 2319 to 2268", "… has been rebooked from A to B": the value it became.
_FROM_TO = (
    r"(?:has\s+)?(?:been\s+)?(?:changed|moved|switched|updated|rebooked|rescheduled|swapped|bumped|pushed|upgraded)"
    r"\s+from\s+[^,;]{1,40}?\s+to"
)
_POSSESSIVE = re.compile(
    rf"^{SUBJECT}(?:'s|’s|')\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)(?:\s+(?:is|has changed to|changed to|is now|has become|became|{_SET_TO}|{_FROM_TO})|\s*:)\s+{VALUE}$"
)
_MY = re.compile(rf"^(?P<subject>[Mm]y)\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+(?:is|has changed to|is now|{_FROM_TO})\s+{VALUE}$")
_OF = re.compile(
    rf"^[Tt]he\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+of\s+{SUBJECT}\s+(?:is|is now|has changed to|{_FROM_TO})\s+{VALUE}$"
)
# "Ownership of X moved to Y", "The lead for X was handed over to Y": the slot's noun changes hands.
_NOMINAL_CHANGE = (
    r"\s+(?:has\s+)?(?:moved|went|passed|shifted|switched|transferred)(?:\s+from\s+[^,;]{1,40}?)?\s+to"
    r"|\s+(?:was|has\s+been)\s+(?:handed|passed|moved|transferred|reassigned)(?:\s+over)?\s+to"
)
_ATTR_OF = re.compile(
    rf"^(?:[Tt]he\s+)?(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s+(?:of|for|on)\s+(?P<subject>(?:[Tt]he\s+)?[\w][\w.&() -]{{0,60}}?){_CHANGED}"
    rf"(?:\s*:|\s+is(?:\s+now)?|\s+has changed to|\s+changed to|{_NOMINAL_CHANGE})\s+{VALUE}$"
)
_VALUE_MY = re.compile(rf"^{VALUE}\s+is\s+(?P<subject>[Mm]y)\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)$")
_VALUE_POSSESSIVE = re.compile(
    rf"^{VALUE}\s+(?:is|is\s+now|has\s+been|has\s+become|became)\s+{SUBJECT}(?:'s|’s)\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)$"
)
# "Lena is an engineering manager", "I'm a QA engineer": a job title when the last word is an
# occupation.
_OCCUPATIONS = (
    "engineer|manager|scientist|designer|analyst|writer|developer|architect|director|consultant|intern|administrator|"
    "officer|researcher|lead|specialist|technician|accountant|recruiter|editor|programmer|tester|strategist|owner|"
    "executive|coordinator|advisor|adviser|lawyer|nurse|teacher|professor|student|doctor"
)
# "became", "has become", "is now": the copula of a change of state.
_IS_A = re.compile(
    rf"^(?P<subject>I|{SUBJECT[len('(?P<subject>'):-1]})(?:\s+am|\s+is|'m|’m|\s+became|\s+(?:has|have)\s+become|['’]ve\s+become)"
    rf"(?:\s+now)?\s+(?:a|an)\s+(?P<value>(?:[\w-]+\s+){{0,3}}(?:{_OCCUPATIONS}))$"
)
# "took on a new role as …", "is starting a new job as …": a job title, said with its noun.
_ROLE_AS = re.compile(
    rf"^{SUBJECT}{AUX}\s+(?:[a-z]+\s+){{0,4}}?(?:role|job|position|post)\s+as\s+(?:a\s+|an\s+)?"
    rf"(?P<value>(?:[\w-]+\s+){{0,3}}(?:{_OCCUPATIONS}))$"
)
# "A: no, Dr. Ito is my GP now": the interjection answers the question before; the clause after it
# is affirmative (a negation inside the clause still makes it negated).
_LEAD_INTERJECTION = re.compile(r"^(?:no|nope|nah|yes|yeah|yep|well|ok|okay|right)\s*[,!]\s+", re.IGNORECASE)
# "… now" ends a value ("lives in Berlin now") and no attribute ("X is my GP now").
# When it happened, after the value: "moved to Berlin last year" moved to Berlin.
TRAILING_TIME = re.compile(
    r"\s+(?:now|these days|nowadays|currently|recently|lately|yesterday|today|last (?:year|month|week|spring|summer|autumn|fall|winter)"
    r"|this (?:year|month|week)|(?:a|one|\d+) (?:days?|weeks?|months?|years?) ago|a while (?:ago|back))$",
    re.IGNORECASE,
)
_LEAD_ADVERB = re.compile(
    r"^(?:(?:these days|nowadays|currently|now|at the moment|today|lately|as of now)\s*,?|"
    r"(?:please\s+note|note|fyi|just\s+a\s+reminder|(?:a\s+)?reminder|for\s+the\s+record)(?:\s+that)?\s*[,:]?|"  # "Please note the new …"
    r"(?:after|following)\s+(?:the|a|an|this|that|"
    r"their|his|her|its|our|my)(?:\s+[a-z-]+){1,3}\s*,)\s+", re.IGNORECASE)  # "After the move, Petra now lives in Turin"
_NEW_ATTR = re.compile(rf"^{SUBJECT}\s+has\s+(?:a|an)\s+new\s+(?P<attr>[A-Za-z][\w -]{{0,30}}?)\s*:\s*{VALUE}$")
_COPULA = re.compile(rf"^{SUBJECT}(?:\s+is|'s|’s|\s+are)(?:\s+now)?\s+(?P<rest>.{{1,60}})$")
_AT_PLACE = re.compile(r"^(?:in|at)\s+(?P<value>[A-Z][^,;]{0,40})$")
# A name, then why or how it came about: no part of the value.
_REASON = re.compile(
    r"(?<=[A-Za-z0-9])\s+(?:after|following|because|due to|thanks to|through|via|as part of|in time for)\s+(?:the|a|an|this|that|their|his|her|its|our|my|last|next)\b.*$"
)
_PORT_VALUE = re.compile(r"^\d{2,5}$")
# Attributes whose values are names. A sentence's noun the resolver takes for one of them must
# get a name: "X's report is due on D" (report ~ "reports to") is no manager, "X's commute is by
# bike" (commute ~ "commutes to") no work city.
_PROPER_ATTRIBUTES = frozenset({"home city", "work city", "employer", "location", "manager"})


def _proper(value: str) -> bool:
    return bool(value) and (value[0].isupper() or value[0].isdigit())


class RuleFactExtractor:
    """The default extractor: explicit fields, tool-result JSON, the curated phrasing rules, then
    the phrase grammar (:mod:`deltacore.belief.grammar`) with attributes named by ``resolver``
    (lexicon, then predicate-embedding similarity when it has an embedder)."""

    def __init__(self, resolver: AttributeResolver | None = None) -> None:
        self.resolver = resolver or AttributeResolver()

    def prepare(self, events: Sequence[Any]) -> None:
        """Embed, in one call, the predicates of ``events`` that the resolver has not seen (the
        belief layer calls it once per write, so a batch costs one embedding call, not one per
        sentence)."""
        if not self.resolver.embeds:
            return
        phrases: list[str] = []
        for event in events:
            if event.kind not in ("message", "fact", "observation") or len(event.text or "") > MAX_TEXT_CHARS:
                continue
            for sentence in _SPLIT.split(event.text or "")[:MAX_SENTENCES]:
                body = self._body(sentence) if len(sentence.split()) <= MAX_GRAMMAR_WORDS else None
                if body is not None:
                    phrases.extend(r.predicate for r in parse(body[0]))
        self.resolver.prefetch(phrases)

    def claims(self, event: Any) -> list[FactClaim]:
        meta = event.meta or {}
        actor, user_id = event.actor, event.user_id
        fields = explicit_fields(meta) if event.kind == "fact" else None
        if fields is not None:
            subject_name, attribute, value = fields
            subject = canonical_subject(subject_name, actor, user_id)
            if subject is None:
                return []
            valid_from = timestamp_of(meta.get("valid_from", meta.get("as_of")))
            return [
                FactClaim(subject, clean(subject_name), normalise_attribute(attribute), clean(str(value)),
                          float(event.confidence), "explicit", valid_from)
            ]
        text = event.text or ""
        if event.kind in ("tool_result", "observation") and text.lstrip().startswith(("{", "[")):
            return self._json_claims(text, event)
        if event.kind not in ("message", "fact", "observation") or len(text) > MAX_TEXT_CHARS:
            return []
        if ("\n" in text or "=" in text or " | " in text or text.startswith("[")) and (records := text_records(text)):
            return [
                claim for record, key in records for claim in record_claims(record, event, self._key_attribute, key, "rule:record")
            ]
        found: list[FactClaim] = []
        for sentence in _SPLIT.split(text)[:MAX_SENTENCES]:
            claim = self.sentence_claim(sentence, actor, user_id, event.ts.timestamp())
            if claim is not None:
                found.append(_scaled(claim, float(event.confidence)))
        return found

    def _body(self, sentence: str) -> tuple[str, bool] | None:
        """The sentence without its label, and whether the label marks a correction."""
        s = " ".join(sentence.split()).strip().rstrip(".!")
        if not s or len(s) > MAX_SENTENCE_CHARS:
            return None
        correction = False
        s = _LEAD_ADVERB.sub("", s)
        s = AFTERTHOUGHT.sub("", s)
        if (m := CORRECTION.match(s)) is not None:
            return s[m.end():], True
        m = LABEL.match(s)
        if m is not None and (about := NEWS_LABEL.match(m["label"].strip())) and (it := IT_IS.match(m["body"])):
            # "Update on the pump on Ward 7B: it's working now": the pump is working now.
            return f"{about['subject']} is {m['body'][it.end():]}", correction
        if m is not None and CORRECTION_LABELS.search(m["label"].strip()):
            return m["body"], True  # before the slot labels: "Correction for the records" names no slot
        if m is not None and self._label_reading(m["label"]) is None:
            if len(m["label"].split()) <= 3:
                return m["body"], correction
            return None
        return s, correction

    def _label_reading(self, label: str) -> tuple[str, str] | None:
        """(subject, attribute) when a label names a slot ("Anna's city", "Health of billing-api")."""
        label = label.strip()
        for pattern in _LABEL_SLOTS:
            if (m := pattern.match(label)) is not None:
                attribute = self._attribute(m["attr"])
                if attribute:
                    return m["subject"], attribute
        return None

    def sentence_claim(self, sentence: str, actor: str | None, user_id: str | None, reference: float) -> FactClaim | None:
        """The fact one sentence states, or None when it states none this extractor is sure of."""
        body = self._body(sentence)
        if body is None:
            return None
        s, correction = body
        s = _LEAD_INTERJECTION.sub("", s)
        valid_from = None
        if (m := LEAD_DATE.match(s)) is not None:
            if WEEKDAY_ONLY.match(m["date"]) and m["word"].casefold() != "since":
                return None
            valid_from, s = parse_date(m["date"], reference), s[m.end():]
        elif LEAD_TIME_WORD.match(s):
            return None  # "as of <something we cannot date>": unsure when
        earlier = None
        if (m := WAS_PAREN.search(s)) is not None:
            earlier, s = clean(m["old"] or m["gone"]), s[: m.start()]
        if (m := TAIL_DATE.search(s)) is not None:
            if WEEKDAY_ONLY.match(m["date"]) and m["word"].casefold() != "since":
                return None
            valid_from, s = parse_date(m["date"], reference), s[: m.start()]
        denied = None
        if (m := DENIAL_PAREN.search(s)) is not None:
            denied, s, correction = clean(m["not"] or m["was"]), s[: m.start()], True
        elif (m := DENIAL.search(s)) is not None:
            denied, s, correction = clean(m["denied"]), s[: m.start()], True
        if UNSURE.search(s) or NEGATED.search(s):
            return None
        match = self._match(s) if _TRIGGER.search(s) else None
        previous = earlier
        if match is None and len(s.split()) <= MAX_GRAMMAR_WORDS:
            # A statement of one fact is short; longer sentences (most of chat and logs) skip
            # the wider patterns, which keeps the write path's cost flat.
            match = self._labelled(s)
            if match is None and (role := role_reading(s)) is not None:
                match, previous = role[:5], role[5]
            match = match or placed_status(s)
            if match is None and (change := change_reading(s)) is not None:
                match, previous = change[:5], change[5]
                if (category := category_of(change[2])) is not None:
                    match = (*match[:1], category, *match[2:4], "switch")  # the layer prefers the old value's slot
            match = match or noun_reading(s, self.resolver.embeds) or self._generic(s) or numbered_place(s)
            if match is None and earlier is not None and (to := changed_to(s)) is not None and subject_ok(to[0]):
                match = to  # "… was upgraded to 2025.11 (previously 2025.8)"
        if match is None:
            return None
        subject_name, attribute, value, confidence, rule = match
        if (arrow := _ARROW.match(value)) is not None:
            value, previous = arrow["new"], clean(arrow["old"])
        if rule == "possessive" and (due := _DUE.match(value)) and attribute not in ATTRIBUTE_NAMES and not attribute.endswith("due"):
            attribute, value = f"{attribute} due", due["date"]  # "X's report is due on D": when the report is due
        unnamed = rule in ("open", "change", "noun")
        if subject_name.casefold() in _UNRESOLVABLE or subject_name.split()[0].casefold() in _UNRESOLVABLE:
            return None
        subject = canonical_subject(subject_name, actor, user_id)
        value = clean(TRAILING_TIME.sub("", value))
        if attribute in _PROPER_ATTRIBUTES or rule in ("passive", "value first", "handover"):
            value = _REASON.sub("", value)  # "reports to Kai after the reorg": Kai
        if subject is None or not value or len(value.split()) > 6 or value.endswith(("'s", "’s")) or _PARTICIPLE.match(value):
            return None  # "Antonia's" is whose, never what; "deposited with X" is how, not what
        if attribute in _PROPER_ATTRIBUTES:
            value = re.sub(r"^(?:in|at)\s+(?=[A-Z])", "", value)  # "my home is in Berlin"
            if not _proper(value):
                return None
        if attribute in PERSON_ATTRIBUTES and not _person_like(subject_name) and not unnamed:
            return None  # a deployment does not live anywhere
        if _ADDITIVE.search(s) and attribute not in MULTI_VALUED:
            return None  # "Agnes also uses Emacs": a second tool, not a switch
        if correction:
            confidence = max(confidence, 0.95)
        return FactClaim(subject, clean(subject_name), attribute, value, confidence, f"rule:{rule}", valid_from, correction,
                         denied, open_predicate=unnamed, previous=previous)

    def _attribute(self, phrase: str) -> str | None:
        """A possessive's or label's attribute: the lexicon's or the resolver's name, else the
        phrase itself when it is short."""
        attribute = normalise_attribute(TRAILING_TIME.sub("", phrase))  # "X is my GP now"
        if not attribute or attribute.split()[-1] in ("is", "was") or len(attribute.split()) > 3:
            return None
        found = self.resolver.resolve(attribute) if attribute not in ATTRIBUTE_NAMES else None
        return found[0] if found is not None and not found[1] else attribute

    def _labelled(self, s: str) -> tuple[str, str, str, float, str] | None:
        if (
            (m := LABEL.match(s)) is not None
            and (reading := self._label_reading(m["label"])) is not None
            and len(m["body"].split()) <= 6
            and subject_ok(reading[0])
        ):
            return reading[0], reading[1], m["body"], 0.85, "label"
        for pattern in (_ATTR_OF, _VALUE_MY, _VALUE_POSSESSIVE, _NEW_ATTR):
            if (m := pattern.match(s)) is not None and any(w.casefold() in ENVIRONMENTS for w in m["attr"].split()):
                continue  # "the live deployment of X is down": the environment names the subject, not an attribute
            if pattern is _ATTR_OF and m is not None and placed_thing(f"{m['attr']} on {m['subject']}") and (
                normalise_attribute(m["attr"]) not in ATTRIBUTE_NAMES
            ):
                continue  # "the infusion pump on Ward 7B is faulty": a thing in a numbered place, not its attribute
            if (m := pattern.match(s)) is not None and (attribute := self._attribute(m["attr"])) and subject_ok(m["subject"]):
                return m["subject"], attribute, m["value"], 0.85, "possessive"
        return None

    def _generic(self, s: str) -> tuple[str, str, str, float, str] | None:
        """The phrase grammar: the predicate named by the resolver, or no fact."""
        for pattern in (_IS_A, _ROLE_AS):
            if (m := pattern.match(s)) is not None:
                return m["subject"], "job title", m["value"], 0.85, "occupation"
        unnamed = None
        for reading in parse(s):
            if reading.subject.endswith(("'s", "’s")) and reading.predicate.split()[0] in RELATIONS:
                continue  # "Agnes's sister lives in Utrecht" is about the sister
            found = self.resolver.resolve(reading.predicate)
            if found is None:
                if unnamed is None and open_predicate(reading.predicate) and name_phrase(reading.subject):
                    unnamed = reading
                continue
            attribute, _, similarity = found
            subject, value = reading.subject, reading.value
            if attribute in _VALUE_FIRST and not (set(reading.predicate.split()) & {"by", "to", "has", "have"}):
                subject, value = value, subject  # "Lina leads Project Juniper", "the platform team owns X"
            if subject.casefold() in FIRST_PERSON and attribute not in PERSON_ATTRIBUTES:
                continue
            if attribute == "status" and value_key(value) not in STATUS_WORDS:
                continue  # a status is a known state word, or said as one ("is read-only", below)
            if attribute == "version" and not any(ch.isdigit() for ch in value):
                continue  # "was rehomed to the Singapore DC" is near "was upgraded to" but names no version
            return subject, attribute, value, min(0.85, similarity), "grammar"
        reading = lowercase_value(s)
        if reading is not None and (reading.rule == "state" or value_key(reading.value) in STATUS_WORDS):
            return reading.subject, "status", reading.value, 0.85, "state"
        if unnamed is not None and self.resolver.embeds:
            # No prototype names the predicate: the layer may still join it to a slot the subject
            # already has ("is coached by" → the subject's "coach"), or it makes no fact.
            return unnamed.subject, unnamed.predicate, unnamed.value, 0.85, "open"
        return None

    def _match(self, s: str) -> tuple[str, str, str, float, str] | None:
        for pattern, rule in ((_MY, "possessive"), (_OF, "possessive"), (_POSSESSIVE, "possessive")):
            if (m := pattern.match(s)) is not None:
                if any(w.casefold() in ENVIRONMENTS for w in m["attr"].split()):
                    continue  # "the staging deployment of X is down": a qualified subject, not an attribute
                attribute = self._attribute(m["attr"])
                if attribute is None:
                    return None
                return m["subject"], attribute, m["value"], 0.9, rule
        for name, pattern, attribute, confidence in _VERB_PATTERNS:
            if (m := pattern.match(s)) is None:
                continue
            if re.search(r"\s(?:of|for)\s", m["subject"]):
                return None  # "Ownership of X moved to Y": a noun of the slot, said by the rules below
            value = m["value"]
            if attribute == "@move":
                attribute = category_of(value) or "home city"
            elif attribute == "@category":
                attribute = category_of(value) or ""
                if not attribute:
                    return None  # "prefers tea": no slot this extractor is sure of
            if attribute == "port" and not _PORT_VALUE.match(value.strip()):
                return None
            if attribute == "employer" and value.split()[-1].casefold() in UNITS:
                return None  # "joined the platform team": a unit of the employer, not a new one
            return m["subject"], attribute, value, confidence, name
        if (m := _COPULA.match(s)) is not None:
            rest = m["rest"].strip()
            if value_key(rest) in STATUS_WORDS and len(rest.split()) == 1:
                return m["subject"], "status", rest, 0.9, "status"
            if (place := _AT_PLACE.match(rest)) is not None:
                return m["subject"], "location", place["value"], 0.85, "location"
        return None

    def _json_claims(self, text: str, event: Any) -> list[FactClaim]:
        return json_claims(text, event, self._key_attribute)

    def _key_attribute(self, key: str) -> str:
        attribute = normalise_attribute(key)
        if attribute in ATTRIBUTE_NAMES:
            return attribute
        resolved = self.resolver.resolve(attribute)
        return resolved[0] if resolved is not None and not resolved[1] else attribute


_VALUE_FIRST = frozenset({"owner", "lead", "on call"})
# People and pets a possessive names: "Anna's brother works at Globex" is no fact about Anna.
RELATIONS = frozenset(
    {"sister", "sisters", "brother", "brothers", "parents", "parent", "mother", "mom", "mum", "father", "dad", "wife",
     "husband", "partner", "spouse", "girlfriend", "boyfriend", "friend", "friends", "son", "daughter", "kids",
     "children", "child", "cousin", "aunt", "uncle", "grandma", "grandmother", "grandpa", "grandfather", "family",
     "colleague", "colleagues", "neighbour", "neighbor", "roommate", "flatmate", "dog", "cat", "sibling", "siblings"}
)


def _person_like(name: str) -> bool:
    """A person's name or first person, not a service, an environment or a project."""
    folded = name.casefold()
    if folded in FIRST_PERSON or folded in ("the user", "user"):
        return True
    words = folded.split()
    return not any(w in ENVIRONMENTS or w in TYPE_NOUNS or any(ch.isdigit() for ch in w) or "-" in w for w in words)


ATTRIBUTE_NAMES = frozenset(ATTRIBUTES.values())
def _scaled(claim: FactClaim, event_confidence: float) -> FactClaim:
    if event_confidence >= 1.0:
        return claim
    return replace(claim, confidence=claim.confidence * event_confidence)
