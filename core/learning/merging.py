"""Near-duplicate schemas: one plan pattern stored under several ids, and what a merge means.

Two schemas are near-duplicates when their state-changing steps make the same calls with the
same constants and put a slot in the same places, whatever the slots are called: the plan
learned from ``{"fields": {"service": ...}}`` tasks (``"{service}"``) and the one learned from
tasks naming only their entity (``"{entity}"``) are one plan. Consolidation merges them: the
absorbed schema gets a new version with ``merged_into`` (and ``disabled``), the survivor one
with ``merged_from``; no version is removed, so ``schema_rollback`` undoes either side.
Plan recall pools the absorbed schema's episodes into the survivor (:func:`pool_merged`).

Pure functions over stored bodies (``dc_schemas.body``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

_SLOT = re.compile(r"\{[^{}\"]+\}")
MAX_HOPS = 8
"""A merge chain longer than this is treated as broken (a cycle written by hand)."""


def steps_key(steps: Sequence[Mapping[str, Any]]) -> str:
    """The pattern of a schema's steps with slot names erased; read-only steps left out
    (as the schema id leaves them out) unless the plan only reads."""
    chosen = [s for s in steps if not s.get("read_only")] or list(steps)
    return _SLOT.sub(
        "{}",
        json.dumps(
            [[s.get("tool"), s.get("template") or {}] for s in chosen],
            sort_keys=True,
            default=str,
        ),
    )


def survivor_of(schema_id: str, stored: Mapping[str, Mapping[str, Any]]) -> str:
    """Where a schema's episodes count: itself, or the schema it was merged into (followed)."""
    current = schema_id
    for _ in range(MAX_HOPS):
        row = stored.get(current)
        target = (row or {}).get("body", {}).get("merged_into") if row else None
        if not isinstance(target, str) or target == current or target not in stored:
            return current
        current = target
    return schema_id


def pool_merged(
    groups: dict[str, list[Any]], stored: Mapping[str, Mapping[str, Any]], ts: Any
) -> None:
    """Move the episodes of merged-away schemas to their survivor's group (in place), keeping
    each group in time order (``ts`` gives an episode's time)."""
    for schema_id in list(groups):
        target = survivor_of(schema_id, stored)
        if target != schema_id:
            moved = groups.pop(schema_id)
            groups.setdefault(target, []).extend(moved)
            groups[target].sort(key=ts)
            groups.setdefault(schema_id, [])
