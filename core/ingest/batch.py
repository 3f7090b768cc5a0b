"""Stage one of the write: validate, normalise, drop in-batch repeats, admit.

A bad event becomes a :class:`~deltacore.model.Rejection` (index, field, reason) and the rest of
the batch goes on; a repeat of an earlier event of the same batch (same id, or the same duplicate
key in the same tenant: ``DeltaCoreConfig.dedupe``) is resolved to its first occurrence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from deltacore.errors import InvalidEventError
from deltacore.gateway import Admission
from deltacore.ingest.normalize import content_hash, normalize_event
from deltacore.ingest.stages import Admitted, ValidatedBatch
from deltacore.ingest.validation import FieldLimits, coerce_event
from deltacore.model import Channel, Event, Rejection


def validate_batch(
    raw_events: Sequence[Any],
    channel: Channel | None,
    admit: Callable[[Event, Channel | None], Admission],
    limits: FieldLimits | int,
    dedupe: str = "occurrence",
) -> ValidatedBatch:
    items: list[Admitted] = []
    rejected: list[Rejection] = []
    copies: list[tuple[int, int]] = []
    first_with_id: dict[str, int] = {}
    first_with_hash: dict[tuple[str, str], int] = {}
    for index, raw in enumerate(raw_events):
        try:
            event = normalize_event(coerce_event(raw, index, limits))
            digest = _dedupe_hash(event, raw, dedupe)
        except InvalidEventError as exc:
            rejected.append(Rejection(index=index, field=exc.field, reason=exc.reason, event_id=_raw_id(raw)))
            continue
        except (TypeError, ValueError, ArithmeticError, RecursionError) as exc:
            # The last line of the boundary: whatever validation missed costs this item, never the batch.
            rejected.append(Rejection(index=index, field="event", reason=f"cannot be stored: {exc}", event_id=_raw_id(raw)))
            continue
        first = first_with_id.get(event.id, first_with_hash.get((event.tenant, digest)))
        if first is not None:
            copies.append((index, first))
            continue
        first_with_id[event.id] = index
        first_with_hash[(event.tenant, digest)] = index
        items.append(Admitted(index, event, admit(event, channel), digest))
    return ValidatedBatch(tuple(items), tuple(rejected), tuple(copies))


def _dedupe_hash(event: Event, raw: Any, mode: str) -> str:
    """The duplicate key under ``DeltaCoreConfig.dedupe`` (see ``content_hash``): ``off`` keys
    each event by its id, so only a replay of the same id is a duplicate."""
    if mode == "off":
        return content_hash(event, occurrence=f"id:{event.id}")
    if mode == "occurrence" and gave_ts(raw):
        return content_hash(event, occurrence=event.ts.isoformat())
    return content_hash(event)


def gave_ts(raw: Any) -> bool:
    """Whether the caller gave the event's time (the occurrence dedupe keys on it then)."""
    if isinstance(raw, Event):
        return "ts" in raw.model_fields_set
    return isinstance(raw, dict) and raw.get("ts") not in (None, "")


def _raw_id(raw: Any) -> str | None:
    value = raw.get("id") if isinstance(raw, dict) else getattr(raw, "id", None)
    # The id is echoed back to the caller: only one that is itself storable text.
    if isinstance(value, str) and len(value) <= 128 and "\x00" not in value and value.isprintable():
        return value
    return None


def coerce_batch(events: Any) -> list[Any]:
    """The items of a batch: one event (a dict or an :class:`Event`) or a sequence of them."""
    if isinstance(events, (Event, dict)):
        return [events]
    if events is None or isinstance(events, (str, bytes)) or not isinstance(events, Iterable):
        raise InvalidEventError(
            "events", f"expected a list of events (dicts or Event records), got {type(events).__name__}"
        )
    return list(events)


def with_principal(batch: list[Any], principal: str | None) -> list[Any]:
    """The batch with ``principal`` (``DeltaCore.ingest(..., principal=...)``) on every item that
    names none of its own: the host's authenticated speaker for the whole call."""
    if principal is None:
        return batch
    if not isinstance(principal, str) or not principal.strip():
        raise InvalidEventError("principal", "expected the authenticated speaker's id as a non-empty string, or None")
    out = []
    for item in batch:
        if isinstance(item, Event) and item.principal is None:
            item = item.model_copy(update={"principal": principal})
        elif isinstance(item, dict) and item.get("principal") is None:
            item = {**item, "principal": principal}
        out.append(item)
    return out


def coerce_channel(channel: Channel | str | None) -> Channel | None:
    """The channel a caller named, or None (each event's own is inferred then)."""
    if channel is None or channel == "":
        return None
    try:
        return Channel(channel)
    except ValueError:
        allowed = ", ".join(c.value for c in Channel)
        raise InvalidEventError("channel", f"{channel!r} is not a channel; use one of {allowed}") from None
