"""Budgets and graceful degradation: the level controller (pure), the plans each level hands
the read path, quotas read from SQL (shared by every instance on a store), and the levels as a
user meets them: fewer routers, HOT + lexical, vectors queued in the outbox, refusal."""

from __future__ import annotations

import time

import pytest
from deltacore import (
    ConfigurationError,
    DeltaCoreConfig,
    GovernorPolicy,
    MemoryBudget,
    OverloadedError,
    QuotaExceededError,
)
from deltacore.governor.levels import LevelController, read_plan
from deltacore.model import SearchBudget

FAST = {"min_samples": 3, "dwell_seconds": 0.4}


def facts(n: int, tenant: str = "default") -> list[dict]:
    return [
        {
            "text": f"fact {i}: the billing service restarts at {i} o'clock",
            "tenant": tenant,
        }
        for i in range(n)
    ]


# ---- the controller (pure) -------------------------------------------------------------------


def judged(
    controller: LevelController, latencies: list[float], target: float, now: float
) -> list:
    for latency in latencies:
        controller.observe(latency, now=now)
    return controller.evaluate(target, None, now=now)


def test_levels_climb_one_at_a_time_hold_in_the_band_and_recover():
    policy = GovernorPolicy(
        min_samples=3, dwell_seconds=1.0, raise_above=1.0, lower_below=0.6
    )
    controller = LevelController("t", policy)
    now = controller.changed_at
    # Not yet: the dwell time.
    assert judged(controller, [200.0] * 3, 100.0, now + 0.5) == []
    [up] = judged(controller, [], 100.0, now + 1.0)
    assert (up.from_level, up.to_level, up.p95_ms, up.target_ms) == (0, 1, 200.0, 100.0)
    # Too few samples at the new level.
    assert judged(controller, [200.0] * 2, 100.0, now + 2.5) == []
    assert judged(controller, [200.0], 100.0, now + 2.6)[0].to_level == 2
    # Between 60% and 100% of the target: the level holds (hysteresis), however long it lasts.
    for step in range(5):
        assert judged(controller, [80.0] * 5, 100.0, now + 4 + step * 2) == []
    assert controller.level == 2
    [down] = judged(controller, [30.0] * 3, 100.0, now + 20)
    assert (down.from_level, down.to_level) == (2, 1) and "within" in down.reason


def test_idle_steps_down_one_level_per_dwell_time():
    policy = GovernorPolicy(min_samples=3, dwell_seconds=1.0, max_level=5)
    controller = LevelController("t", policy)
    now = controller.changed_at
    for step in range(5):
        judged(controller, [500.0] * 3, 100.0, now + 1.0 + step * 1.0)
    assert controller.level == 5
    now = controller.changed_at
    # Nothing was refused for a dwell time: the excess demand has gone.
    [probe] = controller.evaluate(100.0, None, now=now + 1.0)
    assert probe.to_level == 4
    # No query for 3.5 dwell times: the load has ended.
    changes = controller.evaluate(100.0, None, now=now + 1.0 + 3.5)
    assert [c.to_level for c in changes] == [3, 2, 1]
    assert [c.to_level for c in controller.evaluate(100.0, None, now=now + 10)] == [0]


def test_level_five_runs_one_query_at_a_time_and_is_left_when_nothing_is_refused():
    policy = GovernorPolicy(min_samples=1, dwell_seconds=1.0, refuse_concurrency=1)
    controller = LevelController("t", policy)
    controller.level = 5
    start = controller.changed_at
    assert controller.admit(now=start)
    assert not controller.admit(now=start + 0.5)  # a second one at once is refused
    controller.release()
    # Refused 0.7 s ago: the demand is still there.
    assert controller.evaluate(10.0, None, now=start + 1.2) == []
    [down] = controller.evaluate(10.0, None, now=start + 1.6)
    assert (down.from_level, down.to_level) == (5, 4)
    assert down.reason == "nothing refused for the dwell time"
    assert controller.admit() and controller.admit()  # below 5 every query runs


def test_max_level_caps_the_controller_and_a_pin_overrides_it():
    controller = LevelController(
        "t", GovernorPolicy(min_samples=1, dwell_seconds=1.0, max_level=3)
    )
    now = controller.changed_at
    for step in range(6):
        judged(controller, [999.0], 1.0, now + 1 + step)
    assert controller.level == 3
    # Pinned by a person:
    assert [c.to_level for c in controller.evaluate(1.0, 0, now=now + 7)] == [0]
    assert controller.evaluate(1.0, 0, now=now + 8) == []


def test_each_level_plan_is_what_the_docs_say():
    policy = GovernorPolicy(shrunk_pool_fraction=0.25)
    base = SearchBudget(candidate_pool=80)
    assert read_plan(0, base, 10, policy) == base
    one = read_plan(1, base, 10, policy)
    assert (
        set(one.routers) == {"semantic", "lexical", "entity", "temporal", "recency"}
        and one.candidate_pool == 80
    )
    two = read_plan(2, base, 10, policy)
    assert (
        set(two.routers) == {"semantic", "lexical", "recency"}
        and two.candidate_pool == 20
        and not two.hot_only
    )
    three = read_plan(3, base, 30, policy)
    assert three.hot_only and three.candidate_pool == 30  # never below top_k


def test_a_bad_budget_names_its_field():
    with pytest.raises(ConfigurationError, match="max_memories"):
        MemoryBudget.build(max_memories=-1)
    with pytest.raises(ConfigurationError, match=r"budgets\.acme\.max_bytes"):
        DeltaCoreConfig.build(path="unused", budgets={"acme": {"max_bytes": -5}})
    with pytest.raises(ConfigurationError, match="query_p95_ms"):
        MemoryBudget.build(query_p95_ms=0)
    with pytest.raises(ConfigurationError, match="hysteresis"):
        DeltaCoreConfig.build(
            path="unused", governor={"raise_above": 0.5, "lower_below": 0.6}
        )


# ---- quotas: usage comes from SQL -----------------------------------------------------------


def test_memory_quota_is_shared_by_every_instance_and_names_the_limit(backend):
    budgets = {"*": {"max_memories": 5}}
    first, second = backend.open(budgets=budgets), backend.open(budgets=budgets)
    try:
        first.ingest(facts(4))
        with pytest.raises(QuotaExceededError) as refused:
            second.ingest(facts(2))  # the other instance's four memories count
        message = str(refused.value)
        assert (
            "max_memories is 5" in message
            and "4 are used" in message
            and "adds 2" in message
        )
        assert "set_budget('default', max_memories=" in message
        assert len(first.events()) == 4  # nothing of the refused batch was stored
        second.set_budget("default", max_memories=6)
        assert len(second.ingest(facts(6)[4:]).stored) == 2
        # Another tenant: the "*" budget of its own.
        first.ingest(facts(1, tenant="other"))
    finally:
        first.close()
        second.close()


def test_token_and_byte_quotas(memory):
    memory.set_budget("default", max_ingest_tokens_per_day=40)
    memory.ingest(facts(2))
    used = memory.monitor("default").tokens_ingested_24h
    with pytest.raises(
        QuotaExceededError,
        match=f"max_ingest_tokens_per_day is 40 tokens written in 24 h; {used} are used",
    ):
        memory.ingest(facts(4)[2:])
    memory.set_budget("default", max_bytes=memory.monitor("default").memory_bytes + 10)
    with pytest.raises(QuotaExceededError, match="max_bytes"):
        memory.ingest(facts(3)[2:])
    memory.set_budget("default")  # no budget: no limits
    assert len(memory.ingest(facts(3)[2:]).stored) == 1


# ---- the levels as a user meets them ----------------------------------------------------------


def routers_used(
    memory, text: str = "when does the billing service restart?"
) -> set[str]:
    return {name for packet in memory.query(text, top_k=5) for name in packet.routers}


def test_pinned_levels_change_what_a_query_runs(backend):
    # Nothing in HOT: level 3 has no vector search at all.
    memory = backend.open(hot_capacity=0)
    try:
        memory.ingest(facts(12))
        full = routers_used(memory)
        assert "semantic" in full and "lexical" in full
        memory.set_budget("default", pin_level=1)
        assert routers_used(memory) <= {
            "semantic",
            "lexical",
            "entity",
            "temporal",
            "recency",
        }
        memory.set_budget("default", pin_level=3)
        assert routers_used(memory) == {"lexical"}
        assert memory.query("billing", top_k=3)  # still answers
        memory.set_budget("default", pin_level=0)
        assert "semantic" in routers_used(memory)
        changes = [
            (e["payload"]["from"], e["payload"]["to"])
            for e in memory.system_events("DEGRADATION_LEVEL")
        ]
        assert changes == [(0, 1), (1, 3), (3, 0)]
        assert memory.monitor("default").level_changes_24h == 3
    finally:
        memory.close()


def test_level_three_serves_semantic_from_hot_only(memory):
    memory.ingest(facts(12))
    memory.query("billing restart", top_k=3)  # loads the tenant into HOT
    memory.set_budget("default", pin_level=3)
    assert "semantic" in routers_used(memory)
    # HOT no longer holds the whole tenant.
    memory.add("a brand new memory about invoices")
    assert "semantic" not in routers_used(memory, "invoices")
    assert [p.text for p in memory.query("invoices", top_k=1)] == [
        "a brand new memory about invoices"
    ]  # lexical


def test_level_four_queues_vectors_and_level_five_refuses(backend):
    memory = backend.open()
    try:
        memory.ingest(facts(3))
        memory.apply_outbox()  # indexed before level 4 (background writes would be 200 ms later)
        memory.set_budget("default", pin_level=4)
        memory.ingest(facts(6)[3:])
        assert memory.monitor("default").vectors_pending == 3  # queued in the outbox
        # Lexical finds it already.
        assert memory.query("fact 5", top_k=1)[0].text.startswith("fact 5")
        memory.set_budget("default", pin_level=5)
        assert memory.query("fact 5", top_k=1)  # one query at a time still runs
        running = memory._governor.controller("default")
        assert running.admit()  # as if another query of the tenant were running
        refused = r"level 5.*refuse_concurrency.*retry in .* s.*query_p95_ms"
        with pytest.raises(OverloadedError, match=refused):
            memory.query("fact 5")
        running.release()
        with pytest.raises(OverloadedError, match="this write was refused"):
            memory.add("refused while overloaded")
        assert len(memory.events()) == 6
        # Back to automatic, no target: level 0, and the queue drains.
        memory.set_budget("default")
        economy = memory.monitor("default")
        assert economy.degradation_level == 0 and economy.vectors_pending == 0
        assert memory.stats().vectors == 6
    finally:
        memory.close()


def test_latency_over_the_target_degrades_and_recovers_when_load_ends(
    memory, monkeypatch
):
    memory.ingest(facts(20))
    governor = memory._governor  # the test shortens the controller's timings
    monkeypatch.setattr(governor, "policy", GovernorPolicy(**FAST, max_level=3))
    for controller in list(governor._controllers.values()):
        controller.policy = governor.policy
    memory.set_budget("default", query_p95_ms=0.001)  # no query meets it
    deadline = time.monotonic() + 20
    while governor.level("default") < 3 and time.monotonic() < deadline:
        memory.query("billing restart", top_k=3)
    assert memory.monitor("default").degradation_level == 3  # capped by max_level
    climbs = [
        (e["payload"]["from"], e["payload"]["to"])
        for e in memory.system_events("DEGRADATION_LEVEL")
    ]
    assert climbs == [(0, 1), (1, 2), (2, 3)]
    assert all(
        e["payload"]["reason"] == "p95 above the target"
        for e in memory.system_events("DEGRADATION_LEVEL")
    )
    time.sleep(4 * FAST["dwell_seconds"])  # load ends
    assert memory.monitor("default").degradation_level == 0
    assert [e["payload"]["to"] for e in memory.system_events("DEGRADATION_LEVEL")][
        3:
    ] == [2, 1, 0]
