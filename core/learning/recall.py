"""``recall_plans``: the plans that worked (and failed) in situations like this task, ready to run.

Deterministic, no LLM; one embedding per new task text (cached in the process).

1. **Episodes.** The tenant's latest :data:`MAX_EPISODES` episodes with a tool call and an
   outcome are read back as traces (:mod:`deltacore.learning.episodes`): task, plan, status.
2. **Patterns.** Each plan's calls with the task's values as slots (:mod:`deltacore.learning.slots`)
   is a pattern; its id is the schema id. Episodes of one pattern are pooled across entities.
   Stored schemas (learned, edited with ``schema_update``, or imported priors) give the
   pattern its steps and prior.
3. **Evidence** (:mod:`deltacore.learning.evidence`): each episode weighted by the similarity
   of its situation to the task and by recency, split where the pattern works differently for
   one attribute value, transient failures left out; a Beta posterior gives the probability.
4. **Ready to run.** Slots filled from the task; each call checked against the tool's current
   schema (the ``tools`` offered, else the last observed) and migrated where it drifted.
5. **Ranked** by completeness, probability, evidence; only patterns whose situations are
   about as similar to the task as the best one's are offered.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from deltacore.learning import evidence as ev
from deltacore.learning.episodes import Trace, read_trace, terminal_key
from deltacore.learning.merging import pool_merged
from deltacore.learning.shared_breaks import break_factors
from deltacore.learning.situations import Situation, situation_from_description
from deltacore.learning.situations import situation_similarity
from deltacore.learning.slots import fill_slots, fill_template, template_slots
from deltacore.learning.tools import (
    call_now,
    changed,
    confirmed_renames,
    confirmed_tool_renames,
    drift_factor,
    settled_params,
    pattern_now,
)
from deltacore.model.plans import Migration, Plan, PlanEvidence, PlanStep, Slot
from deltacore.storage.database import Database
from deltacore.storage.drift_store import DriftRepository
from deltacore.storage.plan_store import PlanRepository

MAX_EPISODES = 1000
RELEVANCE_MARGIN = 0.25
"""A pattern is offered when its similarity is within this of the best pattern's."""
STALE_SECONDS = 30 * 86400.0
"""Newest evidence older than this flags a plan ``stale``."""
_CACHE = 20000
_Renames = tuple[
    Mapping[str, Mapping[str, str]], Mapping[str, str], Mapping[str, frozenset[str]]
]
"""Confirmed parameter renames, confirmed tool renames, parameters settled by successes."""


class PlanRecall:
    """Reads episodes, pools their evidence per pattern and builds :class:`Plan` records."""

    def __init__(
        self,
        database: Database,
        plans: PlanRepository,
        drift: DriftRepository,
        embed: Callable[[list[str]], np.ndarray],
    ) -> None:
        self._database = database
        self._plans = plans
        self._drift = drift
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}
        self._traces: dict[
            tuple[str, str], tuple[Any, tuple[str, ...], Trace | None]
        ] = {}
        """(tenant, episode) -> (what it was read at, its event ids, its trace)."""
        self._patterns: dict[tuple[str, tuple[str, ...]], tuple[str, bool]] = {}
        """(episode, the current schemas of its tools) -> its pattern under them."""

    # ---- reading ------------------------------------------------------------------------------

    def traces(
        self,
        conn: Any,
        tenant: str,
        agent_id: str | None = None,
        episode_ids: Sequence[str] | None = None,
    ) -> list[Trace]:
        """The traces of the latest episodes (or of the given ones), oldest first."""
        ids = (
            list(episode_ids)
            if episode_ids is not None
            else self._plans.recent_episodes(conn, tenant, agent_id, MAX_EPISODES)
        )
        shapes = self._plans.episode_shapes(conn, tenant, ids)
        rewards = self._plans.episode_rewards(conn, tenant, ids)
        declared = self._plans.tenant_failures(conn, tenant)
        read_only = self._plans.read_only_tools(conn, tenant)
        ro_key = tuple(sorted(read_only.items()))

        def signature(episode: str, event_ids: Sequence[str]) -> Any:
            mine = (
                tuple((k, declared[k]) for k in event_ids if k in declared)
                if declared
                else ()
            )
            return (shapes.get(episode), rewards.get(episode), mine, ro_key)

        # Only episodes that changed since they were last read are read again.
        stale = []
        for episode in ids:
            cached = self._traces.get((tenant, episode))
            if cached is None or cached[0] != signature(episode, cached[1]):
                stale.append(episode)
        rows = self._plans.episode_events(conn, tenant, stale) if stale else {}
        if len(self._traces) > _CACHE:
            self._traces.clear()
        for episode in stale:
            episode_rows = rows.get(episode) or []
            event_ids = tuple(row.id for row in episode_rows)
            trace = (
                read_trace(
                    episode,
                    episode_rows,
                    rewards.get(episode),
                    declared=declared,
                    read_only=read_only,
                )
                if episode_rows
                else None
            )
            self._traces[(tenant, episode)] = (
                signature(episode, event_ids),
                event_ids,
                trace,
            )
        found = [
            entry[2]
            for episode in ids
            if (entry := self._traces.get((tenant, episode))) is not None
            and entry[2] is not None
        ]
        return sorted(found, key=lambda t: t.ts)

    def _cosines(self, query: str, texts: Sequence[str]) -> dict[str, float]:
        wanted = [
            t for t in dict.fromkeys([query, *texts]) if t and t not in self._vectors
        ]
        if wanted:
            if len(self._vectors) > _CACHE:
                self._vectors.clear()
            for text, vector in zip(
                wanted, np.asarray(self._embed(wanted), dtype=np.float32)
            ):
                norm = float(np.linalg.norm(vector)) or 1.0
                self._vectors[text] = vector / norm
        if not query:
            return {}
        q = self._vectors[query]
        return {t: float(np.dot(q, self._vectors[t])) for t in texts if t}

    # ---- recall ---------------------------------------------------------------------------------

    def recall(
        self,
        situation: Situation,
        tenant: str,
        *,
        agent_id: str | None = None,
        top_k: int = 3,
        offered: Mapping[str, dict[str, Any]] | None = None,
        offered_read_only: Mapping[str, bool] | None = None,
    ) -> list[Plan]:
        with self._database.reader() as conn:
            traces = self.traces(conn, tenant, agent_id)
            stored = self._plans.current_schemas(conn, tenant)
            read_only = {
                **self._plans.read_only_tools(conn, tenant),
                **dict(offered_read_only or {}),
            }
            tools = {t.tool for trace in traces for t in trace.plan} | {
                s["tool"]
                for row in stored.values()
                for s in row["body"].get("steps", ())
            }
            versions = self._drift.schemas_of_tools(conn, tenant, sorted(tools))
            current = self._drift.current_hashes(conn, tenant, sorted(tools))
        texts = [t.situation.text for t in traces] + [
            s.get("text") or ""
            for row in stored.values()
            for s in row["body"].get("situations", ())
        ]
        cos = self._cosines(situation.text, texts)

        def sim(other: Situation) -> float:
            return situation_similarity(
                situation, other, text_cosine=cos.get(other.text)
            )

        sims = {t.episode_id: sim(t.situation) for t in traces}
        schemas_now = {
            tool: (offered or {}).get(tool)
            or versions.get((tool, current.get(tool, "")))
            for tool in tools
        }
        # Episodes are pooled by their pattern under the tools' CURRENT schemas: a plan learned
        # before a schema change and the same plan run migrated after it are one pattern, so the
        # migrated runs' failures count against it (and their successes for it).
        renames = confirmed_renames(traces, schemas_now)
        tool_renames = confirmed_tool_renames(traces, offered)
        settled = settled_params(traces, schemas_now)
        tool_keys = {
            tool: _dump(
                [schema, renames.get(tool), tool_renames.get(tool), sorted(settled.get(tool, ()))]
            )
            for tool, schema in schemas_now.items()
        }
        groups: dict[str, list[tuple[Trace, float]]] = {}
        guessed: set[str] = set()  # episodes pooled into today's pattern by a guessed rename
        for trace in traces:
            pattern, by_guess = self._pattern_now(
                trace, schemas_now, tool_keys, versions, (renames, tool_renames, settled)
            )
            if by_guess:
                guessed.add(trace.episode_id)
            groups.setdefault(pattern, []).append((trace, sims[trace.episode_id]))
        for schema_id in stored:
            groups.setdefault(schema_id, [])
        pool_merged(groups, stored, ts=lambda member: member[0].ts)
        family = ev.FamilyEffects(traces, sims)
        base = ev.base_mass([(sims[t.episode_id], t.status == "success")
                             for t in traces if t.status != "transient"])  # fmt: skip
        candidates: list[Plan] = []
        best = 0.0
        # Most similar evidence first: a pattern whose most similar episode is already below
        # the relevance floor of the best plan so far cannot be offered, so it is not built.
        order = sorted(
            groups,
            key=lambda g: max((s for _, s in groups[g]), default=1.0),
            reverse=True,
        )
        for schema_id in order:
            members = groups[schema_id]
            if members and max(s for _, s in members) < best - RELEVANCE_MARGIN:
                break
            row = stored.get(schema_id)
            if row is not None and row["body"].get("disabled"):
                continue
            if not members and (row is None or row["provenance"] != "PRIOR"):
                continue  # a learned schema whose episodes are all out of reach: nothing to judge it on
            plan = self._plan(
                schema_id,
                members,
                row,
                situation,
                sim,
                family,
                read_only,
                versions,
                schemas_now,
                offered,
                base,
                (renames, tool_renames, settled),
                guessing=any(t.episode_id in guessed for t, _ in members),
            )
            if plan is not None:
                candidates.append(plan)
                if "failed" not in plan.flags:
                    best = max(best, plan.similarity)
        if not candidates:
            return []
        # A plan that failed here does not set the bar: the alternatives that worked for
        # less similar situations stay on offer beside it.
        best = max(
            (p.similarity for p in candidates if "failed" not in p.flags),
            default=max(p.similarity for p in candidates),
        )
        floor = max(ev.MIN_SIMILARITY, best - RELEVANCE_MARGIN)
        offered_plans = [p for p in candidates if p.similarity >= floor]
        offered_plans.sort(
            key=lambda p: (
                p.complete,
                round(p.probability, 6),
                p.evidence.episodes,
                p.similarity,
            ),
            reverse=True,
        )
        return offered_plans[:top_k]

    def _pattern_now(
        self,
        trace: Trace,
        schemas_now: Mapping[str, dict[str, Any] | None],
        tool_keys: Mapping[str, str],
        versions: Mapping[tuple[str, str], dict[str, Any]],
        renames: _Renames,
    ) -> tuple[str, bool]:
        """The trace's schema id once its calls are migrated to the current schemas, and
        whether that took a guessed rename (cached)."""
        key = (
            trace.episode_id + trace.schema_id,
            tuple(tool_keys.get(c.tool, "") for c in trace.plan),
        )
        found = self._patterns.get(key)
        if found is None:
            found = pattern_now(trace, schemas_now, versions, *renames)
            if len(self._patterns) > _CACHE:
                self._patterns.clear()
            self._patterns[key] = found
        return found

    def _plan(
        self,
        schema_id: str,
        members: list[tuple[Trace, float]],
        row: dict[str, Any] | None,
        situation: Situation,
        sim: Callable[[Situation], float],
        family: ev.FamilyEffects,
        read_only: Mapping[str, bool],
        versions: Mapping[tuple[str, str], dict[str, Any]],
        schemas_now: Mapping[str, dict[str, Any] | None],
        offered: Mapping[str, dict[str, Any]] | None,
        base: tuple[float, float],
        renames: _Renames,
        *,
        guessing: bool = False,
    ) -> Plan | None:
        body = row["body"] if row is not None else None
        latest = members[-1][0] if members else None
        if body is not None:
            steps = [
                (s["tool"], s.get("template") or {}, bool(s.get("read_only")))
                for s in body.get("steps", ())
            ]
            slots = [Slot.model_validate(s) for s in body.get("slots", ())]
        elif latest is not None:
            steps = [
                (c.tool, t, c.read_only) for c, t in zip(latest.plan, latest.templates)
            ]
            slots = list(latest.slots)
        else:
            return None
        if not steps:
            return None
        steps = [
            (tool, template, ro or bool(read_only.get(tool)))
            for tool, template, ro in steps
        ]
        counted = [(t, s) for t, s in members if t.status != "transient"]
        transient = sum(
            1 for t, s in members if t.status == "transient" and s >= ev.MIN_SIMILARITY
        )
        split = ev.find_split(
            [
                (t.situation.split_values(), t.status == "success")
                for t, s in counted
                if s >= ev.MIN_SIMILARITY
            ],
            situation.split_values(),
        )
        if split is not None:
            key, value, side, _z = split
            counted = [
                (t, s)
                for t, s in counted
                if (t.situation.split_values().get(key) == value) == (side == "in")
            ]
        provenance = row["provenance"] if row is not None else "LEARNED"
        # Episodes from before a break shared by several entities are left out, of the evidence
        # and of the base rate the prior starts from (shared_breaks).
        entities = [None if t.situation.entity is None else _norm(t.situation.entity) for t, _ in counted]
        breaks = break_factors([(e, s, t.status == "success", t.ts) for e, (t, s) in zip(entities, counted)])
        gone = [(s, t.status == "success") for (t, s), f in zip(counted, breaks) if f < 1.0]
        prior = ev.prior_of(
            (body or {}).get("utility", 0.5),
            (body or {}).get("confidence", 0.0),
            base=ev.base_rate_without(base, gone),
        )
        # Episodes run under another schema count for the plan migrated to today's, at a
        # reduced weight: the migration may not have carried everything the call needed.
        observations = [
            (s, t.status == "success", t.ts, f * (1.0 if t.schema_id == schema_id else ev.MIGRATED_WEIGHT))
            for (t, s), f in zip(counted, breaks)
        ]  # fmt: skip
        if situation.entity:
            own = [e == _norm(situation.entity) for e in entities]
            post = ev.entity_posterior(
                [o for o, mine in zip(observations, own) if mine],
                [o for o, mine in zip(observations, own) if not mine],
                prior,
            )
        else:
            post = ev.posterior(observations, prior)
        if post.failures and not post.successes:  # tried and never worked: not the base rate
            post = ev.scaled(post, ev.NEVER_WORKED_FACTOR)
        if post.successes + post.failures:
            similarity = post.similarity
        else:
            situations = [
                situation_from_description(d)
                for d in (body or {}).get("situations", ())
            ]
            similarity = max(
                [sim(x) for x in situations] + [s for _, s in members] + [0.0]
            )
        # Text templates of the most similar tasks first: how this task's text fills the slots.
        templates = [
            t.text_template
            for t, s in sorted(members, key=lambda m: -m[1])
            if t.text_template
        ]
        templates += list((body or {}).get("text_templates", ()))
        values = fill_slots(slots, situation, templates)
        used = {name for _, template, _ in steps for name in template_slots(template)}
        complete = all(values.get(name) is not None for name in used)
        terminal = terminal_key(steps)
        effects = family.get(terminal, {})
        credits = ev.step_credit(
            [((tool, _dump(t)), ro) for tool, t, ro in steps], effects
        )
        plan_steps: list[PlanStep] = []
        migrations: list[Migration] = []
        flags: set[str] = set()
        for index, (learned_tool, template, ro) in enumerate(steps):
            learned_hash = (
                latest.plan[index].schema_hash
                if latest is not None and index < len(latest.plan)
                else None
            )
            tool, args, template, moved, step_flags = call_now(
                learned_tool,
                template,
                fill_template(template, values),
                versions.get((learned_tool, learned_hash or "")),
                schemas_now,
                offered,
                *renames,
            )
            migrations += moved
            flags |= step_flags
            plan_steps.append(
                PlanStep(tool=tool, args=args, template=template, read_only=ro, credit=credits[index])
            )
        outcomes = [t.status == "success" for t, _ in counted]
        if post.failures and post.probability < 0.5:
            flags.add("failed")
        if ev.oscillates(outcomes):
            flags.add("unstable")
        if guessing:
            flags.add("guessed")
        tried = [t.status == "success" for t, _ in counted if t.schema_id == schema_id]
        factor = drift_factor(flags, tried)
        if factor < 1.0:
            post = ev.scaled(post, factor)
        if members and time.time() - members[-1][0].ts > STALE_SECONDS:
            flags.add("stale")
        if provenance == "PRIOR" and not (post.successes + post.failures):
            flags.add("prior")
        return Plan(
            schema_id=schema_id,
            version=int(row["version"]) if row is not None else 0,
            steps=tuple(plan_steps),
            slots=tuple(
                slot.model_copy(update={"value": values.get(slot.name)})
                for slot in slots
            ),
            probability=round(post.probability, 6),
            evidence=PlanEvidence(
                episodes=post.successes + post.failures + transient,
                successes=post.successes,
                failures=post.failures,
                transient_failures=transient,
                weighted_successes=round(post.weighted_successes, 6),
                weighted_failures=round(post.weighted_failures, 6),
            ),
            migrations=tuple(m for m in migrations if changed(m)),
            flags=frozenset(flags),
            provenance=provenance if provenance in ("LEARNED", "PRIOR") else "LEARNED",
            similarity=round(similarity, 6),
            alpha=round(post.alpha, 6),
            beta=round(post.beta, 6),
            complete=complete,
            split=None if split is None else dict(zip(("key", "value", "side"), split[:3]), z=round(split[3], 3)),
        )


def _norm(value: Any) -> str:
    return str(value).strip().lower()


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
