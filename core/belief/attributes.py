"""Attribute slot identity: a curated lexicon first, then predicate-embedding similarity.

"lives in", "has an apartment in" and a JSON key ``home_city`` all name one attribute, "home
city". The lexicon (:mod:`deltacore.belief.lexicon`) knows the common names; a phrase it does not
know is embedded with the store's own embedder and compared with the prototype phrases below.
It is taken only when the best attribute is similar enough (``threshold``) *and* clearly ahead
of the second best (``margin``): an unsure predicate makes no fact, an unsure JSON key stays an
attribute of its own name (a duplicate slot costs less than a wrong supersede).

A prototype starting with ``<`` is *value first*: in "Lina leads Project Juniper" the value
(Lina) comes before the subject (Project Juniper).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
from deltacore.belief.lexicon import ATTRIBUTES, WORD_SENSE as _SENSE

# attribute -> how statements say it (predicates between subject and value, and key-like names)
PROTOTYPES: dict[str, tuple[str, ...]] = {
    "home city": ("lives in", "is living in", "resides in", "home is in", "is based in", "moved to", "relocated to",
                  "has a home in", "has an apartment in", "moved house to", "home city", "city of residence"),
    "work city": ("works in the city of", "office is in", "works from the office in", "commutes to the office in",
                  "transferred to the office in", "work location", "office city", "office location"),
    "employer": ("works for", "is employed by", "works at the company", "joined the company", "is on the payroll at",
                 "started a new job at", "employer", "company"),
    "preferred language": ("prefers the programming language", "codes in", "programs in", "writes code in",
                           "writes everything in", "switched to the language", "favourite programming language"),
    "job title": ("works as", "job title is", "role is", "has the role of", "took on a new role as", "occupation"),
    "status": ("status is", "state changed to", "is currently", "service health"),
    "version": ("runs version", "is on version", "was upgraded to version", "deployed version", "release version"),
    "region": ("is hosted in the region", "runs in the cloud region", "was migrated to the region", "cloud region"),
    "owner": ("is owned by the team", "ownership moved to the team", "was handed over to the team",
              "owning team", "< owns"),
    "on call": ("on-call person", "on-call rotation", "< is on call for", "< took over the on-call rotation of"),
    "deadline": ("is due on", "deadline is", "deadline moved to", "due date", "slipped to"),
    "lead": ("is led by", "project lead", "has a new lead", "< leads", "< took over as lead of"),
    "manager": ("reports to", "manager is", "line manager"),
}

_PHRASE = re.compile(r"[^\w\s<-]+")
_KNOWN_NAMES = frozenset(ATTRIBUTES.values())
# A phrase whose last word is a lexicon word ("phone", "city") names that kind of thing: only an
# attribute said with that word may take it.
_HEAD_KINDS: dict[str, frozenset[str]] = {}
for _synonym in ATTRIBUTES:
    _head = _synonym.split()[-1]
    _HEAD_KINDS[_head] = frozenset(n for syn, n in ATTRIBUTES.items() if syn.split()[-1] == _head)


def head_kinds(text: str) -> frozenset[str] | None:
    """The lexicon attributes a phrase's last word can name ("office phone" → phone), or None
    when that word is no lexicon word."""
    words = text.split()
    return _HEAD_KINDS.get(words[-1]) if words else None


def same_slot(attribute: str, known: set[str] | frozenset[str]) -> str | None:
    """The subject's existing attribute that ``attribute`` names by its head noun ("executive
    sponsor" and "sponsor"), when ``attribute`` is no lexicon name (those are exact: "work city"
    never becomes "city"). None when there is not exactly one such attribute."""
    if attribute in known or attribute in _KNOWN_NAMES:
        return None
    words = attribute.split()
    found = set()
    for other in known:
        if other in _KNOWN_NAMES and len(words) == 1:
            continue
        theirs = other.split()
        if len(words) > 1 and theirs == words[-1:] or len(theirs) > 1 and words == theirs[-1:]:
            found.add(other)
    if not found:
        # A sheet's one-word column names the slot by its modifier: "Primary" of a "main route",
        # "Relief" of a "relief route", "Base" of a "base depot".
        lead = [_SENSE.get(w, w) for w in words]
        for other in known:
            theirs = [_SENSE.get(w, w) for w in other.split()]
            if other not in _KNOWN_NAMES and (len(lead) == 1 < len(theirs) or len(theirs) == 1 < len(lead)) and lead[0] == theirs[0]:
                found.add(other)
    return found.pop() if len(found) == 1 else None


def phrase_text(phrase: str) -> str:
    return " ".join(_PHRASE.sub(" ", phrase.replace("_", " ")).casefold().split())


class AttributeResolver:
    """Maps a predicate or attribute name to a normalised attribute (and whether the value comes
    first). Thread-safe; embeddings of phrases are cached (an LRU of ``cache_size``)."""

    def __init__(
        self,
        embed: Callable[[list[str]], Any] | None = None,
        threshold: float = 0.62,
        margin: float = 0.04,
        cache_size: int = 4096,
    ) -> None:
        self._embed = embed
        self.threshold = threshold
        self.margin = margin
        self._cache: OrderedDict[str, tuple[str, bool, float] | None] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._labels: list[tuple[str, bool]] = []

    @property
    def embeds(self) -> bool:
        return self._embed is not None

    def resolve(self, phrase: str) -> tuple[str, bool, float] | None:
        """(attribute, value first, similarity) for ``phrase``; None when unsure or no embedder."""
        text = phrase_text(phrase)
        if not text:
            return None
        if text in ATTRIBUTES:
            return ATTRIBUTES[text], False, 1.0
        if self._embed is None:
            return None
        with self._lock:
            if text in self._cache:
                self._cache.move_to_end(text)
                return self._cache[text]
        found = self._nearest(text)
        with self._lock:
            self._cache[text] = found
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return found

    def prefetch(self, phrases: list[str]) -> None:
        """Resolve many phrases with one embedding call (the write path's batch)."""
        if self._embed is None:
            return
        with self._lock:
            todo = sorted({t for t in map(phrase_text, phrases) if t and t not in ATTRIBUTES and t not in self._cache})
        if not todo:
            return
        try:
            matrix, labels = self._prototypes()
            vectors = unit_rows(self._embed(todo))
        except Exception:  # noqa: BLE001 - an embedder failure must never fail the write
            return
        found = {text: self._pick(text, matrix @ vector, labels) for text, vector in zip(todo, vectors)}
        with self._lock:
            self._cache.update(found)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _prototypes(self) -> tuple[np.ndarray, list[tuple[str, bool]]]:
        if self._matrix is None:
            texts, labels = [], []
            for attribute, phrases in PROTOTYPES.items():
                for p in phrases:
                    first = p.startswith("<")
                    texts.append(p.lstrip("< "))
                    labels.append((attribute, first))
            self._matrix, self._labels = unit_rows(self._embed(texts)), labels  # type: ignore[misc]
        return self._matrix, self._labels

    def _nearest(self, text: str) -> tuple[str, bool, float] | None:
        try:
            matrix, labels = self._prototypes()
            vector = unit_rows(self._embed([text]))[0]  # type: ignore[misc]
        except Exception:  # noqa: BLE001 - an embedder failure must never fail the write
            return None
        return self._pick(text, matrix @ vector, labels)

    def _pick(self, text: str, sims: np.ndarray, labels: list[tuple[str, bool]]) -> tuple[str, bool, float] | None:
        best: dict[str, tuple[float, bool]] = {}
        kinds = head_kinds(text)
        for (attribute, first), sim in zip(labels, sims.tolist()):
            if kinds is not None and attribute not in kinds:
                continue  # "office phone" is a phone, never the "office city" its vector is near
            if attribute not in best or sim > best[attribute][0]:
                best[attribute] = (sim, first)
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
        if not ranked:
            return None
        (attribute, (sim, first)) = ranked[0]
        runner_up = ranked[1][1][0] if len(ranked) > 1 else -1.0
        if sim < self.threshold or sim - runner_up < self.margin:
            return None
        return attribute, first, round(float(sim), 4)


def unit_rows(vectors: Any) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
