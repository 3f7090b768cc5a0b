"""An episode read back as a plan: its task, the calls that made up its plan, how it ended.

Pure functions over the rows :class:`~deltacore.storage.plan_store.PlanRepository` reads. The
plan of an episode is its tool calls in order, without the attempts that did not count: a call
that failed and was then made again with the same arguments (the retry did the work), one whose
result is not visible (not recorded, or quarantined by the gateway) made again at once with the
same arguments, and, in a successful episode, a call that failed (the agent recovered from it). The episode's **status**:
``success`` (reward > 0), ``transient`` (it failed, and only transient errors explain it: it
says nothing against the plan) or ``failure``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deltacore.learning.failures import classify, error_of
from deltacore.learning.situations import Situation, situation_from_event
from deltacore.learning.slots import abstract_calls
from deltacore.model.plans import Slot


@dataclass(frozen=True)
class Call:
    event_id: str
    tool: str
    args: dict[str, Any]
    schema_hash: str | None
    read_only: bool
    error_kind: str | None
    """None: it went through; else ``transient`` / ``permanent``."""


@dataclass(frozen=True)
class Trace:
    episode_id: str
    ts: float
    situation: Situation
    calls: tuple[Call, ...]
    """Every call, in order."""
    plan: tuple[Call, ...]
    """The calls that made up the plan (see the module)."""
    status: str
    """``success``, ``failure`` or ``transient``."""
    reward: float
    schema_id: str
    templates: tuple[dict[str, Any], ...]
    slots: tuple[Slot, ...]
    text_template: str | None
    step_keys: tuple[tuple[str, str], ...] = ()
    """``(tool, canonical template)`` of each plan step: how steps are compared across episodes."""
    terminal: tuple[str, str] | None = None
    """The key of the plan's last state-changing step (its family)."""


def read_trace(
    episode_id: str,
    rows: Sequence[Any],
    reward: float | None,
    *,
    declared: Mapping[str, str],
    read_only: Mapping[str, bool],
) -> Trace | None:
    """The episode's trace; None when it has no outcome or no tool call."""
    if reward is None:
        reward = _outcome_event(rows)
    if reward is None:
        return None
    situation = _task(rows)
    results: dict[str, list[Any]] = {}
    for row in rows:
        if row.kind == "tool_result":
            for parent in row.parent_ids or ():
                results.setdefault(parent, []).append(row)
    call_rows = [row for row in rows if row.kind == "tool_call" and row.tool_name]
    if not call_rows:
        return None
    went_through = [
        bool(results.get(row.id)) and not any(error_of(r.meta) for r in results[row.id])
        for row in call_rows
    ]
    calls: list[Call] = []
    for index, row in enumerate(call_rows):
        kind = None
        for result in results.get(row.id, ()):
            error = error_of(result.meta)
            if error is None:
                continue
            later = any(
                went_through[j] and _key(call_rows[j]) == _key(row)
                for j in range(index + 1, len(call_rows))
            )
            found = classify(
                error,
                retried_ok=later,
                declared=declared.get(result.id) or declared.get(row.id),
            )
            kind = "permanent" if "permanent" in (kind, found) else found
        if kind is None and row.id in declared:
            kind = declared[row.id]
        meta = row.meta or {}
        calls.append(
            Call(
                event_id=row.id,
                tool=row.tool_name,
                args=dict(row.tool_args or {}),
                schema_hash=row.tool_schema_hash,
                read_only=bool(
                    read_only.get(row.tool_name) or meta.get("read_only") is True
                ),
                error_kind=kind,
            )
        )
    success = reward > 0
    keys = [(c.tool, _dump(c.args)) for c in calls]
    plan = []
    for index, call in enumerate(calls):
        retried = call.error_kind is not None and keys[index] in keys[index + 1 :]
        # A call whose result this store does not show (not recorded, or held in quarantine)
        # and that was made again at once with the same arguments was retried all the same.
        retried = retried or (
            not results.get(call.event_id)
            and index + 1 < len(calls)
            and keys[index + 1] == keys[index]
        )
        if retried or (success and call.error_kind is not None):
            continue
        plan.append(call)
    if success:
        status = "success"
    else:
        kinds = {c.error_kind for c in plan if c.error_kind}
        status = "transient" if kinds == {"transient"} else "failure"
    templates, slots, text = abstract_calls([(c.tool, c.args) for c in plan], situation)
    step_keys = tuple((c.tool, _dump(t)) for c, t in zip(plan, templates))
    writes = [key for key, c in zip(step_keys, plan) if not c.read_only]
    return Trace(
        episode_id=episode_id,
        ts=float(rows[-1].ts) if rows else 0.0,
        situation=situation,
        calls=tuple(calls),
        plan=tuple(plan),
        status=status,
        reward=float(reward),
        # Read-only calls cannot have changed the world: plans that differ only in what they
        # looked at are one pattern, so their evidence adds up.
        schema_id=schema_id_of(
            [(c.tool, t) for c, t in zip(plan, templates) if not c.read_only]
            or [(c.tool, t) for c, t in zip(plan, templates)]
        ),
        templates=tuple(templates),
        slots=tuple(slots),
        text_template=text,
        step_keys=step_keys,
        terminal=(writes or list(step_keys) or [None])[-1],
    )


def terminal_key(steps: Sequence[tuple[str, Any, bool]]) -> Any:
    """The family of ``(tool, template, read_only)`` steps: the key of the last one that
    changes something (of the last step when none does), as :attr:`Trace.terminal`."""
    writes = [(tool, _dump(t)) for tool, t, ro in steps if not ro]
    return writes[-1] if writes else (steps[-1][0], _dump(steps[-1][1]))


def schema_id_of(steps: Sequence[tuple[str, Any]]) -> str:
    """A pattern's id: the same (state-changing) calls with the same templates are the same
    schema in every store."""
    return hashlib.sha256(
        _dump([[tool, template] for tool, template in steps]).encode()
    ).hexdigest()[:20]


def _task(rows: Sequence[Any]) -> Situation:
    messages = [row for row in rows if row.kind == "message"]
    first = next(
        (row for row in messages if (row.role or "").lower() in ("user", "human")), None
    )
    first = first or (messages[0] if messages else None)
    if first is None:
        return Situation("")
    return situation_from_event(first.text, first.meta)


def _outcome_event(rows: Sequence[Any]) -> float | None:
    for row in reversed(rows):
        if row.kind == "outcome":
            meta = row.meta or {}
            if isinstance(meta.get("success"), bool):
                return 1.0 if meta["success"] else -1.0
            if isinstance(meta.get("reward"), (int, float)) and not isinstance(
                meta.get("reward"), bool
            ):
                return float(meta["reward"])
    return None


def _key(row: Any) -> tuple[str, str]:
    return row.tool_name, _dump(row.tool_args or {})


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
