"""What every record shares: ids, UTC time and the frozen configuration."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from pydantic import ConfigDict

FROZEN = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)
"""Inputs and read records: immutable, and an unknown field is an error."""


def new_id() -> str:
    """A fresh random id (32 hex characters)."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken to be UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)
