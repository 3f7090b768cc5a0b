"""Turning caller input into an :class:`Event`, or an error that names the field.

Validation is total: whatever reaches the store can be stored by both backends. Beyond the
record's own rules, each event is checked for what SQLite and PostgreSQL cannot hold alike — a
lone surrogate in any string (UTF-8 cannot encode it), NUL in an id or a name (PostgreSQL text
cannot hold it; in ``text`` it is removed by normalisation), NaN or infinity (not JSON), nesting
deeper than :data:`MAX_JSON_DEPTH`, strings longer than their SQL column, a timestamp outside
the years 1–9999, and ``meta`` / ``tool_args`` / ``tool_schema`` larger than their limits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from deltacore.errors import InvalidEventError, first_validation_error
from deltacore.model import Event, EventKind

_KINDS = ", ".join(kind.value for kind in EventKind)

MAX_JSON_DEPTH = 64
"""How deep ``meta``, ``tool_args`` and ``tool_schema`` may nest (dicts and lists)."""
MAX_JSON_CHARS = 1_000_000
"""The default of how many characters of strings and keys ``meta`` and ``tool_args`` may each
hold (``DeltaCoreConfig.max_meta_chars`` / ``max_tool_args_chars``), and the fixed limit of
``tool_schema``: one event cannot carry an unbounded payload past the text limit."""


@dataclass(frozen=True)
class FieldLimits:
    """The per-field size limits of one store (``DeltaCoreConfig.max_*_chars``)."""

    text: int = 100_000
    tool_args: int = MAX_JSON_CHARS
    meta: int = MAX_JSON_CHARS

    @classmethod
    def of(cls, config: Any) -> FieldLimits:
        return cls(config.max_text_chars, config.max_tool_args_chars, config.max_meta_chars)

    def of_json(self, field: str) -> tuple[int, str | None]:
        """(limit, the config field that raises it) of a JSON field."""
        if field == "tool_args":
            return self.tool_args, "max_tool_args_chars"
        if field == "meta":
            return self.meta, "max_meta_chars"
        return MAX_JSON_CHARS, None

# The SQL column widths (``deltacore.storage.tables``) of the fields a caller gives.
_COLUMN_WIDTHS = {
    "id": 128, "tenant": 128, "agent_id": 128, "user_id": 128, "session_id": 128, "episode_id": 128,
    "role": 64, "actor": 256, "source": 256, "tool_name": 256, "tool_schema_hash": 64,
}
_ID_LISTS = {"parent_ids": 128, "entities": 256}
_JSON_FIELDS = ("meta", "tool_args", "tool_schema")


def coerce_event(raw: Any, index: int, limits: FieldLimits | int) -> Event:
    """Validate one input (an ``Event`` or a mapping) against the record, the store and the limits
    (a :class:`FieldLimits`, or just the text limit)."""
    if isinstance(limits, int):
        limits = FieldLimits(text=limits)
    if isinstance(raw, Event):
        event = raw
    elif isinstance(raw, dict):
        # Before the record is built: a deep or huge payload must not reach pydantic or a hash.
        for name in _JSON_FIELDS:
            if raw.get(name) is not None:
                _check_json(raw[name], name, index, limits)
        try:
            event = Event.model_validate(raw)
        except ValidationError as exc:
            raise _translate(exc, index) from exc
        except (OverflowError, ValueError) as exc:
            # A tz-aware timestamp near year 1 or 9999 overflows when converted to UTC.
            raise InvalidEventError("ts", f"cannot be stored ({exc}); give a time between the years 1 and 9999", index=index) from exc
    else:
        raise InvalidEventError(
            "event", f"expected an Event or a dict, got {type(raw).__name__}", index=index
        )
    if len(event.text) > limits.text:
        raise InvalidEventError(
            "text",
            f"{len(event.text):,} characters is over the limit of {limits.text:,} (DeltaCoreConfig.max_text_chars); "
            "split the text into several events or raise max_text_chars",
            index=index,
        )
    check_storable(event, index, limits)
    return event


def check_storable(event: Event, index: int | None = None, limits: FieldLimits | None = None) -> None:
    """Raise :class:`InvalidEventError` naming the field both backends could not store."""
    _check_text(event.text, "text", index, nul_allowed=True)
    values = {"id": event.id, **event.scope.fields(), **{name: getattr(event, name) for name in _COLUMN_WIDTHS if name not in ("id", "tenant", "agent_id", "user_id", "session_id")}}
    for name, value in values.items():
        if value is not None:
            _check_name(value, name, _COLUMN_WIDTHS[name], index)
    for name, width in _ID_LISTS.items():
        for position, value in enumerate(getattr(event, name)):
            _check_name(value, f"{name}.{position}", width, index)
    if not math.isfinite(event.confidence):
        raise InvalidEventError("confidence", "must be a finite number between 0 and 1", index=index)
    try:
        event.ts.timestamp()
    except (OverflowError, ValueError, OSError) as exc:
        raise InvalidEventError("ts", f"cannot be stored ({exc}); give a time between the years 1 and 9999", index=index) from exc
    for name in _JSON_FIELDS:
        value = getattr(event, name)
        if value is not None:
            _check_json(value, name, index, limits or FieldLimits())


def _check_name(value: str, field: str, width: int, index: int | None) -> None:
    _check_text(value, field, index, nul_allowed=False)
    if len(value) > width:
        raise InvalidEventError(field, f"{len(value)} characters is over the limit of {width}", index=index)


def _check_text(value: str, field: str, index: int | None, *, nul_allowed: bool) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidEventError(
            field, f"holds a lone surrogate at position {exc.start} (not valid Unicode); decode the input properly", index=index
        ) from exc
    if not nul_allowed and "\x00" in value:
        raise InvalidEventError(field, "holds a NUL character, which the database cannot store", index=index)


def _check_json(value: Any, field: str, index: int | None, limits: FieldLimits) -> None:
    """Walk a JSON value without recursion: depth, size, finite numbers, storable strings."""
    limit, setting = limits.of_json(field)
    budget = limit
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item, path, index, nul_allowed=False)
            budget -= len(item)
        elif isinstance(item, bool) or item is None or isinstance(item, int):
            continue
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidEventError(path, f"{item} is not a JSON number; use a finite number or null", index=index)
        elif isinstance(item, (Mapping, list, tuple)):
            if depth >= MAX_JSON_DEPTH:
                raise InvalidEventError(field, f"nests deeper than {MAX_JSON_DEPTH} levels (at {path[:120]})", index=index)
            if isinstance(item, Mapping):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise InvalidEventError(path, f"key {key!r} is not a string; JSON keys are strings", index=index)
                    _check_text(key, f"{path} key", index, nul_allowed=False)
                    budget -= len(key)
                    stack.append((child, f"{path}.{key[:40]}", depth + 1))
            else:
                stack.extend((child, f"{path}.{position}", depth + 1) for position, child in enumerate(item))
        else:
            raise InvalidEventError(path, f"a {type(item).__name__} is not JSON; give strings, numbers, lists and dicts", index=index)
        if budget < 0:
            how = f" (DeltaCoreConfig.{setting}; raise it to allow more)" if setting else ""
            raise InvalidEventError(
                field,
                f"holds over {limit:,} characters of strings and keys{how}; store large payloads elsewhere and keep a reference",
                index=index,
            )


def _translate(exc: ValidationError, index: int) -> InvalidEventError:
    error = exc.errors()[0]
    field, message = first_validation_error(exc, "event")
    if field == "kind":
        message = f"unknown kind {error.get('input')!r}; use one of: {_KINDS}"
    elif error["type"] == "extra_forbidden":
        message = "unknown field; put extra data in 'meta'"
    elif field == "event" or not error["loc"]:
        field = "text" if "text" in message else "tool_name" if "tool_name" in message else "event"
    return InvalidEventError(field, message, index=index)
