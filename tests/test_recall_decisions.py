"""``recall_decisions``: what worked in similar situations and what failed, judged on outcomes,
failed tool results, credit and recency — not on similarity alone."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from deltacore import AsyncDeltaCore, Decision, InvalidQueryError

_ids = itertools.count()


def _episode(memory, task, calls, reward=None, *, agent_id=None, tenant="default"):
    """One episode: the task message, then each ``(tool, args, failed)`` call with its result."""
    episode = f"ep{next(_ids)}"
    start = time.time()
    rows = [{"id": f"{episode}:task", "text": task, "episode_id": episode, "ts": start}]
    for i, (tool, args, failed) in enumerate(calls):
        call_id = f"{episode}:call{i}"
        rows.append(
            {
                "id": call_id,
                "kind": "tool_call",
                "tool_name": tool,
                "tool_args": args,
                "episode_id": episode,
                "ts": start + 2 * i + 1,
                "meta": {"dedupe_key": call_id},  # a retry with the same arguments is its own call
            }
        )
        rows.append(
            {
                "id": f"{episode}:result{i}",
                "kind": "tool_result",
                "tool_name": tool,
                "text": "error: timed out" if failed else f"{tool} done",
                "parent_ids": [call_id],
                "episode_id": episode,
                "ts": start + 2 * i + 2,
                "meta": {"error": True, "error_type": "Timeout"} if failed else {},
            }
        )
    memory.ingest([{**row, "agent_id": agent_id, "tenant": tenant} for row in rows])
    if reward is not None:
        memory.record_outcome(episode, reward, tenant=tenant)
    return episode


CANARY = ("deploy", {"service": "api", "env": "prod", "strategy": "canary"}, False)
ROLLING = ("deploy", {"service": "api", "env": "prod", "strategy": "rolling"}, False)


def test_returns_what_worked_and_what_failed_flagged(memory):
    _episode(memory, "deploy api to prod", [CANARY], 1.0)
    _episode(memory, "deploy api to prod", [ROLLING], -1.0)
    _episode(memory, "deploy api to prod", [CANARY], 1.0)
    _episode(memory, "deploy api to prod", [ROLLING], -1.0)
    decisions = memory.recall_decisions("deploy api to prod")
    assert [(d.args["strategy"], d.outcome) for d in decisions] == [("canary", "worked"), ("rolling", "failed")]
    worked, failed = decisions
    assert isinstance(worked, Decision) and worked.tool == "deploy" and worked.action == "call deploy"
    assert worked.expected_reward > 0.5 and worked.flags == [] and worked.worked_count == 2 and worked.evidence == 2
    assert failed.expected_reward < -0.5 and "failed" in failed.flags and failed.failed_count == 2
    assert worked.trigger == "deploy api to prod" and worked.similarity == pytest.approx(1.0)
    assert worked.utility > 0.5 > failed.utility
    assert worked.score > failed.score
    assert worked.schema_hash is None and worked.schema_current is None and not worked.migrated
    # (compared without the utility: it decays with the clock between the two calls)
    [only] = memory.recall_decisions("deploy api to prod", include_failed=False)
    assert only.model_copy(update={"utility": worked.utility}) == worked


def test_a_failed_tool_result_is_failure_evidence_before_any_outcome(memory):
    _episode(memory, "recover job 17", [("restart_job", {"job": 17}, True)])  # no record_outcome
    _episode(memory, "recover job 17", [("requeue_job", {"job": 17}, False)])
    decisions = memory.recall_decisions("recover job 17")
    by_tool = {d.tool: d for d in decisions}
    assert by_tool["restart_job"].outcome == "failed" and "failed" in by_tool["restart_job"].flags
    assert by_tool["requeue_job"].outcome == "worked"  # its result came back without error
    assert decisions[-1].tool == "restart_job"  # failures come after, so a caller can avoid them


def test_a_flaky_failure_is_not_over_learned_but_a_changed_world_is(memory):
    for _ in range(5):
        _episode(memory, "deploy api to prod", [CANARY], 1.0)
    _episode(memory, "deploy api to prod", [(*CANARY[:2], True)], -1.0)  # one random tool failure
    [decision] = memory.recall_decisions("deploy api to prod", include_failed=True)
    assert decision.outcome == "worked" and decision.failed_count == 1 and decision.worked_count == 5
    # The rule changed: canary now fails every time. Recent evidence outweighs the old.
    for _ in range(3):
        _episode(memory, "deploy api to prod", [CANARY], -1.0)
    [decision] = memory.recall_decisions("deploy api to prod")
    assert decision.outcome == "failed" and decision.expected_reward < 0


def test_credit_decides_what_a_step_learns_from_its_episode(memory):
    # The outcome depended on the deploy (terminal); the lookup was only earlier.
    lookup = ("lookup_owner", {"service": "api"}, False)
    for _ in range(2):
        _episode(memory, "deploy api to prod", [lookup, CANARY], 1.0)
    decisions = {d.tool: d for d in memory.recall_decisions("deploy api to prod")}
    assert decisions["deploy"].confidence > decisions["lookup_owner"].confidence


def test_similar_situations_rank_first_and_filters_apply(memory):
    _episode(memory, "deploy api to prod", [CANARY], 1.0, agent_id="ops")
    _episode(memory, "recover job 17 on the batch cluster", [("requeue_job", {"job": 17}, False)], 1.0, agent_id="batch")
    decisions = memory.recall_decisions("deploy the api service to prod")
    assert [d.tool for d in decisions] == ["deploy", "requeue_job"]
    assert decisions[0].similarity > decisions[1].similarity
    assert [d.tool for d in memory.recall_decisions("deploy the api service to prod", tool="requeue_job")] == ["requeue_job"]
    assert [d.tool for d in memory.recall_decisions("anything", agent_id="batch")] == ["requeue_job"]
    assert len(memory.recall_decisions("deploy the api service to prod", top_k=1)) == 1
    assert memory.recall_decisions("deploy api", tenant="elsewhere") == []
    strong = memory.recall_decisions("deploy api to prod", min_similarity=0.9)
    assert [d.tool for d in strong] == ["deploy"]


def test_confidence_grows_with_evidence(memory):
    _episode(memory, "deploy api to prod", [CANARY], 1.0)
    one = memory.recall_decisions("deploy api to prod")[0].confidence
    for _ in range(4):
        _episode(memory, "deploy api to prod", [CANARY], 1.0)
    five = memory.recall_decisions("deploy api to prod")[0].confidence
    assert 0 < one < five < 1
    assert memory.recall_decisions("deploy api to prod", min_confidence=min(1.0, five + 0.01)) == []


def test_deterministic(memory):
    # Speed is measured in benchmarks/self_learning.py, not asserted here (a timed test only
    # measures how loaded the machine is).
    for i in range(60):
        service = f"svc{i % 12}"
        args = {"service": service, "env": "prod", "strategy": "canary" if i % 3 else "rolling"}
        _episode(memory, f"deploy {service} to prod", [("deploy", args, False)], 1.0 if i % 3 else -1.0)
    def recalled():  # what was recalled and in which order; `utility` decays with the clock
        return [(d.event_id, d.args, d.outcome, d.expected_reward, d.confidence, d.score)
                for d in memory.recall_decisions("deploy svc4 to prod", top_k=5)]  # fmt: skip

    assert recalled() == recalled()
    first = memory.recall_decisions("deploy svc4 to prod", top_k=5)
    assert first[0].args["service"] == "svc4" and first[0].outcome == "worked"


def test_bad_input_is_explained(memory):
    with pytest.raises(InvalidQueryError, match="context"):
        memory.recall_decisions("  ")
    with pytest.raises(InvalidQueryError, match="top_k"):
        memory.recall_decisions("deploy", top_k=0)
    with pytest.raises(InvalidQueryError, match="min_confidence"):
        memory.recall_decisions("deploy", min_confidence=2)
    assert memory.recall_decisions("deploy api") == []  # an empty store: nothing to recall


def test_async_twin(backend):
    async def run():
        memory = AsyncDeltaCore(backend.open())
        try:
            _episode(memory.sync, "deploy api to prod", [CANARY], 1.0)
            [decision] = await memory.recall_decisions("deploy api to prod", top_k=3)
            report = await memory.observe_tools({"deploy": {"type": "object", "properties": {"service": {"type": "string"}}}})
            return decision, report
        finally:
            await memory.close()

    decision, report = asyncio.run(run())
    assert decision.outcome == "worked" and report.tools == ["deploy"]


# ---- failures judged in the context of their episode ------------------------------------------

MIGRATE = ("run_migration", {"service": "api"}, False)


def test_a_transient_failure_with_a_successful_retry_is_not_a_failure(memory):
    # The migration timed out, the identical retry went through and the deploy worked: the
    # timeout says nothing about the call, so it must not count against it.
    for _ in range(2):
        _episode(memory, "deploy api to prod", [MIGRATE, CANARY], 1.0)
    _episode(memory, "deploy api to prod", [(*MIGRATE[:2], True), MIGRATE, CANARY], 1.0)
    decisions = {d.tool: d for d in memory.recall_decisions("deploy api to prod", include_failed=True)}
    migrate = decisions["run_migration"]
    assert migrate.outcome == "worked" and migrate.failed_count == 0 and migrate.worked_count == 3
    assert migrate.expected_reward == pytest.approx(1.0)
    # A timeout without a successful retry is still a failure of the call — one failed episode,
    # not two consistent failures because it was tried twice.
    _episode(memory, "deploy api to prod", [(*MIGRATE[:2], True), (*MIGRATE[:2], True), CANARY], -1.0)
    migrate = {d.tool: d for d in memory.recall_decisions("deploy api to prod", include_failed=True)}["run_migration"]
    assert migrate.failed_count == 1


def test_a_decision_is_not_condemned_by_runs_that_missed_its_prerequisite(memory):
    # Canary works whenever the migration ran before it; the runs that forgot the migration
    # failed. Those failures are explained by the missing step, not by the canary strategy.
    for _ in range(3):
        _episode(memory, "deploy api to prod", [CANARY], -1.0)  # no migration: health checks fail
        _episode(memory, "deploy api to prod", [MIGRATE, CANARY], 1.0)
    _episode(memory, "deploy api to prod", [ROLLING], -1.0)
    _episode(memory, "deploy api to prod", [MIGRATE, ROLLING], -1.0)  # wrong strategy: fails anyway
    decisions = {(d.tool, d.args.get("strategy")): d for d in memory.recall_decisions("deploy api to prod", include_failed=True)}
    canary = decisions[("deploy", "canary")]
    assert canary.outcome == "worked" and canary.expected_reward == pytest.approx(1.0)
    assert canary.worked_count == 3 and canary.failed_count == 0
    # Rolling never worked, with or without the migration: its failures stand.
    rolling = decisions[("deploy", "rolling")]
    assert rolling.outcome == "failed" and rolling.failed_count == 2
    # The migration is not blamed for the run that chose the wrong strategy either.
    assert decisions[("run_migration", None)].failed_count == 0


def test_a_failure_with_the_same_plan_as_the_successes_counts(memory):
    # Nothing the successful runs did was missing: the world changed, the decision failed.
    for _ in range(3):
        _episode(memory, "deploy api to prod", [MIGRATE, CANARY], 1.0)
    _episode(memory, "deploy api to prod", [MIGRATE, CANARY], -1.0)
    [canary] = [d for d in memory.recall_decisions("deploy api to prod", include_failed=True) if d.tool == "deploy"]
    assert canary.failed_count == 1 and canary.outcome == "worked"  # one failure does not flip it
    _episode(memory, "deploy api to prod", [MIGRATE, CANARY], -1.0)
    [canary] = [d for d in memory.recall_decisions("deploy api to prod", include_failed=True) if d.tool == "deploy"]
    assert canary.failed_count == 2 and canary.outcome == "failed"  # two consistent ones do


def test_two_consistent_failures_unlearn_a_long_run_of_successes(memory):
    for _ in range(12):
        _episode(memory, "deploy api to prod", [CANARY], 1.0)
    for _ in range(2):
        _episode(memory, "deploy api to prod", [CANARY], -1.0)
    [decision] = memory.recall_decisions("deploy api to prod", include_failed=True)
    assert decision.outcome == "failed" and decision.expected_reward < 0


def test_a_tool_named_like_an_order_is_recalled(memory):
    # "run_migration(…)" read as a sentence opens with an imperative; the agent's own call of a
    # tool with that name is not an instruction aimed at it and must not be quarantined.
    _episode(memory, "deploy api to prod", [MIGRATE, CANARY], 1.0)
    assert "run_migration" in {d.tool for d in memory.recall_decisions("deploy api to prod")}
