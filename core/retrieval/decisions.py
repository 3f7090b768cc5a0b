"""``recall_decisions``: what an agent did before in similar situations, and how it went.

Deterministic, no LLM, one embedding of the context and a handful of SQL reads.

1. **Candidates** are the tenant's latest tool calls (``tool`` / ``agent_id`` narrow them).
2. **Situation.** Each call was taken in the situation that opened its episode (the task
   message), or, outside an episode, the step that prompted it. ``similarity`` is the cosine of
   that situation to the asked context (stored vectors; only the context is embedded). Only
   the calls of the :data:`MAX_SITUATIONS` most similar situations are judged further.
3. **Argument pattern.** Calls of one tool with the same arguments are one decision. A call
   learned under an older schema contributes its *migrated* arguments when the migration
   succeeded (so evidence survives a renamed parameter), its original ones otherwise.
4. **Evidence per call**, strongest first: direct ``feedback`` on it; a failed tool result
   (``meta.error`` or a failed status from the adapters — failure evidence even before any
   outcome is recorded); the rewards of ``record_outcome`` weighted by the credit the call
   earned (an irrelevant step learns little from its episode); the episode's ``outcome`` event;
   a tool result without error (weak evidence that the call itself worked).
5. **Per decision**, ``expected_reward`` is the mean of its calls' evidence weighted by
   similarity² × evidence weight × recency (each newer episode with the same decision multiplies an
   older one's weight by :data:`RECENCY`: a world that changed is learned in a few episodes,
   while one flaky failure among many successes does not flip the decision).
   ``confidence = m / (m + 1)`` for the evidence mass ``m``, lowered for a drifted schema.
   ``outcome`` is ``worked`` / ``failed`` past ±:data:`DEAD_ZONE`, else ``unknown``.
6. **Ranking.** Decisions that did not fail come first, by ``similarity × (½ + ½ ×
   expected_reward × confidence)``; failed ones follow (flagged ``failed``), the most similar
   and certain first — so a caller sees what to avoid. ``top_k`` applies to each part.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from deltacore.delta.drift import MIGRATION_FAILED, SCHEMA_DRIFT
from deltacore.delta.migration import interface_signature
from deltacore.delta.utility import decayed_utility
from deltacore.model import Decision
from deltacore.storage.database import Database
from deltacore.storage.decision_store import DecisionRepository
from deltacore.storage.drift_store import DriftRepository
from deltacore.storage.learning_store import result_failed

RECENCY = 0.6
"""Weight factor per newer episode (with evidence) of the same decision. With 0.6, one failure
after any run of successes leaves the decision worked (1 < Σ_{k≥1} 0.6^k = 1.5: a one-off is not
over-learned) while two consistent failures outweigh every earlier success (1 + 0.6 >
Σ_{k≥2} 0.6^k = 0.9): a world that changed is unlearned in two episodes."""
CONTRAST_SUCCESSES = 3
"""Latest successful episodes of a decision whose common calls explain a failure (see
:func:`_judge_in_context`)."""
DEAD_ZONE = 0.05
"""``|expected_reward|`` at or below this is ``unknown``."""
MAX_CANDIDATES = 5000
"""Most recent tool calls considered per recall."""
MAX_SITUATIONS = 64
"""Most similar situations (episodes, or prompting steps) whose calls are judged per recall."""
DRIFTED_CONFIDENCE = 0.4
"""Confidence factor of a decision learned under an old schema whose arguments did not migrate."""
MIGRATED_CONFIDENCE = 0.8
"""Confidence factor of a decision whose arguments were migrated but not yet used since."""
_CARRIED_FLAGS = ("unstable", "tainted", "contradicted", "rejected")


@dataclass
class _Call:
    event_id: str
    delta_id: str
    episode_id: str | None
    tool: str | None
    action: str
    args: dict[str, Any]
    original_args: dict[str, Any] | None
    schema_hash: str | None
    schema_current: bool | None
    migrated: bool
    flags: list[str]
    utility: float
    confidence: float
    trigger: str
    similarity: float
    reward: float | None = None
    weight: float = 0.0
    order: tuple[float, int] = (0.0, 0)
    key: tuple[str | None, Any] = (None, None)
    errored: bool = False


@dataclass
class _Group:
    calls: list[_Call] = field(default_factory=list)


class DecisionRecall:
    def __init__(
        self,
        database: Database,
        decisions: DecisionRepository,
        drift: DriftRepository,
        embed_one: Callable[[str], np.ndarray],
        decay_rate_per_hour: float,
    ) -> None:
        self._database = database
        self._decisions = decisions
        self._drift = drift
        self._embed_one = embed_one
        self._decay = decay_rate_per_hour

    def recall(
        self,
        context: str,
        *,
        tool: str | None,
        tenant: str,
        agent_id: str | None,
        top_k: int,
        include_failed: bool,
        min_confidence: float,
        min_similarity: float = 0.0,
        exclude_tainted: bool = True,
    ) -> list[Decision]:
        now = time.time()
        query = np.asarray(self._embed_one(context), dtype=np.float32)
        query = query / (float(np.linalg.norm(query)) or 1.0)
        with self._database.reader() as conn:
            heads = self._decisions.tool_call_heads(conn, tenant, tool=tool, agent_id=agent_id, limit=MAX_CANDIDATES)
            if not heads:
                return []
            openers = self._decisions.episode_openers(conn, tenant, [h.episode_id for h in heads if h.episode_id])
            loose = [h.event_id for h in heads if not h.episode_id or h.episode_id not in openers]
            parents = self._decisions.first_parents(conn, loose)
            anchor_of = {h.event_id: _anchor(h, openers, parents) for h in heads}
            anchors = self._decisions.texts_and_vectors(conn, list(set(anchor_of.values())))
            similarity_of = {
                anchor: float(np.clip(vector @ query, -1.0, 1.0)) if vector is not None and len(vector) == len(query) else 0.0
                for anchor, (_, vector) in anchors.items()
            }
            # Only the most similar situations are judged: the rest would weigh ~0 (similarity²)
            # and cost a read each. Heads are newest first, so ties keep the recent ones.
            ranked = sorted(dict.fromkeys(anchor_of.values()), key=lambda a: -similarity_of.get(a, 0.0))
            kept = {a for a in ranked[:MAX_SITUATIONS] if similarity_of.get(a, 0.0) >= min_similarity}
            rows = self._decisions.tool_calls(conn, [h.event_id for h in heads if anchor_of[h.event_id] in kept])
            episodes = [row.episode_id for row in rows if row.episode_id]
            delta_ids = [row.delta_id for row in rows]
            results = self._decisions.call_results(conn, delta_ids)
            learned = self._decisions.learning_evidence(conn, delta_ids)
            outcomes = self._decisions.episode_outcomes(conn, tenant, episodes)
            tools = sorted({row.tool_name for row in rows if row.tool_name})
            current = self._drift.current_hashes(conn, tenant, tools)
            versions = self._drift.schemas_of_tools(conn, tenant, tools)
            drifted = [row.delta_id for row in rows if _fits(row, current, versions) is False]
            history = self._drift.migrations_of(conn, drifted)
        groups: dict[tuple[str | None, Any], _Group] = {}
        for row in rows:
            flags = [f for f in (row.conflict_flags or ()) if f in _CARRIED_FLAGS or f in (SCHEMA_DRIFT, MIGRATION_FAILED)]
            if "rejected" in flags or (exclude_tainted and "tainted" in flags):
                continue
            anchor = anchor_of[row.event_id]
            text, similarity = anchors.get(anchor, ("", None))[0], similarity_of.get(anchor, 0.0)
            fits = _fits(row, current, versions)
            migration = _migration_to_current(row, history.get(row.delta_id, ()), current, versions) if fits is False else None
            call = _call(row, text, similarity, fits, migration, flags, now, self._decay)
            call.reward, call.weight = _evidence(row, results.get(row.delta_id, ()), learned.get(row.delta_id, ()), outcomes)
            call.errored = _errored(results.get(row.delta_id, ()))
            call.key = (row.tool_name, _frozen(call.args))
            groups.setdefault(call.key, _Group()).calls.append(call)
        _judge_in_context(groups, _episode_results(groups, learned, outcomes))
        decisions = [_decision(group) for group in groups.values()]
        decisions = [d for d in decisions if d.confidence >= min_confidence and d.similarity >= min_similarity]
        good = sorted((d for d in decisions if d.outcome != "failed"), key=lambda d: (-d.score, d.event_id))[:top_k]
        bad: list[Decision] = []
        if include_failed:
            bad = sorted(
                (d for d in decisions if d.outcome == "failed"), key=lambda d: (-d.similarity * d.confidence, d.event_id)
            )[:top_k]
        return good + bad


def _frozen(value: Any) -> Any:
    """A hashable, order-independent form of an argument pattern (the grouping key)."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("[]", *(_frozen(v) for v in value))
    return (type(value).__name__, value) if isinstance(value, (int, float, bool, str, type(None))) else repr(value)


def _anchor(head: Any, openers: dict[str, str], parents: dict[str, str]) -> str:
    if head.episode_id and head.episode_id in openers and openers[head.episode_id] != head.event_id:
        return openers[head.episode_id]
    return parents.get(head.event_id, head.event_id)


def _signature(tool: str, schema_hash: str, versions: dict[tuple[str, str], Any]) -> str:
    schema = versions.get((tool, schema_hash))
    return (interface_signature(schema) if schema is not None else None) or f"hash:{schema_hash}"


def _fits(row: Any, current: dict[str, str], versions: dict[tuple[str, str], Any]) -> bool | None:
    """Whether the call's schema has the interface of the tool's current one (None: unknown)."""
    if row.tool_schema_hash is None or row.tool_name not in current:
        return None
    now = current[row.tool_name]
    return row.tool_schema_hash == now or _signature(row.tool_name, row.tool_schema_hash, versions) == _signature(
        row.tool_name, now, versions
    )


def _migration_to_current(
    row: Any, history: Any, current: dict[str, str], versions: dict[tuple[str, str], Any]
) -> dict[str, Any] | None:
    """The latest migration of the call to the current interface."""
    target = _signature(row.tool_name, current[row.tool_name], versions)
    for step in reversed(list(history)):
        if _signature(row.tool_name, step["to_hash"], versions) == target:
            return step
    return None


def _call(
    row: Any,
    trigger: str,
    similarity: float,
    schema_current: bool | None,
    migration: dict[str, Any] | None,
    flags: list[str],
    now: float,
    decay: float,
) -> _Call:
    args = dict(row.tool_args or {})
    original: dict[str, Any] | None = None
    migrated = False
    confidence = float(row.confidence)
    if schema_current is False:
        if migration is not None and migration["status"] == "migrated" and migration["args"] is not None:
            original, args, migrated = args, dict(migration["args"]), True
            confidence *= MIGRATED_CONFIDENCE
        else:
            confidence *= DRIFTED_CONFIDENCE
        if SCHEMA_DRIFT not in flags:
            flags.append(SCHEMA_DRIFT)
    elif schema_current:
        # Learned under the current schema again (a drift back): the old flags no longer apply.
        flags = [f for f in flags if f not in (SCHEMA_DRIFT, MIGRATION_FAILED)]
    if migrated:
        flags.append("migrated")
    return _Call(
        event_id=row.event_id,
        delta_id=row.delta_id,
        episode_id=row.episode_id,
        tool=row.tool_name,
        action=row.action,
        args=args,
        original_args=original,
        schema_hash=row.tool_schema_hash,
        schema_current=schema_current,
        migrated=migrated,
        flags=flags,
        utility=decayed_utility(row.utility, row.utility_ts, now, decay),
        confidence=confidence,
        trigger=trigger,
        similarity=similarity,
        order=(float(row.ts), int(row.seq)),
    )


def _evidence(
    row: Any, results: Any, learned: Any, outcomes: dict[str, bool]
) -> tuple[float | None, float]:
    """(reward in [-1, 1] or None, evidence weight in [0, 1]) of one call."""
    feedback = [reward for source, reward, _ in learned if source == "feedback"]
    if feedback:
        return sum(feedback) / len(feedback), 1.0
    if _errored(results):
        return -1.0, 1.0
    outcome = [(reward, credit) for source, reward, credit in learned if source == "outcome"]
    if outcome:
        reward, credit = outcome[-1]
        return reward, max(credit, 0.05)
    if row.episode_id in outcomes:
        return (1.0 if outcomes[row.episode_id] else -1.0), 0.5
    if results:
        return 1.0, 0.25
    return None, 0.0


def _errored(results: Any) -> bool:
    """Every result of the call is a failure. A call with a failed and a successful result was
    retried and went through (an identical retry is the same event once de-duplicated): the
    failure was transient and is not evidence against the call."""
    return bool(results) and all(result_failed(meta) for meta in results)


def _episode_results(groups: dict[Any, _Group], learned: Any, outcomes: dict[str, bool]) -> dict[str, bool]:
    """Whether each episode of the candidate calls succeeded: its outcome event, else the reward
    ``record_outcome`` gave its steps."""
    found = dict(outcomes)
    for group in groups.values():
        for call in group.calls:
            if call.episode_id and call.episode_id not in found:
                rewards = [reward for source, reward, _ in learned.get(call.delta_id, ()) if source == "outcome"]
                if rewards:
                    found[call.episode_id] = rewards[-1] > 0
    return found


def _judge_in_context(groups: dict[Any, _Group], succeeded: dict[str, bool]) -> None:
    """Failure evidence judged against the rest of its episode (sets ``reward`` to None when the
    failure says nothing about the call):

    * **Transient failure.** A call that errored but whose identical retry in the same episode
      went through failed for a passing reason (a timeout, a flaky dependency), not because the
      call is wrong.
    * **Missing prerequisite (contrast).** In a failed episode, a call is excused when the
      latest :data:`CONTRAST_SUCCESSES` successful episodes that made the same call all made some
      other call that this episode did not make: the failure is explained by what was missing,
      not by this call (a deploy with the right strategy is not condemned by the run that forgot
      the migration every successful deploy had before it). Excuses are re-judged at every
      recall, so a failure recorded before the first success is excused once that success exists.
    """
    by_episode: dict[str, list[_Call]] = {}
    for group in groups.values():
        for call in group.calls:
            if call.episode_id:
                by_episode.setdefault(call.episode_id, []).append(call)
    made = {episode: {c.key for c in calls} for episode, calls in by_episode.items()}
    went_through = {episode: {c.key for c in calls if not c.errored} for episode, calls in by_episode.items()}
    for group in groups.values():
        wins = sorted(
            {c.episode_id: c.order for c in group.calls if c.episode_id and succeeded.get(c.episode_id)}.items(),
            key=lambda item: item[1],
            reverse=True,
        )[:CONTRAST_SUCCESSES]
        expected: set[Any] | None = None
        for episode, _ in wins:
            expected = set(made[episode]) if expected is None else expected & made[episode]
        for call in group.calls:
            if call.reward is None or call.reward >= 0 or not call.episode_id:
                continue
            episode = call.episode_id
            if call.errored and call.key in went_through[episode]:
                call.reward, call.weight = None, 0.0
            elif succeeded.get(episode) is False and expected and (expected - {call.key}) - made[episode]:
                call.reward, call.weight = None, 0.0


def _per_episode(calls: list[_Call]) -> list[_Call]:
    """One piece of evidence per episode: the same call made twice in one run (a retry that
    failed again) is one outcome of the decision, not two consistent ones. Newest first, as given;
    the episode's reward is the mean of its calls' and its weight the largest."""
    merged: list[_Call] = []
    index: dict[str, int] = {}
    for call in calls:
        if call.episode_id is None or call.episode_id not in index:
            if call.episode_id is not None:
                index[call.episode_id] = len(merged)
            merged.append(call)
            continue
        kept = merged[index[call.episode_id]]
        if call.reward is not None:
            if kept.reward is None:
                merged[index[call.episode_id]] = call
            else:
                n = getattr(kept, "_merged", 1)
                kept.reward = (kept.reward * n + call.reward) / (n + 1)
                kept.weight = max(kept.weight, call.weight)
                setattr(kept, "_merged", n + 1)
    return merged


def _decision(group: _Group) -> Decision:
    calls = sorted(group.calls, key=lambda c: c.order, reverse=True)  # newest first
    total = mass = weighted = utility_sum = sim_sum = 0.0
    worked = failed = evidence = 0
    for call in _per_episode(calls):
        sim = max(call.similarity, 0.0)
        utility_sum += sim * call.utility
        sim_sum += sim
        if call.reward is None:
            continue
        recency = RECENCY**evidence  # per newer episode (or loose call) that carried evidence
        evidence += 1
        worked += call.reward > 0
        failed += call.reward < 0
        a = sim * sim * call.weight * recency
        total += a
        weighted += a * call.reward
        mass += sim * call.weight * recency
    expected = weighted / total if total > 0 else 0.0
    # The representative: a call whose arguments fit the current schema, the most similar, newest.
    rep = max(calls, key=lambda c: (c.schema_current is not False or c.migrated, round(c.similarity, 9), c.order))
    confidence = (mass / (mass + 1.0)) * rep.confidence
    if total <= 0 or abs(expected) <= DEAD_ZONE:
        outcome = "unknown"
    else:
        outcome = "worked" if expected > 0 else "failed"
    flags = list(dict.fromkeys(rep.flags + ([outcome] if outcome == "failed" else [])))
    similarity = max(c.similarity for c in calls)
    score = similarity * (0.5 + 0.5 * expected * confidence)
    return Decision(
        tool=rep.tool,
        action=rep.action,
        args=rep.args,
        original_args=rep.original_args,
        outcome=outcome,
        expected_reward=round(expected, 6),
        confidence=round(confidence, 6),
        utility=round(utility_sum / sim_sum, 6) if sim_sum > 0 else round(rep.utility, 6),
        trigger=rep.trigger,
        similarity=round(similarity, 6),
        schema_hash=rep.schema_hash,
        schema_current=rep.schema_current,
        migrated=rep.migrated,
        flags=flags,
        evidence=evidence,
        worked_count=worked,
        failed_count=failed,
        event_id=rep.event_id,
        delta_id=rep.delta_id,
        episode_id=rep.episode_id,
        score=round(score if math.isfinite(score) else 0.0, 6),
    )
