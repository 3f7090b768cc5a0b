"""The rows one batch writes, built from the screened events, their deltas and vectors.

Events and their deltas carry the same scope, so a delete or a forget finds both.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from deltacore.delta.derive import Derivation
from deltacore.delta.mentions import has_time_expression, mentioned_names
from deltacore.governor import TokenCounter
from deltacore.ingest.stages import Screened, WriteSet
from deltacore.model import Event, Namespace


def embedding_text(event: Event) -> str:
    """What is embedded for an event: its text, and for a tool call its name and arguments."""
    return embedding_text_of(event.text, event.tool_name, event.tool_args)


def embedding_text_of(text: str, tool_name: str | None, tool_args: Any) -> str:
    """:func:`embedding_text` from the stored columns (background vector writes embed rows)."""
    if tool_name:
        args = json.dumps(tool_args, sort_keys=True, default=str) if tool_args else ""
        return " ".join(part for part in (text, tool_name, args) if part)
    return text or ""


def build_write_set(
    screened: Sequence[Screened],
    derivation: Derivation,
    vectors: Mapping[str, np.ndarray],
    tokens: TokenCounter,
) -> WriteSet:
    now = time.time()
    derived = {d.event_id: d for d in derivation.deltas}
    event_rows, delta_rows, link_rows, entity_rows, mention_rows = [], [], [], [], []
    for s in screened:
        event = s.event
        ts = event.ts.timestamp()
        scope = {
            "tenant": event.tenant,
            "agent_id": event.agent_id,
            "user_id": event.user_id,
            "session_id": event.session_id,
            "episode_id": event.episode_id,
            "ts": ts,
            "kind": event.kind.value,
        }
        event_rows.append(
            {
                "id": event.id,
                **scope,
                "role": event.role,
                "actor": event.actor,
                "source": event.source,
                "channel": s.item.admission.channel.value,
                "namespace": s.namespace,
                "text": event.text,
                "content_hash": s.item.content_hash,
                "confidence": event.confidence,
                "trust": s.trust,
                "tool_name": event.tool_name,
                "tool_args": event.tool_args,
                "tool_schema_hash": event.tool_schema_hash,
                "entities": list(event.entities),
                "parent_ids": list(event.parent_ids),
                # The authenticated principal is kept with the record (audit), not in a column.
                "meta": event.meta if event.principal is None else {**event.meta, "principal": event.principal},
                # What the memory costs in a prompt: a tool call with no text is shown as its
                # tool and arguments, never as free.
                "token_count": tokens.count(event.text or embedding_text(event)),
                "has_time": int(has_time_expression(event.text)),
                # No vector yet with background vector writes: the outbox drain embeds it.
                "embedding": (
                    np.ascontiguousarray(vectors[event.id], dtype=np.float32).tobytes() if event.id in vectors else None
                ),
                "created_at": now,
            }
        )
        delta = derived[event.id]
        draft = delta.draft
        delta_rows.append(
            {
                "id": delta.delta_id,
                "event_id": event.id,
                **scope,
                "trigger": draft.trigger,
                "action": draft.action,
                "result": draft.result,
                "subject": draft.subject,
                "predicate": draft.predicate,
                "object": draft.object,
                "utility": draft.utility,
                "utility_ts": ts,
                "credit": 0.0,
                "namespace": s.namespace,
                "tool_name": event.tool_name,
                "tool_schema_hash": event.tool_schema_hash,
                "conflict_flags": [],
            }
        )
        link_rows.extend({"child_id": delta.delta_id, "parent_id": p, "relation": delta.relation} for p in delta.parents)
        entity_rows.extend(
            {"event_id": event.id, "entity": e, "tenant": event.tenant}
            for e in dict.fromkeys(e.casefold() for e in event.entities)
        )
        names = {name: "mention" for name in mentioned_names(event.text)}
        if event.actor:
            names[event.actor.casefold()] = "actor"  # who spoke outranks being mentioned
        mention_rows.extend(
            {"event_id": event.id, "name": name[:256], "role": role, "tenant": event.tenant} for name, role in names.items()
        )
    system_events = tuple(
        (screened[0].event.tenant, "CAUSAL_LOOP", {"cycle": list(loop), "code": "E02"})
        for loop in derivation.loops
    )
    return WriteSet(
        events=tuple(event_rows),
        deltas=tuple(delta_rows),
        links=tuple(link_rows),
        entities=tuple(entity_rows),
        mentions=tuple(mention_rows),
        system_events=system_events,
    )


def tool_schema_rows(screened: Sequence[Screened], inserted: set[str]) -> list[dict[str, Any]]:
    """Schema versions the stored tool calls were made with, one row per (tenant, tool, hash)."""
    now = time.time()
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in screened:
        event = s.event
        # A quarantined write must not teach the registry a schema (that would launder a spoof).
        if s.namespace == Namespace.QUARANTINE.value:
            continue
        if event.id in inserted and event.tool_name and event.tool_schema is not None and event.tool_schema_hash:
            ts = event.ts.timestamp()
            rows[(event.tenant, event.tool_name, event.tool_schema_hash)] = {
                "tenant": event.tenant,
                "tool_name": event.tool_name,
                "schema_hash": event.tool_schema_hash,
                "schema": event.tool_schema,
                "first_seen": ts,
                "last_seen": ts if ts <= now else now,
            }
    return list(rows.values())
