"""Look-alike subjects (E06, ``ALIAS_AMBIGUITY``): kept apart, flagged, never merged.

Two subjects are look-alikes when a reader could take one for the other:

- the same name with a different **disambiguation key**: "api-staging" / "api-production" /
  "api" (environment, replica and region words, see :data:`DISAMBIGUATION_KEYS`);
- **near-identical names**: one letter inserted, deleted, swapped with its neighbour or (from
  four letters on) replaced, with the same first letter: "Ana" / "Anna", "Jon" / "John",
  "Kristin" / "Kirstin". Numbered instances ("node-1" / "node-2") and plurals are plainly
  different names and are not flagged.

Slot identity never merges them (:mod:`deltacore.belief.lexicon` matches subjects exactly); this
module only says which pairs to flag. Pure string rules: deterministic, no model, no LLM.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

DISAMBIGUATION_KEYS = frozenset(
    {
        # environments
        "prod", "production", "live", "staging", "stage", "stg", "preprod", "dev", "development", "test",
        "testing", "qa", "uat", "sandbox", "preview", "canary", "demo", "local", "beta", "alpha", "perf",
        # roles of a copy
        "primary", "secondary", "replica", "backup", "standby", "legacy", "internal", "external",
        # regions
        "eu", "us", "uk", "apac", "emea", "east", "west", "north", "south", "central",
    }
)  # fmt: skip
_SEPARATORS = re.compile(r"[\s\-_./:@]+")
_LETTERS = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class AliasPair:
    """Two subjects a reader could take for each other, and why."""

    subjects: tuple[str, str]
    """Canonical subject ids, sorted."""
    reason: str
    """``"disambiguation key"`` or ``"near-identical name"``."""

    def payload(self) -> dict[str, object]:
        """The ``ALIAS_AMBIGUITY`` system event's payload."""
        return {"code": "E06", "subjects": list(self.subjects), "reason": self.reason, "action": "kept apart"}


def _parts(subject: str) -> tuple[tuple[str, ...], frozenset[str]]:
    tokens = [t for t in _SEPARATORS.split(subject.casefold()) if t]
    return tuple(t for t in tokens if t not in DISAMBIGUATION_KEYS), frozenset(t for t in tokens if t in DISAMBIGUATION_KEYS)


def _one_letter_apart(a: str, b: str) -> bool:
    """One letter inserted, deleted, replaced (4+ letters) or swapped with its neighbour."""
    if a == b or a[:1] != b[:1]:
        return False
    if len(a) > len(b):
        a, b = b, a
    if len(a) < 3 or len(b) - len(a) > 1:
        return False
    if len(a) < len(b):
        if b == a + "s":
            return False  # a plural, not another name
        i = next((i for i in range(len(a)) if a[i] != b[i]), len(a))
        return a[i:] == b[i + 1 :] and b[i].isalpha()
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) == 1:
        return len(a) >= 4 and a[diff[0]].isalpha() and b[diff[0]].isalpha()
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def alias_reason(a: str, b: str) -> str | None:
    """Why subjects ``a`` and ``b`` (canonical ids) are look-alikes; None when they are not."""
    if a == b:
        return None
    (stem_a, keys_a), (stem_b, keys_b) = _parts(a), _parts(b)
    if stem_a and stem_a == stem_b and keys_a != keys_b:
        return "disambiguation key"
    if _one_letter_apart(_LETTERS.sub("", a.casefold()), _LETTERS.sub("", b.casefold())):
        return "near-identical name"
    return None


def look_alikes(subject: str, known: Iterable[str]) -> list[str]:
    """The subjects among ``known`` that ``subject`` could be taken for, sorted."""
    return sorted({other for other in known if alias_reason(subject, other) is not None})


def new_pairs(new: Iterable[str], known: Iterable[str]) -> list[AliasPair]:
    """The look-alike pairs that subjects seen for the first time (``new``) form with the ones
    already known and with each other. A subject is new only once, so each pair is found once."""
    fresh = sorted(set(new))
    older = sorted(set(known) - set(fresh))
    pairs = []
    for i, subject in enumerate(fresh):
        for other in [*older, *fresh[i + 1 :]]:
            reason = alias_reason(subject, other)
            if reason is not None:
                pairs.append(AliasPair(tuple(sorted((subject, other))), reason))  # type: ignore[arg-type]
    return sorted(pairs, key=lambda p: p.subjects)
