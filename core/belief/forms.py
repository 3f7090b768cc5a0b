"""Forms learned from the store's own facts: the engine learns to read a phrasing its rules do not.

People and systems say the same kind of fact in the same words many times: "Marie reports to
the Seoul site daily.", "Aaron reports to the Lima site daily." The rules may read neither. But
when the store already holds that Marie's work city is Seoul (from a tool result, a record, a
phrasing a rule does read), the line says a known value of a known slot of a subject it names:
with the subject and the value cut out, what is left, "{S} reports to the {V} site daily .", is
a *form* of that slot. Once a form has been seen stating known values for ``min_support``
different subjects, and hardly ever another slot's, a line in that form is read: "Kai reports to
the Quito site daily." states Kai's work city, Quito.

Learning is bootstrapping from what the store believes (as in DIPRE and Snowball), so it is
held to what keeps a wrong form out:

- a form is learned only from a line that names exactly one value of one slot of the subject
  (a value two slots share, a home and a work city both Berlin, teaches nothing);
- it keeps some words of its own ("reports", "site", "daily"), not only function words and
  punctuation; a bare "{S} : {V}" says nothing about which slot;
- it is read only after ``min_support`` different subjects confirmed it, never when another slot
  was seen in the same form for more than a quarter as many subjects, never when its lines named
  other values more often than the slot's, and only of a subject the store knows;
- what it reads must have the shape of the slot's values (a name for a name, a number for a
  number) and is a claim of ``FORM_CONFIDENCE``, so the contradiction policy treats it as any
  other claim (a low-trust writer's line still cannot supersede).

A form is the words around a subject and a value, never the subject or the value themselves.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from deltacore.belief.changes import named_subjects
from deltacore.belief.claims import FactClaim
from deltacore.belief.dates import parse_date
from deltacore.belief.framing import LEAD_DATE, TAIL_DATE
from deltacore.belief.lexicon import FIRST_PERSON, MULTI_VALUED_ATTRIBUTES, canonical_subject, value_key
from deltacore.belief.open_slots import current_values, value_shape
from deltacore.belief.slots import FUNCTION_WORDS

FORM_KINDS = frozenset({"message", "observation"})
"""Kinds whose text is read in learned forms (a tool result is read field by field)."""
FORM_CONFIDENCE = 0.85
"""Above the default supersede threshold (0.8): a confirmed form reads a change like a rule."""
MAX_LINE_TOKENS = 32
MAX_SPAN_TOKENS = 8
# A possessive is a token of its own ("Marie" "'s"); "I'm" and "don't" stay whole.
_TOKEN = re.compile(r"['’]s\b|[^\W_](?:[\w.+#&/-]*[^\W_])?(?:['’](?!s\b)[^\W_]+)*|[^\w\s]", re.UNICODE)
_SUBJECT, _VALUE = "\x00s", "\x00v"
_SEP = "\x1f"


@dataclass
class Form:
    """A line's words with the subject and the value cut out, and the slots it was seen stating."""

    tokens: tuple[str, ...]
    order: int = 0
    """When it was first seen (of the forms a book holds): the older form is tried first."""
    seen: dict[str, set[str]] = field(default_factory=dict)
    """attribute -> the subjects it was seen stating a known value of that slot for."""
    contrary: dict[str, int] = field(default_factory=dict)
    """attribute -> lines in this form about a subject with that slot that named none of its values."""
    _pattern: re.Pattern[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        """Its own words: a line that lacks one of them is not in this form."""
        return frozenset(t for t in self.tokens if t not in (_SUBJECT, _VALUE))

    def leading(self) -> str | None:
        """The slot this form was seen stating most, when no other comes close (a quarter of it)."""
        if not self.seen:
            return None
        ranked = sorted(self.seen.items(), key=lambda item: -len(item[1]))
        if len(ranked) > 1 and 4 * len(ranked[1][1]) > len(ranked[0][1]):
            return None
        return ranked[0][0]

    def attribute(self, min_support: int) -> str | None:
        """The one slot this form states, once confirmed: seen for ``min_support`` subjects, no
        other slot close, and at least as many of its lines naming a known value as naming
        another ("{S} is hiking near {V}" names a home city now and then, other places mostly)."""
        attribute = self.leading()
        if attribute is None:
            return None
        support = len(self.seen[attribute])
        return attribute if support >= min_support and support >= self.contrary.get(attribute, 0) else None

    def match(self, tokens: Sequence[str]) -> tuple[tuple[int, int] | None, tuple[int, int]] | None:
        """Where a line in this form says its subject (None: the speaker is the subject) and its
        value, as token ranges."""
        if self._pattern is None:
            parts = []
            for token in self.tokens:
                if token in (_SUBJECT, _VALUE):
                    name = "s" if token == _SUBJECT else "v"
                    parts.append(rf"(?P<{name}>[^{_SEP}]+(?:{_SEP}[^{_SEP}]+){{0,{MAX_SPAN_TOKENS - 1}}})")
                else:
                    parts.append(re.escape(token))
            self._pattern = re.compile(_SEP.join(parts))
        joined = _SEP.join(t.casefold() for t in tokens)
        found = self._pattern.fullmatch(joined)
        if found is None:
            return None

        def tokens_of(group: str) -> tuple[int, int]:
            start, end = found.span(group)
            first = joined.count(_SEP, 0, start)
            return first, first + joined.count(_SEP, start, end) + 1

        return (tokens_of("s") if _SUBJECT in self.tokens else None), tokens_of("v")


class FormBook:
    """The forms each tenant's lines were seen in: in memory, loaded from and saved to the store
    (``dc_learned_forms``) by the belief layer."""

    def __init__(self, min_support: int = 2, max_forms: int = 20_000) -> None:
        self.min_support, self.max_forms = min_support, max_forms
        self._forms: dict[tuple[str, tuple[str, ...]], Form] = {}
        self._by_word: dict[tuple[str, str], list[tuple[Form, frozenset[str]]]] = {}
        """(tenant, the form's longest own word) -> (form, its own words): a line is tried only
        in forms whose own words it all says."""
        self._loaded: set[str] = set()
        self._changed: set[tuple[str, tuple[str, ...]]] = set()

    def __len__(self) -> int:
        return len(self._forms)

    # ---- kept in the store (``dc_learned_forms``): loaded once per tenant, saved per batch ----

    def load(self, store: Any, conn: Any, tenant: str) -> None:
        if tenant in self._loaded:
            return
        self._loaded.add(tenant)
        for row in store.learned_forms(conn, tenant):
            tokens = tuple(_SUBJECT if t == "{S}" else _VALUE if t == "{V}" else t for t in row["form"])
            entry = self._add(tenant, tokens)
            if entry is None:
                break
            for attribute, digests in (row["seen"] or {}).items():
                entry.seen.setdefault(attribute, set()).update(digests)
            for attribute, count in (row["contrary"] or {}).items():
                entry.contrary[attribute] = max(entry.contrary.get(attribute, 0), int(count))

    def save(self, store: Any, conn: Any) -> None:
        rows = []
        for key in sorted(self._changed):
            form = self._forms.get(key)
            if form is not None:
                rows.append({
                    "id": hashlib.sha256(repr(key).encode()).hexdigest(), "tenant": key[0],
                    "form": ["{S}" if t == _SUBJECT else "{V}" if t == _VALUE else t for t in form.tokens],
                    "seen": {a: sorted(s) for a, s in form.seen.items()}, "contrary": dict(form.contrary),
                })
        self._changed.clear()
        if rows:
            store.save_learned_forms(conn, rows)

    def _add(self, tenant: str, tokens: tuple[str, ...]) -> Form | None:
        key = (tenant, tokens)
        entry = self._forms.get(key)
        if entry is None:
            if len(self._forms) >= self.max_forms:
                return None
            entry = self._forms[key] = Form(tokens, order=len(self._forms))
            words = entry.words
            self._by_word.setdefault((tenant, max(sorted(words), key=len)), []).append((entry, words))
        return entry

    def forget(self, tenant: str) -> int:
        """Drop every form of ``tenant`` (an erasure touched its lines); returns how many."""
        gone = [key for key in self._forms if key[0] == tenant]
        for key in gone:
            del self._forms[key]
        self._by_word = {key: forms for key, forms in self._by_word.items() if key[0] != tenant}
        self._changed = {key for key in self._changed if key[0] != tenant}
        return len(gone)

    def forms(self, tenant: str, confirmed: bool = True) -> list[tuple[str, str]]:
        """(slot attribute, the form with ``{S}`` and ``{V}``) of the tenant's forms (only the
        confirmed ones by default): what the store has learned to read."""
        out = []
        for (owner, tokens), form in self._forms.items():
            attribute = form.attribute(self.min_support) if confirmed else form.leading()
            if owner == tenant and attribute is not None:
                out.append((attribute, " ".join("{S}" if t == _SUBJECT else "{V}" if t == _VALUE else t for t in tokens)))
        return sorted(out)

    def observe(
        self, tenant: str, event: Any, current: Mapping[str, Mapping[str, str]], unread: bool
    ) -> list[FactClaim]:
        """One pass over the lines of ``event`` (``current``: subject -> its slots' current
        values, for the subjects the event may name). A line in a known form about a known
        subject confirms the form when it names the slot's current value, and counts against it
        when it names another; once the form is confirmed, an ``unread`` event's line in it is a
        claim. A line in no known form that names exactly one current value of one slot of a
        subject it names starts or extends a form."""
        claims: list[FactClaim] = []
        speaker = canonical_subject("I", event.actor, event.user_id)
        for line in _dated_lines(event.text or "", event.ts.timestamp()):
            tokens, valid_from = line.tokens, line.valid_from
            said = {t.casefold() for t in tokens}
            matched = False
            candidates = [f for word in said for f, words in self._by_word.get((tenant, word), ()) if words <= said]
            for form in sorted(candidates, key=lambda f: f.order):
                attribute = form.leading()
                found = form.match(tokens) if attribute is not None else None
                if found is None:
                    continue
                matched = True
                named, said_value = found
                subject = speaker if named is None else _known_subject(line.text_of(named), current)
                slots = current.get(subject) if subject else None
                if not slots or attribute not in slots:
                    continue
                value = line.text_of(said_value)
                holding = [a for a, v in slots.items() if value_key(v) == value_key(value) and a not in MULTI_VALUED_ATTRIBUTES]
                self._changed.add((tenant, form.tokens))
                if len(holding) == 1:
                    # A restatement (corroboration the rules may not have read), or another
                    # slot's value in this form: the form may not be the slot's after all.
                    form.seen.setdefault(holding[0], set()).add(_digest(subject))
                if holding:
                    continue
                form.contrary[attribute] = form.contrary.get(attribute, 0) + 1
                if unread and form.attribute(self.min_support) is not None and _fits(value, slots[attribute]):
                    name = line.text_of(named) if named is not None else subject
                    confidence = FORM_CONFIDENCE * min(1.0, float(event.confidence))
                    claims.append(FactClaim(subject, name, attribute, value, confidence, "learned-form", valid_from=valid_from))
                break
            if not matched:
                self._learn(tenant, tokens, current, speaker)
        return claims

    def _learn(self, tenant: str, tokens: tuple[str, ...], current: Mapping[str, Mapping[str, str]], speaker: str | None) -> None:
        found = _known_value_in(tokens, current, speaker)
        if found is None:
            return
        attribute, subject, form = found
        entry = self._add(tenant, form)
        if entry is not None:
            entry.seen.setdefault(attribute, set()).add(_digest(subject))
            self._changed.add((tenant, form))


def batch_reader(
    book: FormBook, store: Any, conn: Any, events: Sequence[Any]
) -> Callable[[Any, list[FactClaim], dict[tuple[str, str], list[str]]], list[FactClaim]] | None:
    """The learned forms' pass over one batch of stored events, for the belief layer: a function
    of (event, the rules' claims, what earlier events of the batch stated) that returns the
    claims, with what a form reads when the rules read nothing. The current values of the
    subjects the batch names are read once; what the batch states is laid over them as it goes."""
    texts = [e for e in events if e.text and e.kind in FORM_KINDS]
    if not texts:
        return None
    keys: dict[str, set[str]] = {}
    for event in texts:
        keys.setdefault(event.tenant, set()).update(named_subjects(event))
    stored: dict[str, dict[str, dict[str, str]]] = {}
    for tenant, named in keys.items():
        book.load(store, conn, tenant)
        subjects = sorted({subject for subject, _ in store.slots_of(conn, tenant, sorted(named))})
        rows = store.slot_facts(conn, tenant, subjects, with_events=False) if subjects else []
        for (subject, attribute), value in current_values(rows).items():
            stored.setdefault(tenant, {}).setdefault(subject, {})[attribute] = value

    def read(event: Any, claims: list[FactClaim], said: dict[tuple[str, str], list[str]]) -> list[FactClaim]:
        if not event.text or event.kind not in FORM_KINDS:
            return claims
        current = {subject: dict(slots) for subject, slots in stored.get(event.tenant, {}).items()}
        for (subject, attribute), values in said.items():
            current.setdefault(subject, {})[attribute] = values[-1]
        found = book.observe(event.tenant, event, current, unread=not claims)
        return claims or found

    return read


def _digest(subject: str) -> str:
    """A subject as forms keep it: only to count different subjects, never to name one."""
    return hashlib.sha256(subject.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Line:
    text: str
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    valid_from: float | None

    def text_of(self, at: tuple[int, int]) -> str:
        """The words of tokens ``at`` as written ("13:00-21:30", not its tokens rejoined)."""
        return self.text[self.spans[at[0]][0] : self.spans[at[1] - 1][1]]


def _dated_lines(text: str, reference: float) -> Iterable[_Line]:
    """Each short line of ``text`` as tokens, without an "as of DATE" frame (and that date)."""
    if text.lstrip().startswith(("{", "[")):
        return  # tool results are read field by field
    for line in text.splitlines():
        line, valid_from = line.strip(), None
        if (m := LEAD_DATE.match(line)) is not None:
            valid_from, line = parse_date(m["date"], reference), line[m.end():]
        elif (m := TAIL_DATE.search(line)) is not None:
            valid_from, line = parse_date(m["date"], reference), line[: m.start()]
        found = list(_TOKEN.finditer(line))
        if 3 <= len(found) <= MAX_LINE_TOKENS:
            yield _Line(line, tuple(m.group(0) for m in found), tuple(m.span() for m in found), valid_from)


def _known_value_in(
    tokens: tuple[str, ...], current: Mapping[str, Mapping[str, str]], speaker: str | None
) -> tuple[str, str, tuple[str, ...]] | None:
    """(attribute, subject, form) when the line names exactly one current value of one slot of
    a subject it names (or of its speaker, in the first person)."""
    folded = [t.casefold() for t in tokens]
    first_person = any(t in FIRST_PERSON or t.startswith(("i'", "i’")) for t in folded)
    hits: list[tuple[str, str, tuple[int, int], tuple[int, int] | None]] = []
    said = set(folded)
    for subject, slots in current.items():
        if not (first_person and subject == speaker) and not set(_tokens(subject)) <= said:
            continue  # every word of its name must be said (the search below, in one cheap test)
        named = _subject_span(folded, subject)
        if named is None and not (first_person and subject == speaker):
            continue
        for attribute, value in slots.items():
            if attribute in MULTI_VALUED_ATTRIBUTES:
                continue
            at = _span(folded, _tokens(value))
            if at is not None and (named is None or not _overlap(at, named)):
                hits.append((subject, attribute, at, named))
    if len(hits) != 1:
        return None
    subject, attribute, (v0, v1), named = hits[0]
    cut = {i: _VALUE for i in range(v0, v1)}
    if named is not None:
        cut.update({i: _SUBJECT for i in range(*named)})
    form: list[str] = []
    for i, token in enumerate(folded):
        mark = cut.get(i)
        if mark is None:
            form.append(token)
        elif not form or form[-1] != mark:
            form.append(mark)
    if not _has_own_words(form):
        return None
    return attribute, subject, tuple(form)


def _has_own_words(form: Sequence[str]) -> bool:
    words = [t for t in form if t not in (_SUBJECT, _VALUE) and t[:1].isalpha()]
    return any(len(w) >= 3 and w not in FUNCTION_WORDS and w not in FIRST_PERSON for w in words)


def _fits(value: str, current: str) -> bool:
    """A value of the shape of the slot's current value (a name for a name)."""
    return bool(value) and len(value) <= 80 and value_shape(value) == value_shape(current)


def _subject_span(tokens: Sequence[str], subject: str) -> tuple[int, int] | None:
    """Where the line names ``subject``: its words in a row, or in another order with function
    words and brackets between them ("the reach truck on the North Yard", "reach truck (North
    Yard)", "the North Yard reach truck" for ``reach truck north yard``)."""
    words = _tokens(subject)
    exact = _span(tokens, words)
    if exact is not None or len(words) < 2:
        return exact
    wanted, glue = set(words), FUNCTION_WORDS | {"(", ")"}
    for i, token in enumerate(tokens):
        if token not in wanted:
            continue
        seen: set[str] = set()
        for j in range(i, min(len(tokens), i + MAX_SPAN_TOKENS)):
            if tokens[j] in wanted:
                seen.add(tokens[j])
            elif tokens[j] not in glue:
                break
            if seen == wanted:
                closes = j + 1 < len(tokens) and tokens[j + 1] == ")" and "(" in tokens[i : j + 1]
                return i, j + 2 if closes else j + 1
    return None


def _known_subject(named: str, current: Mapping[str, Mapping[str, str]]) -> str | None:
    """The known subject a form's subject span names: its canonical id, or the one known subject
    whose name has exactly the span's words ("North Yard reach truck")."""
    subject = canonical_subject(named)
    if subject is None or subject in current:
        return subject
    words = set(_tokens(named)) - FUNCTION_WORDS - {"(", ")"}
    same = [key for key in current if set(_tokens(key)) == words]
    return same[0] if len(same) == 1 else subject


def _span(tokens: Sequence[str], needle: Sequence[str]) -> tuple[int, int] | None:
    """The first place ``needle`` occurs as whole tokens."""
    n = len(needle)
    if not n or n > MAX_SPAN_TOKENS:
        return None
    for i in range(len(tokens) - n + 1):
        if list(tokens[i : i + n]) == list(needle):
            return i, i + n
    return None


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(t.casefold() for t in _TOKEN.findall(text))


