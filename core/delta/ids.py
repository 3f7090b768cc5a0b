"""Delta ids: derived from the event id, so replaying a batch after a crash cannot create a
second delta for the same event."""

from __future__ import annotations

import hashlib


def delta_id_for(event_id: str) -> str:
    """The id of the delta extracted from event ``event_id`` (32 hex characters)."""
    return hashlib.sha1(event_id.encode()).hexdigest()[:32]
