"""NREM schema extraction and REM schema audit: plan patterns that repeat across episodes become
(or update) the learning layer's schemas, near-duplicates are merged, and each schema is checked
against the episodes that still back it.

**Extraction.** Every episode with an outcome is read back as a trace by the learning layer
(:class:`~deltacore.learning.PlanRecall`); its schema id is its pattern of state-changing calls.
A pattern seen in at least ``min_episodes`` episodes without a stored schema becomes one
(version 1, ``LEARNED``). A stored schema whose episodes changed since the last cycle gets a new
version recording what they show (``support``: episodes, successes, failures, success rate, the
newest episode ids) and their task examples. Steps, slots, utility and confidence are never
changed here: what recall computes from them stays the learning layer's.

**Merging.** Schemas (stored or about to be) with the same steps pattern
(:func:`~deltacore.learning.merging.steps_key`) are one plan: the one with the most episodes
survives and records ``merged_from``; each other gets a version with ``merged_into`` and
``disabled``. A schema a person disabled, or whose merge was rolled back (an earlier version
says ``merged_into``, the current one does not), is never merged.

**Audit.** A schema's fidelity is ``steps × rate``: the share of its surviving episodes whose
steps still match its own, times ``1 − |stated − observed|`` — the success rate it states (its
utility when it carries a prior, else the rate consolidation recorded) against the rate its
surviving episodes show. Under the floor (0.7) it is reported.

Writes happen in the transaction that accepts the cycle (:meth:`SchemaConsolidation.write`), so
a rolled-back or killed cycle writes no schema version; versions are only ever appended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deltacore.learning.episodes import Trace
from deltacore.learning.merging import steps_key, survivor_of
from deltacore.learning.recall import PlanRecall
from deltacore.learning.schemas import body_of, merge_examples
from deltacore.storage.database import Database
from deltacore.storage.plan_store import PlanRepository

MAX_EPISODES = 5000
"""Episodes a cycle reads back (the newest): a bounded cost however long the history."""
SUPPORT_IDS = 20
"""Newest supporting episode ids kept in a schema's ``support``."""
_COUNTED = ("episodes", "successes", "failures", "transient")


@dataclass(frozen=True)
class NewVersion:
    schema_id: str
    version: int
    """The version to append; the schema's current one is ``version - 1`` (0: new schema)."""
    provenance: str
    body: dict[str, Any]
    note: str


@dataclass
class SchemaPlan:
    versions: list[NewVersion] = field(default_factory=list)
    created: set[str] = field(default_factory=set)
    merged: set[str] = field(default_factory=set)
    before: dict[str, dict[str, Any]] = field(default_factory=dict)
    """schema id -> its current body (stored schemas only)."""
    after: dict[str, dict[str, Any]] = field(default_factory=dict)
    """schema id -> its body once the plan is written (live schemas only)."""
    traces: dict[str, list[Trace]] = field(default_factory=dict)
    """schema id -> the surviving episodes that count for it (merged-away schemas' included)."""


@dataclass(frozen=True)
class SchemaAudit:
    fidelity: dict[str, float]
    """schema id -> fidelity, for every live schema with a surviving episode."""
    low: tuple[str, ...]


class SchemaConsolidation:
    def __init__(
        self,
        database: Database,
        plans: PlanRepository,
        recall: PlanRecall,
        *,
        min_episodes: int = 2,
    ) -> None:
        self._database = database
        self._plans = plans
        self._recall = recall
        self._min_episodes = min_episodes

    # ---- NREM: plan (reads only) -------------------------------------------------------------------

    def plan(self, tenant: str, cycle_id: str, *, extract: bool = True) -> SchemaPlan:
        """What NREM would write; with ``extract=False`` only the stored schemas and the episodes
        behind each (what a REM-only audit needs), nothing to write."""
        with self._database.reader() as conn:
            ids = self._plans.recent_episodes(conn, tenant, None, MAX_EPISODES)
            traces = [
                t for t in self._recall.traces(conn, tenant, episode_ids=ids) if t.plan
            ]
            stored = self._plans.current_schemas(conn, tenant)
        by_pattern: dict[str, list[Trace]] = {}
        for trace in traces:
            by_pattern.setdefault(trace.schema_id, []).append(trace)
        plan = SchemaPlan(
            before={sid: dict(row["body"]) for sid, row in stored.items()}
        )
        rows = {
            sid: {
                "version": int(row["version"]),
                "provenance": row["provenance"],
                "body": dict(row["body"]),
            }
            for sid, row in stored.items()
        }
        unstored = {
            sid: body_of(ts[-1]) for sid, ts in by_pattern.items() if sid not in rows
        }
        groups: dict[str, list[str]] = {}
        for sid, row in rows.items():
            body = row["body"]
            if not body.get("disabled") and not body.get("merged_into"):
                groups.setdefault(steps_key(body.get("steps") or ()), []).append(sid)
        for sid, body in unstored.items():
            groups.setdefault(steps_key(body["steps"]), []).append(sid)
        suspects = [
            m
            for members in groups.values()
            if len(members) > 1
            for m in members
            if m in rows
        ]
        if suspects:
            with self._database.reader() as conn:
                unmerged = {
                    sid
                    for sid in suspects
                    if any(
                        (v.get("body") or {}).get("merged_into")
                        for v in self._plans.schema_versions(conn, tenant, sid)
                    )
                }
            for members in groups.values():
                members[:] = [m for m in members if m not in unmerged]

        def episodes(sid: str) -> int:
            return len(by_pattern.get(sid, ()))

        for members in groups.values() if extract else ():
            if not members:
                continue
            if sum(episodes(m) for m in members) < self._min_episodes and not any(
                m in rows for m in members
            ):
                continue
            members.sort(key=lambda m: (-episodes(m), m not in rows, m))
            survivor, absorbed = members[0], members[1:]
            if survivor not in rows:
                rows[survivor] = {
                    "version": 0,
                    "provenance": "LEARNED",
                    "body": unstored[survivor],
                }
                plan.created.add(survivor)
            for sid in absorbed:
                base = rows.get(sid) or {
                    "version": 0,
                    "provenance": "LEARNED",
                    "body": unstored[sid],
                }
                rows[sid] = {
                    **base,
                    "body": {**base["body"], "disabled": True, "merged_into": survivor},
                }
                plan.merged.add(sid)
                plan.versions.append(
                    NewVersion(
                        sid,
                        base["version"] + 1,
                        base["provenance"],
                        rows[sid]["body"],
                        f"merged into {survivor} by consolidation cycle {cycle_id}",
                    )
                )
                survivor_body = rows[survivor]["body"]
                survivor_body["merged_from"] = [
                    *survivor_body.get("merged_from", ()),
                    {
                        "schema_id": sid,
                        "version": base["version"] or None,
                        "cycle_id": cycle_id,
                    },
                ]
        for sid, pattern_traces in by_pattern.items():
            if sid in rows:
                plan.traces.setdefault(survivor_of(sid, rows), []).extend(
                    pattern_traces
                )
        for sid, row in rows.items():
            body = row["body"]
            if (
                body.get("merged_into")
                or sid not in plan.traces
                and sid not in plan.created
            ):
                continue
            mine = sorted(plan.traces.get(sid, []), key=lambda t: t.ts)
            plan.traces[sid] = mine
            support = support_of(mine, cycle_id)
            old = plan.before.get(sid)
            changed = (
                sid in plan.created
                or old is None
                or old.get("merged_from") != body.get("merged_from")
                or any(
                    (old.get("support") or {}).get(k) != support[k] for k in _COUNTED
                )
            )
            if body.get("disabled"):
                plan.after.pop(sid, None)
                continue  # a person turned it off: nothing is learned into it
            plan.after[sid] = body
            if not changed:
                continue
            body["support"] = support
            body["text_templates"] = merge_examples(
                list(body.get("text_templates") or ()),
                [t.text_template for t in mine if t.text_template],
            )
            body["situations"] = merge_examples(
                list(body.get("situations") or ()),
                [t.situation.describe() for t in mine],
            )
            verb = "extracted" if sid in plan.created else "updated"
            plan.versions.append(
                NewVersion(
                    sid,
                    row["version"] + 1,
                    row["provenance"],
                    body,
                    f"{verb} by consolidation cycle {cycle_id}",
                )
            )
        if not extract:
            plan.versions.clear()
        return plan

    # ---- REM: audit --------------------------------------------------------------------------------

    def audit(self, plan: SchemaPlan, floor: float, *, planned: bool) -> SchemaAudit:
        """Fidelity of every live schema to its surviving episodes: as the plan leaves them
        (``planned``) or as stored now."""
        bodies = (
            plan.after
            if planned
            else {
                sid: b
                for sid, b in plan.before.items()
                if not b.get("disabled") and not b.get("merged_into")
            }
        )
        scores: dict[str, float] = {}
        for sid, body in bodies.items():
            traces = plan.traces.get(sid) or []
            if traces:
                scores[sid] = round(fidelity(body, traces), 4)
        return SchemaAudit(
            scores, tuple(sorted(s for s, f in scores.items() if f < floor))
        )

    # ---- writing (in the transaction that accepts the cycle) ---------------------------------------

    def write(self, conn: Any, tenant: str, plan: SchemaPlan) -> dict[str, int]:
        """Append the planned versions; a schema changed since the plan was read is left for the
        next cycle. Returns how many schemas were created, updated and merged away."""
        counts = {"created": 0, "updated": 0, "merged": 0}
        current = self._plans.current_schemas(conn, tenant)
        done: set[str] = set()
        for item in plan.versions:
            now = (
                int(current[item.schema_id]["version"])
                if item.schema_id in current
                else 0
            )
            if now != item.version - 1:
                continue
            self._plans.add_schema_version(
                conn,
                tenant,
                item.schema_id,
                item.version,
                item.provenance,
                item.body,
                note=item.note,
            )
            current[item.schema_id] = {"version": item.version}
            if item.schema_id in done:
                continue
            done.add(item.schema_id)
            kind = (
                "merged"
                if item.schema_id in plan.merged
                else "created"
                if item.schema_id in plan.created
                else "updated"
            )
            counts[kind] += 1
        return counts


def support_of(traces: Sequence[Trace], cycle_id: str) -> dict[str, Any]:
    successes = sum(t.status == "success" for t in traces)
    failures = sum(t.status == "failure" for t in traces)
    return {
        "episodes": len(traces),
        "successes": successes,
        "failures": failures,
        "transient": len(traces) - successes - failures,
        "success_rate": round(successes / (successes + failures), 4)
        if successes + failures
        else None,
        "episode_ids": [t.episode_id for t in traces][-SUPPORT_IDS:],
        "cycle_id": cycle_id,
    }


def fidelity(body: Mapping[str, Any], traces: Sequence[Trace]) -> float:
    """``steps × rate`` (module docstring) of one schema against its surviving episodes."""
    own = steps_key(body.get("steps") or ())
    matching = sum(
        steps_key(
            [
                {"tool": c.tool, "template": t, "read_only": c.read_only}
                for c, t in zip(trace.plan, trace.templates)
            ]
        )
        == own
        for trace in traces
    )
    steps = matching / len(traces)
    counted = [t for t in traces if t.status != "transient"]
    if not counted:
        return steps
    observed = sum(t.status == "success" for t in counted) / len(counted)
    if float(body.get("confidence") or 0.0) > 0.0:
        stated: float | None = float(body.get("utility", 0.5))
    else:
        stated = (body.get("support") or {}).get("success_rate")
    return steps if stated is None else steps * (1.0 - abs(float(stated) - observed))
