"""Turning caller input into an :class:`Event`, or an error that names the field."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from deltacore.errors import InvalidEventError
from deltacore.model import Event, EventKind

_KINDS = ", ".join(kind.value for kind in EventKind)


def coerce_event(raw: Any, index: int, max_text_chars: int) -> Event:
    """Validate one input (an ``Event`` or a mapping) against the record and the size limit."""
    if isinstance(raw, Event):
        event = raw
    elif isinstance(raw, dict):
        try:
            event = Event.model_validate(raw)
        except ValidationError as exc:
            raise _translate(exc, index) from exc
    else:
        raise InvalidEventError(
            "event", f"expected an Event or a dict, got {type(raw).__name__}", index=index
        )
    if len(event.text) > max_text_chars:
        raise InvalidEventError(
            "text",
            f"{len(event.text)} characters is over the limit of {max_text_chars}; split the text into "
            "several events or raise DeltaCoreConfig.max_text_chars",
            index=index,
        )
    return event


def _translate(exc: ValidationError, index: int) -> InvalidEventError:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "event"
    message = error["msg"].removeprefix("Value error, ")
    if field == "kind":
        message = f"unknown kind {error.get('input')!r}; use one of: {_KINDS}"
    elif error["type"] == "extra_forbidden":
        message = "unknown field; put extra data in 'meta'"
    elif field == "event" or not error["loc"]:
        field = "text" if "text" in message else "tool_name" if "tool_name" in message else "event"
    return InvalidEventError(field, message, index=index)
