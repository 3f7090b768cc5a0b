"""Normalisation and the hashes used to de-duplicate and to pin tool schemas."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

from deltacore.model import Event


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def schema_hash(schema: dict[str, Any]) -> str:
    """Hash of a tool's JSON schema, independent of key order."""
    return hashlib.sha256(_canonical_json(schema).encode()).hexdigest()[:32]


def normalize_text(text: str) -> str:
    # NFC so that the same words typed two ways hash and match the same; NUL is dropped
    # because PostgreSQL text cannot hold it.
    return unicodedata.normalize("NFC", text).replace("\x00", "").strip()


def normalize_event(event: Event) -> Event:
    """The event with normalised text, entities and a tool schema hash when a schema is given."""
    updates: dict[str, Any] = {}
    text = normalize_text(event.text)
    if text != event.text:
        updates["text"] = text
    entities = tuple(dict.fromkeys(e.strip() for e in event.entities if e and e.strip()))
    if entities != event.entities:
        updates["entities"] = entities
    if event.tool_schema is not None and event.tool_schema_hash is None:
        updates["tool_schema_hash"] = schema_hash(event.tool_schema)
    return event.model_copy(update=updates) if updates else event


DEDUPE_MODES = ("occurrence", "content", "off")
"""``DeltaCoreConfig.dedupe``: see :func:`content_hash`."""


def content_hash(event: Event, *, occurrence: str | None = None) -> str:
    """What makes two events duplicates: same content in the same scope and causal position.

    ``occurrence`` (the event's time, when the caller gave one; ``DeltaCoreConfig.dedupe =
    "occurrence"``) is part of the key: "ok" said twice, at two times, is two turns, while a
    framework that re-sends its history with the original times does not pile up copies. An
    event without a given time is keyed by its content alone (a re-send without times is
    indistinguishable from a retry).
    """
    key = [
        event.tenant,
        event.agent_id,
        event.user_id,
        event.session_id,
        event.episode_id,
        sorted(event.parent_ids),
        event.kind.value,
        event.role,
        event.actor,
        event.text,
        event.tool_name,
        event.tool_args,
    ]
    if event.meta.get("dedupe_key") is not None:
        # A caller-given key (a key-value store's key) keeps same-text items apart; appended only
        # when present so that the hashes of other events never change.
        key.append(event.meta["dedupe_key"])
    if occurrence is not None:
        key.append({"occurrence": occurrence})  # appended, like the key above: old hashes stay
    return hashlib.sha256(_canonical_json(key).encode()).hexdigest()
