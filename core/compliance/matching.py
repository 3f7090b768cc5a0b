"""Does a text name the subject? The request's strings, matched after the gateway's folding.

A name is matched on word boundaries in the *folded* form of both sides (NFKC, invisible
characters removed, accents stripped, Latin look-alikes folded, case folded:
``deltacore.gateway.normalization.fold``), so "ALICE SMITH", "Àlice Smith" and a name written
with Cyrillic look-alike letters all match "Alice Smith". A case-folded test runs first; only
non-ASCII text is folded (leetspeak in plain ASCII, "4lice", is not matched: obfuscation is an
attacker's tool, not how a person's data is written).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deltacore.gateway.normalization import fold

__all__ = ["SubjectMatcher"]


def _pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])" + re.escape(term) + r"(?![\w])")


class SubjectMatcher:
    """Tests texts against a request's terms (subject and identifiers)."""

    def __init__(self, terms: Iterable[str]) -> None:
        plain = [term.strip() for term in terms if term and term.strip()]
        self.terms = tuple(dict.fromkeys(plain))
        self._casefolded = tuple(dict.fromkeys(term.casefold() for term in self.terms))
        self._folded = tuple(dict.fromkeys(fold(term) for term in self.terms))
        self._patterns = [_pattern(term) for term in dict.fromkeys(self._casefolded + self._folded) if term]
        # Words of a multi-word name are not matched alone ("Smith" elsewhere is somebody else);
        # the index lookups (entity, mention) use the whole casefolded names.
        self.index_names = tuple(dict.fromkeys(self._casefolded + self._folded))

    @property
    def candidates(self) -> tuple[str, ...]:
        """What a row must hold (in any ASCII case) to be worth matching, when it is plain
        ASCII: every term casefolded and folded (``ErasureRepository.scan`` narrows with it)."""
        return self.index_names

    def __bool__(self) -> bool:
        return bool(self.terms)

    def matches(self, text: str) -> bool:
        if not text or not self._patterns:
            return False
        lowered = text.casefold()
        if any(pattern.search(lowered) for pattern in self._patterns):
            return True
        if text.isascii():
            # Folding ASCII changes only case (tested above) and leetspeak ("4lice"): a person's
            # data is written plainly, and folding every row made a scan of 5k memories take seconds.
            return False
        folded = fold(text)
        return any(pattern.search(folded) for pattern in self._patterns)
