"""The consolidation triggers beyond events and minutes (seed section 12, ``ConsolidationTrigger``):
utility variance, retrieval miss rate and distribution shift. Each fires on its condition, not
without it, counts only since the last cycle, and never on a read-only open."""

from __future__ import annotations

from deltacore.config import ConsolidationPolicy
from deltacore.consolidation.triggers import Trigger, TriggerState, fired


def _episodes(memory, rewards: list[float]) -> None:
    """One two-step deploy episode per reward, each ended with that outcome."""
    for n, reward in enumerate(rewards):
        memory.ingest([
            {"kind": "tool_call", "tool_name": "deploy", "tool_args": {"step": k}, "episode_id": f"run-{n}", "text": f"deploy step {k}"}
            for k in range(2)
        ])
        memory.record_outcome(f"run-{n}", reward)


def _tool_batches(memory, tools_per_batch: list[list[str]]) -> None:
    for b, tools in enumerate(tools_per_batch):
        memory.ingest([
            {"kind": "tool_call", "tool_name": tools[i % len(tools)], "tool_args": {"step": 100 * b + i}, "episode_id": f"batch-{b}"}
            for i in range(100)
        ])


def test_outcomes_that_pull_utilities_up_and_down_make_a_cycle_due(backend):
    with backend.open() as memory:
        _episodes(memory, [1.0, -1.0] * 6)
        status = memory.consolidate_status()
        assert status.utility_variance is not None and status.utility_variance > 0.01
        assert status.triggers == ("utility_variance",) and status.due


def test_steady_outcomes_do_not_fire_the_utility_variance_trigger(backend):
    with backend.open() as memory:
        _episodes(memory, [1.0] * 12)
        status = memory.consolidate_status()
        assert status.utility_variance is not None and status.utility_variance < 0.01
        assert status.triggers == () and not status.due


def test_queries_that_find_nothing_make_a_cycle_due_until_the_next_cycle(backend):
    with backend.open() as memory:
        memory.add("the deploy job failed on the staging cluster", kind="observation")
        for _ in range(20):
            assert memory.query("why did the deploy fail?", kinds=["tool_result"]) == []
        status = memory.consolidate_status()
        assert status.retrieval_miss_rate == 1.0 and "miss_rate" in status.triggers and status.due
        memory.consolidate()
        status = memory.consolidate_status()
        assert status.retrieval_miss_rate is None and "miss_rate" not in status.triggers


def test_queries_that_find_memories_do_not_fire_the_miss_rate_trigger(backend):
    with backend.open() as memory:
        memory.add("the deploy job failed on the staging cluster", kind="observation")
        for _ in range(20):
            assert memory.query("why did the deploy fail?") != []
        status = memory.consolidate_status()
        assert status.retrieval_miss_rate == 0.0 and status.triggers == ()


def test_a_distribution_shift_makes_a_cycle_due_until_the_next_cycle(backend):
    with backend.open() as memory:
        _tool_batches(memory, [["deploy", "read_logs", "restart"]] * 4 + [["k8s_apply", "helm_upgrade"]])
        assert len(memory.system_events("DISTRIBUTION_SHIFT")) == 1
        status = memory.consolidate_status()
        assert status.shifts_since_last == 1 and status.triggers == ("shift",) and status.due
        memory.consolidate()
        status = memory.consolidate_status()
        assert status.shifts_since_last == 0 and status.triggers == ()


def test_more_of_the_same_context_does_not_fire_the_shift_trigger(backend):
    with backend.open() as memory:
        _tool_batches(memory, [["deploy", "read_logs", "restart"]] * 5)
        status = memory.consolidate_status()
        assert status.shifts_since_last == 0 and status.triggers == () and not status.due


def test_a_read_only_open_reports_no_trigger(backend):
    with backend.open() as memory:
        _tool_batches(memory, [["deploy", "read_logs", "restart"]] * 4 + [["k8s_apply", "helm_upgrade"]])
        _episodes(memory, [1.0, -1.0] * 6)
    with backend.open(read_only=True) as memory:
        status = memory.consolidate_status()
        assert status.shifts_since_last == 1 and status.utility_variance > 0.01
        assert status.triggers == () and not status.due


def test_each_trigger_can_be_turned_off():
    state = TriggerState(events_since_last=5, minutes_since_last=None, utility_steps=(0.2, -0.2) * 10,
                         queries_since_last=20, empty_queries_since_last=20, shifts_since_last=1)
    assert fired(state, ConsolidationPolicy()) == (Trigger.UTILITY_VARIANCE, Trigger.MISS_RATE, Trigger.SHIFT)
    off = ConsolidationPolicy(trigger_utility_variance=None, trigger_miss_rate=None, trigger_on_shift=False)
    assert fired(state, off) == ()
