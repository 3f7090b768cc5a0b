"""A claim found in an event; the dates statements carry ("as of 4 March 2026") are read by ``dates.py``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from deltacore.belief.dates import parse_date


@dataclass(frozen=True, slots=True)
class FactClaim:
    """One statement of a value for a slot, as found in one event."""

    subject: str
    subject_name: str
    attribute: str
    value: str
    confidence: float
    method: str
    valid_from: float | None = None
    """Unix seconds when the statement says when it became true ("as of March 2025")."""
    correction: bool = False
    denied: str | None = None
    """The value a correction says is wrong ("…, not Paris")."""
    open_predicate: bool = False
    """True when ``attribute`` is a verb phrase no lexicon or prototype names ("is coached by"):
    the belief layer joins it to one of the subject's existing slots or drops the claim; it
    never opens a slot of its own (a distractor such as "flew to X" must not become one)."""
    previous: str | None = None
    """The old value a change names ("swapped Vim for Emacs", "went from A to B"): the slot
    whose current value it is, is the slot the change is about."""


def timestamp_of(value: Any) -> float | None:
    """Unix seconds of a datetime, a number or an ISO string; None when it is none of them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))  # noqa: FURB162 - Python 3.10
        except ValueError:
            return parse_date(value, 0.0) if re.search(r"\d{4}", value) else None
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    return None


