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


def _shift_history(memory, now: float) -> None:
    """400 writes of one context, then a fact and a note; then 100 writes of another context
    with a newer note: the E07 alarm fires on that window."""
    day = 86_400.0

    def batch(tools: list[str], start: int, ts: float) -> list[dict]:
        return [
            {"kind": "tool_call", "tool_name": tools[i % len(tools)], "tool_args": {"step": start + i}, "ts": ts + i}
            for i in range(100)
        ]

    old = [{"text": "Anna lives in Berlin.", "actor": "priya", "ts": now - 30 * day},
           {"text": "Deploy notes: restart the api after the upgrade", "ts": now - 30 * day}]
    for start in range(0, 400, 100):
        events = batch(["deploy", "read_logs", "restart"], start, now - 20 * day + start)
        memory.ingest(old + events[2:] if start == 0 else events)  # four windows of 100
    memory.ingest(
        batch(["k8s_apply", "helm_upgrade"], 400, now - 2 * day)
        + [{"text": "Deploy notes: restart the api after the upgrade, then wait", "ts": now - day}]
    )


def test_after_a_shift_recent_memories_rank_higher_and_older_beliefs_are_degraded(backend):
    import time

    from deltacore import MemoryFlag

    now = time.time()
    question = "deploy notes: restart the api after the upgrade"
    flat = backend.open(path=backend.settings["path"].with_name("flat"), belief={"shift_boost": 0.0}) if backend.name == "sqlite" else None
    memory = backend.open()
    try:
        _shift_history(memory, now)
        [shift] = memory.system_events("DISTRIBUTION_SHIFT")
        assert now - 3 * 86_400 < shift["payload"]["since"] < now  # the diverging window's start
        top = memory.query(question, top_k=2)
        assert "then wait" in top[0].text  # the memory written since the shift leads
        [anna] = memory.query("Where does Anna live?", top_k=5)[:1]
        assert "Berlin" in anna.text and MemoryFlag.DEGRADED in anna.flags  # last observed before the shift
        memory.ingest([{"text": "Anna lives in Berlin.", "actor": "marco", "source": "user:marco"}])
        again = [p for p in memory.query("Where does Anna live?", top_k=5) if "Berlin" in p.text]
        assert again and all(MemoryFlag.DEGRADED not in p.flags for p in again)  # re-observed since
    finally:
        memory.close()
    if flat is not None:
        try:
            _shift_history(flat, now)
            assert "then wait" not in flat.query(question, top_k=2)[0].text  # without the boost, similarity decides
        finally:
            flat.close()
