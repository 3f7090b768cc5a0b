"""Distribution shift (E07): a window of writes unlike the history raises an alarm; more of the same does not."""

from __future__ import annotations

import random

from deltacore.belief.shift import ShiftMonitor, divergence, event_features


def _events(tools: list[str], n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [event_features({"kind": "tool_call", "tool_name": rng.choice(tools), "entities": [rng.choice(["api", "db"])]}) for _ in range(n)]


def test_more_of_the_same_is_no_shift():
    monitor = ShiftMonitor()
    assert monitor.observe("t", _events(["deploy", "read_logs", "restart"], 1000, seed=1)) == []


def test_a_new_context_raises_one_alarm_per_diverging_window():
    monitor = ShiftMonitor()
    assert monitor.observe("t", _events(["deploy", "read_logs", "restart"], 400, seed=1)) == []
    alarms = monitor.observe("t", _events(["k8s_apply", "helm_upgrade"], 100, seed=2))
    assert len(alarms) == 1 and alarms[0].divergence > 1.0
    assert {"tool:k8s_apply", "tool:helm_upgrade"} & set(alarms[0].rising)
    assert alarms[0].payload()["code"] == "E07"
    assert monitor.observe("other-tenant", _events(["k8s_apply"], 500, seed=3)) == []  # tenants are separate


def test_divergence_is_zero_for_identical_counts():
    from collections import Counter

    counts = Counter({"a": 3, "b": 1})
    assert divergence(counts, counts) == 0.0


def test_the_store_logs_a_shift_when_the_tools_change(memory):
    def batch(tools: list[str], start: int) -> list[dict]:
        return [
            {"kind": "tool_call", "tool_name": tools[i % len(tools)], "tool_args": {"step": start + i}, "episode_id": f"run-{start}"}
            for i in range(100)
        ]

    for start in range(0, 400, 100):
        memory.ingest(batch(["deploy", "read_logs", "restart"], start))
    assert memory.system_events("DISTRIBUTION_SHIFT") == []
    memory.ingest(batch(["k8s_apply", "helm_upgrade"], 400))
    [shift] = memory.system_events("DISTRIBUTION_SHIFT")
    assert shift["payload"]["code"] == "E07" and shift["payload"]["kl"] > 1.0
