"""The learning loop: an outcome (or a step's feedback) → credit per step → utility updates,
history rows, UNSTABLE flags and review items, all in one transaction.

The arithmetic lives in :mod:`deltacore.delta.credit` and :mod:`deltacore.delta.learning`; this
module reads an episode from storage, applies them and writes the result back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from deltacore.delta import credit as credit_rules
from deltacore.delta import learning
from deltacore.delta.utility import decayed_utility
from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.model import CreditUpdate, OutcomeReport, ReviewItem
from deltacore.delta.migration import params_of
from deltacore.delta.repositories import Database, DriftRepository, LearningRepository

UNSTABLE = "unstable"
CONTRAST_EPISODES = 100
"""Other episodes with the same terminal tool a step's counterfactual relevance is judged on."""
RELEVANT = 0.4
"""Relevance at or above which a step counts as necessary (never starved)."""
RETRIEVAL_WEIGHT = 0.5
"""Credit weight of a memory handed to the agent during the episode (``record_retrieval``)."""


@dataclass(frozen=True)
class LearningSettings:
    lam: float = credit_rules.DEFAULT_LAMBDA
    causal_boost: float = credit_rules.CAUSAL_BOOST
    necessary_floor: float = credit_rules.NECESSARY_FLOOR
    min_weight: float = credit_rules.MIN_WEIGHT
    alpha: float = learning.ALPHA
    retrieval_weight: float = RETRIEVAL_WEIGHT


class Learner:
    def __init__(
        self,
        database: Database,
        learning: LearningRepository,
        drift: DriftRepository,
        decay_rate_per_hour: float,
        settings: LearningSettings | None = None,
        read_only: Callable[[Connection, str], Mapping[str, bool]] | None = None,
    ) -> None:
        self._database = database
        self._read_only = read_only
        """Which tools only read (``readOnlyHint``): their steps earn little credit."""
        self._learning = learning
        self._drift = drift
        self._decay = decay_rate_per_hour
        self.settings = settings or LearningSettings()

    def record_outcome(
        self, episode_id: str, reward: float, tenant: str, necessary: Collection[str] | None = None
    ) -> OutcomeReport:
        _check_reward(reward)
        s = self.settings
        forced = set(necessary or ())
        with self._database.writer() as conn:
            rows = self._learning.episode_steps(conn, tenant, episode_id)
            if not rows:
                raise NotFoundError(f"no events of episode {episode_id!r} in tenant {tenant!r}")
            ids = [row.delta_id for row in rows]
            event_of = {row.delta_id: row.event_id for row in rows}
            data = credit_rules.data_dependencies(
                [{"id": row.delta_id, "kind": row.kind, "text": row.text, "tool_args": row.tool_args} for row in rows],
                shared=_opening_messages(rows),
            )
            parents = credit_rules.causal_parents(self._learning.links_of(conn, ids), data)
            steps = [credit_rules.Step(row.delta_id, parents.get(row.delta_id, ())) for row in rows]
            on_path = set(credit_rules.causal_hops(steps))
            needed = credit_rules.consumed_by_path(data, on_path)
            relevance = _relevance(self._learning, conn, tenant, episode_id, rows, parents, on_path, reward)
            steps = [
                credit_rules.Step(
                    row.delta_id,
                    step.parents,
                    necessary=(
                        step.id in needed
                        or row.event_id in forced
                        or row.delta_id in forced
                        or (row.meta or {}).get("necessary") is True
                        or relevance.get(row.delta_id, 0.0) >= RELEVANT
                    ),
                    relevance=relevance.get(row.delta_id),
                )
                for row, step in zip(rows, steps)
            ]
            tools_ro = self._read_only(conn, tenant) if self._read_only is not None else {}
            read_only = {
                row.delta_id for row in rows if row.kind in ("tool_call", "tool_result") and tools_ro.get(row.tool_name or "")
            }
            credits = credit_rules.assign_credit_read_only(
                steps, reward, read_only,
                lam=s.lam, causal_boost=s.causal_boost, necessary_floor=s.necessary_floor, min_weight=s.min_weight,
            )
            now = time.time()
            updates: list[CreditUpdate] = []
            opened: list[int] = []
            for row, c in zip(rows, credits):
                update, item = self._update(conn, row, tenant, episode_id, "outcome", reward, c.weight, now)
                updates.append(update.model_copy(update={"index": c.index, "share": c.share, "on_path": c.on_path, "necessary": c.necessary}))
                opened.extend(item)
            episode_events = set(event_of.values())
            retrieved = [e for e in self._learning.retrieved_in_episode(conn, tenant, episode_id) if e not in episode_events]
            if s.retrieval_weight > 0:
                for row in self._learning.event_deltas(conn, retrieved, tenant):
                    update, item = self._update(conn, row, tenant, episode_id, "retrieval", reward, s.retrieval_weight, now)
                    updates.append(update)
                    opened.extend(item)
        return OutcomeReport(tenant=tenant, episode_id=episode_id, reward=reward, updates=updates, review_items=opened)

    def feedback(self, event_id: str, reward: float, tenant: str | None) -> OutcomeReport:
        """Direct feedback on one step: its delta learns with full weight."""
        _check_reward(reward)
        with self._database.writer() as conn:
            rows = self._learning.event_deltas(conn, [event_id], tenant)
            if not rows:
                raise NotFoundError(f"no event with id {event_id!r}" + (f" in tenant {tenant!r}" if tenant else ""))
            row = rows[0]
            update, opened = self._update(conn, row, row.tenant, row.episode_id, "feedback", reward, 1.0, time.time())
        return OutcomeReport(tenant=row.tenant, episode_id=row.episode_id, reward=reward, updates=[update], review_items=opened)

    def _update(
        self, conn: Connection, row: Any, tenant: str, episode_id: str | None, source: str, reward: float, weight: float, now: float
    ) -> tuple[CreditUpdate, list[int]]:
        predicted = decayed_utility(row.utility, row.utility_ts, now, self._decay)
        new, step = learning.update_utility(predicted, reward=reward, weight=weight, alpha=self.settings.alpha)
        history = self._learning.recent_steps(conn, row.delta_id, learning.OSCILLATION_WINDOW - 1) + [step]
        flags = list(row.conflict_flags or ())
        opened: list[int] = []
        unstable = learning.is_oscillating(history)
        if unstable:
            if UNSTABLE not in flags:
                flags.append(UNSTABLE)
            if self._learning.open_item(conn, "UNSTABLE", row.delta_id) is None:
                opened.append(
                    self._learning.enqueue(
                        conn,
                        tenant,
                        "UNSTABLE",
                        f"utility oscillates: {learning.sign_flips(history)} sign flips in the last {len(history)} updates",
                        {"steps": history, "utility": new},
                        delta_id=row.delta_id,
                        event_id=row.event_id,
                    )
                )
        credit_value = reward * weight
        self._learning.apply_update(
            conn,
            {
                "delta_id": row.delta_id,
                "tenant": tenant,
                "episode_id": episode_id,
                "source": source,
                "ts": now,
                "reward": reward,
                "credit": weight,
                "predicted": predicted,
                "new_utility": new,
                "step": step,
            },
            (row.credit or 0.0) + credit_value,
            flags,
        )
        update = CreditUpdate(
            delta_id=row.delta_id,
            event_id=row.event_id,
            index=None,
            weight=weight,
            credit=credit_value,
            share=0.0,
            on_path=False,
            necessary=False,
            predicted=predicted,
            utility=new,
            step=step,
            unstable=unstable,
        )
        return update, opened

    def review_queue(self, tenant: str | None, include_resolved: bool) -> list[ReviewItem]:
        with self._database.reader() as conn:
            return self._learning.review_records(conn, tenant, include_resolved)

    def resolve(self, item_id: int, resolution: str, args: dict[str, Any] | None = None) -> ReviewItem:
        """Close an item with a note. The note's first word decides what happens to the delta:

        - ``accept`` (or ``keep``): the memory stays as it is; the flag that queued it
          (``unstable``, ``migration_failed``) is cleared.
        - ``reject``: the memory is wrong: utility 0, flagged ``rejected`` (recall_decisions
          never offers it again); its ``unstable`` / ``migration_failed`` flag is cleared.
        - anything else is a note; an UNSTABLE item's flag is cleared all the same (a person
          looked at it), and its oscillation window restarts from the resolution.

        ``args`` (SCHEMA_DRIFT items only) are the reviewer's migration of the call's arguments
        to the tool's new schema: stored like an automatic migration, so ``recall_decisions``
        offers them; every parameter the new schema requires must be there.
        """
        if not resolution or not resolution.strip():
            raise InvalidQueryError("resolution", "say how the item was resolved (e.g. 'accept' or 'reject')")
        verb = resolution.strip().split(":", 1)[0].split()[0].lower()
        if args is not None and (not isinstance(args, dict) or verb in _REJECT):
            raise InvalidQueryError("args", "give the migrated arguments as a dict, with a resolution that is not a rejection")
        now = time.time()
        with self._database.writer() as conn:
            item = self._learning.review_item(conn, item_id)
            if item is None:
                raise NotFoundError(f"no review item {item_id!r}")
            if item["resolved_at"] is not None:
                raise InvalidQueryError("item_id", f"review item {item_id} is already resolved ({item['resolution']})")
            if args is not None:
                self._manual_migration(conn, item, args, now)
            self._learning.resolve_item(conn, item_id, resolution.strip())
            delta_id = item["delta_id"]
            cleared = _QUEUED_BY.get(item["kind"])
            if delta_id and (cleared or verb in _ACCEPT | _REJECT):
                state = self._learning.delta_states(conn, [delta_id]).get(delta_id)
                if state is not None:
                    flags = [f for f in (state.conflict_flags or ()) if f != cleared]
                    if verb in _REJECT:
                        if REJECTED not in flags:
                            flags.append(REJECTED)
                        self._learning.set_utility(
                            conn, delta_id, state.tenant, predicted=state.utility, new=0.0, source="review", now=now, flags=flags
                        )
                        self._database.bump_version(conn, state.tenant)
                    elif verb in _ACCEPT or item["kind"] == "UNSTABLE" or args is not None:
                        self._learning.set_delta_flags(conn, delta_id, flags)
            record = self._learning.review_record(conn, item_id)
        assert record is not None
        return record

    def _manual_migration(self, conn: Connection, item: dict[str, Any], args: dict[str, Any], now: float) -> None:
        payload = item["payload"] or {}
        if item["kind"] != "SCHEMA_DRIFT" or not item["delta_id"] or not payload.get("to_hash"):
            raise InvalidQueryError("args", f"review item {item['id']} is not a failed schema migration; args do not apply")
        schema = self._drift.schema_of(conn, item["tenant"], payload["tool"], payload["to_hash"])
        missing = [p.name for p in params_of(schema).values() if p.required and p.name not in args]
        if missing:
            raise InvalidQueryError("args", f"the new schema of {payload['tool']!r} requires {', '.join(map(repr, missing))}")
        self._drift.record_migration(
            conn,
            {
                "delta_id": item["delta_id"],
                "to_hash": payload["to_hash"],
                "from_hash": payload.get("from_hash"),
                "tenant": item["tenant"],
                "tool_name": payload["tool"],
                "status": "migrated",
                "args": args,
                "mapping": {"by": "reviewer"},
                "reason": None,
                "ts": now,
            },
        )
        self._database.bump_version(conn, item["tenant"])


REJECTED = "rejected"
_ACCEPT = {"accept", "accepted", "keep"}
_REJECT = {"reject", "rejected", "delete", "discard"}
_QUEUED_BY = {"UNSTABLE": UNSTABLE, "SCHEMA_DRIFT": "migration_failed"}
"""The flag each kind of review item was opened for."""


def _relevance(
    learning: LearningRepository,
    conn: Connection, tenant: str, episode_id: str, rows: list[Any], parents: dict[str, tuple[str, ...]], on_path: set[str], reward: float
) -> dict[str, float]:
    """Counterfactual relevance of the episode's tool steps off the causal path (calls and their
    results), in [0, 1]: did outcomes like this one depend on making the step?

    The evidence is the latest :data:`CONTRAST_EPISODES` other episodes that called the same
    terminal tool. Steps are compared as *patterns* (:func:`~deltacore.delta.credit.call_pattern`:
    the values a call took from its task abstracted), within strata of episodes that ended in the
    same terminal call, controlling for the other steps, pooled over the strata
    (:func:`~deltacore.delta.credit.step_effects`).
    For a success the relevance is the step's effect on the chance of success; for a failure its opposite (a step
    that usually comes with success is not to blame); clipped to [0, 1]. A step with no contrast
    yet is left out (the temporal rule applies unchanged).

    A call that failed and was then retried with the same arguments in this very episode earned
    nothing of a success: the retry did the work."""
    calls = [row for row in rows if row.kind == "tool_call" and row.tool_name]
    if not calls:
        return {}
    terminal = calls[-1]
    others = [e for e in learning.episodes_with_tool(conn, tenant, terminal.tool_name, CONTRAST_EPISODES + 1) if e != episode_id]
    history: list[tuple[Any, set[tuple[str, str]], bool]] = []
    for trace in learning.episode_traces(conn, tenant, others[:CONTRAST_EPISODES]).values():
        if trace["succeeded"] is None or not trace["calls"]:
            continue
        tool, text, _, _ = trace["calls"][-1]
        made = {credit_rules.call_pattern(t, args, trace["opening"]) for t, _, args, _ in trace["calls"]}
        history.append(((tool, text), made, trace["succeeded"]))
    opening = _opening_messages(rows)
    pattern = {row.delta_id: credit_rules.call_pattern(row.tool_name, row.tool_args, opening) for row in calls}
    history.append(((terminal.tool_name, terminal.text or ""), set(pattern.values()), reward > 0))
    failed = _failed_calls(learning, rows, parents)
    went_through = {(row.tool_name, row.text or "") for row in calls if row.delta_id not in failed}
    effects = credit_rules.step_effects(history)
    sign = 1.0 if reward > 0 else -1.0
    found: dict[str, float] = {}
    for row in calls:
        if row.delta_id in on_path:
            continue
        if reward > 0 and row.delta_id in failed and (row.tool_name, row.text or "") in went_through:
            found[row.delta_id] = 0.0
            continue
        effect = effects.get(pattern[row.delta_id])
        if effect is not None:
            found[row.delta_id] = min(1.0, max(0.0, sign * effect))
    kind_of = {row.delta_id: row.kind for row in rows}
    for row in rows:  # a result is as relevant as the call it answers
        if row.kind == "tool_result" and row.delta_id not in on_path:
            call = next((p for p in parents.get(row.delta_id, ()) if kind_of.get(p) == "tool_call"), None)
            if call in found:
                found[row.delta_id] = found[call]
    return found


def _failed_calls(learning: LearningRepository, rows: list[Any], parents: dict[str, tuple[str, ...]]) -> set[str]:
    """Delta ids of the calls whose every result reports a failure."""
    calls = {row.delta_id for row in rows if row.kind == "tool_call"}
    answers = [
        ([p for p in parents.get(row.delta_id, ()) if p in calls], row.meta or {}) for row in rows if row.kind == "tool_result"
    ]
    return learning.failed_calls(answers)


def _opening_messages(rows: list[Any]) -> list[str]:
    """The messages before the episode's first tool call (its task): the context every step had."""
    opening: list[str] = []
    for row in rows:
        if row.kind == "tool_call":
            break
        if row.kind == "message" and row.text:
            opening.append(row.text)
    return opening


def _check_reward(reward: float) -> None:
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not -1.0 <= reward <= 1.0:
        raise InvalidQueryError("reward", f"must be a number in [-1, 1], got {reward!r}")
