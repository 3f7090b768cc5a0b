"""Open-vocabulary slot identity: an attribute the lexicon does not know joins the subject's
existing slot it names in other words ("favourite lang" → the subject's "preferred language").

The lexicon (:mod:`deltacore.belief.lexicon`) and the prototype resolver
(:mod:`deltacore.belief.attributes`) name attributes globally. A possessive, label or JSON key
they cannot name ("Mari's favourite lang is OCaml", ``{"ship_by": …}``) becomes an attribute of
its own words. Before it opens a new slot, its phrase is embedded with the store's embedder and
compared with the slots the same subject already has, each represented by its name (plus, for a
lexicon attribute, its synonyms and prototype phrases). It joins the best one when the cosine
similarity is at least ``threshold`` and clearly ahead (``margin``) of the subject's next slot;
otherwise it stays a slot of its own (a duplicate slot costs less than a wrong supersede).

Embeddings cannot tell look-alikes apart: MiniLM puts "home city" 0.67 from "work city" and
"staging url" 0.70 from "production url", as close as true synonyms. So two phrases that share
a word and differ in another ("home city" / "work city", "start date" / "end date") are a
qualified pair and never joined, whatever their similarity.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from deltacore.belief.attributes import PROTOTYPES, head_kinds, phrase_text, unit_rows
from deltacore.belief.lexicon import ATTRIBUTES, WORD_SENSE

_LEXICON_NAMES = frozenset(ATTRIBUTES.values())
_SYNONYMS: dict[str, tuple[str, ...]] = {}
for _synonym, _name in ATTRIBUTES.items():
    _SYNONYMS.setdefault(_name, ())
    _SYNONYMS[_name] += (_synonym,)
MIN_PREFIX = 3


def _same_word(a: str, b: str) -> bool:
    """One word, one a clipped form of the other ("lang" / "language"), or two words of one
    sense in the curated lexicon ("main" / "primary")."""
    return (
        a == b
        or min(len(a), len(b)) >= MIN_PREFIX
        and (a.startswith(b) or b.startswith(a))
        or a in WORD_SENSE and WORD_SENSE[a] == WORD_SENSE.get(b)
    )


def qualified_pair(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` share a word and each has a word the other lacks: the same
    kind of thing with different qualifiers ("home city" / "work city"), which no similarity
    may merge."""
    left, right = a.split(), b.split()
    shared = any(_same_word(x, y) for x in left for y in right)
    if not shared:
        return False
    left_only = [x for x in left if not any(_same_word(x, y) for y in right)]
    right_only = [y for y in right if not any(_same_word(x, y) for x in left)]
    return bool(left_only) and bool(right_only)


def other_head(a: str, b: str) -> bool:
    """True when the phrases share a word but end in different ones: "release date" is no
    "release", whatever their vectors say."""
    left, right = a.split(), b.split()
    shared = any(_same_word(x, y) for x in left for y in right)
    return shared and not _same_word(left[-1], right[-1])


def aligned(a: str, b: str) -> bool:
    """Every word of each phrase is a word of the other, or a clipped form of one."""
    left, right = a.split(), b.split()
    return all(any(_same_word(x, y) for y in right) for x in left) and all(
        any(_same_word(x, y) for x in left) for y in right
    )


def synonymous(a: str, b: str) -> bool:
    """The same words, in the same order, each the word itself or one of its curated senses."""
    left, right = a.split(), b.split()
    return len(left) == len(right) and all(
        x == y or x in WORD_SENSE and WORD_SENSE[x] == WORD_SENSE.get(y) for x, y in zip(left, right)
    )


def slot_phrases(attribute: str) -> tuple[str, ...]:
    """How a slot is said: its name, and for a lexicon attribute its synonyms and prototypes."""
    phrases = [attribute, *_SYNONYMS.get(attribute, ())]
    phrases += [
        p.lstrip("< ") for p in PROTOTYPES.get(attribute, ()) if not p.startswith("<")
    ]
    return tuple(dict.fromkeys(phrase_text(p) for p in phrases if phrase_text(p)))


# Words that carry no meaning of their own in a verb phrase ("is", "by", "the").
FUNCTION_WORDS = frozenset(
    {"is", "are", "am", "was", "were", "be", "been", "being", "has", "have", "had", "the", "a", "an", "to", "of", "in",
     "on", "at", "for", "by", "with", "from", "as", "into", "onto", "and", "or", "now", "just", "new", "its"}
)


def content_words(phrase: str) -> str:
    """A phrase without its function words ("is coached by" → "coached")."""
    return " ".join(w for w in phrase.split() if w not in FUNCTION_WORDS)


class SlotMatcher:
    """Joins an unknown attribute phrase to one of a subject's existing slots by embedding
    similarity. Thread-safe; phrase vectors are cached (an LRU of ``cache_size``)."""

    def __init__(
        self,
        embed: Callable[[list[str]], Any],
        threshold: float = 0.7,
        margin: float = 0.05,
        cache_size: int = 4096,
    ) -> None:
        self._embed = embed
        self.threshold = threshold
        self.margin = margin
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @staticmethod
    def candidate(attribute: str) -> bool:
        """Only attributes the lexicon does not name are joined: lexicon names are exact."""
        return attribute not in _LEXICON_NAMES and bool(phrase_text(attribute))

    def prefetch(self, attributes: Iterable[str]) -> bool:
        """Embed, in one call, every phrase of ``attributes`` not cached yet. False when the
        embedder failed (then nothing is joined: the write must not fail for it)."""
        texts = {p for a in attributes for p in slot_phrases(a)}
        with self._lock:
            todo = sorted(t for t in texts if t not in self._vectors)
        if not todo:
            return True
        try:
            vectors = unit_rows(self._embed(todo))
        except Exception:  # noqa: BLE001 - an embedder failure must never fail the write
            return False
        with self._lock:
            self._vectors.update(zip(todo, vectors))
            while len(self._vectors) > self._cache_size:
                self._vectors.popitem(last=False)
        return True

    def join_predicate(self, predicate: str, known: Iterable[str]) -> str | None:
        """The one slot of ``known`` that a verb phrase names ("is coached by" → "coach"), or
        None. The lexical look-alike rules compare content words only: "is coached by" ends in
        "by", but its word is "coached"."""
        return self.join(predicate, known, lexical=content_words)

    def join(self, attribute: str, known: Iterable[str], lexical: Callable[[str], str] | None = None) -> str | None:
        """The one slot of ``known`` that ``attribute`` names in other words, or None."""
        if not self.candidate(attribute):
            return None
        words = lexical or (lambda phrase: phrase)
        text = phrase_text(attribute)
        known = set(known)
        others = sorted(k for k in known if k != attribute)
        mine = words(text)
        if not others or not mine:
            return None
        # Word for word the same name in the lexicon's senses ("primary route" / "main route"):
        # no vector needs to agree. A slot the subject has already stays its own.
        spelled = [k for k in others if synonymous(mine, words(phrase_text(k)))]
        if len(spelled) == 1 and attribute not in known:
            return spelled[0]
        if not self.prefetch([attribute, *others]):
            return None
        with self._lock:
            vector = self._vectors.get(text)
            phrases = {
                k: [(p, self._vectors.get(p)) for p in slot_phrases(k)] for k in others
            }
        if vector is None:
            return None
        scores: list[tuple[float, str]] = []
        kinds = head_kinds(mine)
        for slot, said in phrases.items():
            if kinds is not None and slot in _LEXICON_NAMES and slot not in kinds:
                continue  # "release date" is a date, never the subject's version
            if qualified_pair(mine, words(phrase_text(slot))) and not any(
                aligned(mine, words(p)) for p, _ in said
            ):
                continue  # "office phone" never joins "home phone", however close their vectors
            sims = [
                float(v @ vector)
                for p, v in said
                if v is not None
                and words(p)
                and not qualified_pair(mine, words(p))
                and not other_head(mine, words(p))
            ]
            if sims:
                scores.append((max(sims), slot))
        if not scores:
            return None
        scores.sort(reverse=True)
        best, slot = scores[0]
        runner_up = scores[1][0] if len(scores) > 1 else -1.0
        if best < self.threshold or best - runner_up < self.margin:
            return None
        return slot
