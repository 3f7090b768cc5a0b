"""Learning from outcomes: credit assignment, utility updates, UNSTABLE review, the utility router."""

from __future__ import annotations

import asyncio
import math
import random
import time

import pytest
from sqlalchemy import select

from deltacore import AsyncDeltaCore, DeltaCore, InvalidQueryError, NotFoundError, OutcomeReport
from deltacore.delta.credit import Step, assign_credit, causal_hops, causal_parents, data_dependencies, step_effects
from deltacore.delta.learning import is_oscillating, outcome_of, sign_flips, update_utility
from deltacore.storage.tables import utility_updates

LN2 = math.log(2)


# ---- pure arithmetic ------------------------------------------------------------------------


def test_plain_chain_is_the_seeds_formula():
    # λ = ln 2, so exp(−λ·k) = 1/2^k: weights 1/8, 1/4, 1/2, 1; shares over 1.875.
    steps = [Step("a"), Step("b", ("a",)), Step("c", ("b",)), Step("d", ("c",))]
    credits = assign_credit(steps, 0.8, lam=LN2)
    assert [c.weight for c in credits] == pytest.approx([0.125, 0.25, 0.5, 1.0])
    assert [c.credit for c in credits] == pytest.approx([0.1, 0.2, 0.4, 0.8])
    assert [c.share for c in credits] == pytest.approx([0.125 / 1.875, 0.25 / 1.875, 0.5 / 1.875, 1 / 1.875])
    assert [c.hops for c in credits] == [3, 2, 1, 0]
    assert all(c.on_path for c in credits)


def test_credit_is_redistributed_along_causal_edges():
    # d depends on c, c on a; b merely happened in between (no edge reaches it).
    # On path: weight exp(−λ·hops) → a: 1/4, c: 1/2, d: 1.
    # Off path: exp(−λ·(T − t)) / causal_boost → b: (1/4) / 2 = 1/8.
    steps = [Step("a"), Step("b"), Step("c", ("a",)), Step("d", ("c",))]
    credits = {c.id: c for c in assign_credit(steps, 1.0, lam=LN2)}
    assert credits["a"].weight == pytest.approx(0.25)
    assert credits["b"].weight == pytest.approx(0.125)
    assert credits["c"].weight == pytest.approx(0.5)
    assert credits["d"].weight == pytest.approx(1.0)
    assert credits["a"].weight > credits["b"].weight  # earlier, but the outcome depended on it
    assert not credits["b"].on_path and credits["b"].hops is None
    # A necessary step gets at least the floor.
    tagged = [Step("a"), Step("b", necessary=True), Step("c", ("a",)), Step("d", ("c",))]
    assert assign_credit(tagged, 1.0, lam=LN2)[1].weight == pytest.approx(0.5)
    # Negative rewards give negative credit with the same weights.
    assert assign_credit(steps, -1.0, lam=LN2)[0].credit == pytest.approx(-0.25)


def test_long_episode_lowers_lambda_so_no_weight_vanishes():
    # λ = 10 would give the first of 3 steps exp(−20); capped at ln(1/0.01)/2 → weights .01, .1, 1.
    credits = assign_credit([Step("a"), Step("b", ("a",)), Step("c", ("b",))], 1.0, lam=10.0)
    assert [c.weight for c in credits] == pytest.approx([0.01, 0.1, 1.0])


def test_causal_hops_survive_a_loop():
    steps = [Step("a", ("c",)), Step("b", ("a",)), Step("c", ("b",))]
    assert causal_hops(steps) == {"c": 0, "b": 1, "a": 2}


def test_data_dependencies_replace_the_sequence_link():
    records = [
        {"id": "call-a", "kind": "tool_call", "text": "", "tool_args": {"q": "latest build"}},
        {"id": "res-a", "kind": "tool_result", "text": "latest build is 8812", "tool_args": None},
        {"id": "res-c", "kind": "tool_result", "text": "pong 12", "tool_args": None},
        {"id": "call-b", "kind": "tool_call", "text": "", "tool_args": {"build": "8812", "force": True, "n": 12}},
    ]
    data = data_dependencies(records)
    # "latest build" was never produced earlier; 8812 comes from res-a, 12 from res-c.
    assert data == {"call-b": ["res-a", "res-c"]}
    links = {"res-a": [("call-a", "parent")], "res-c": [("res-a", "sequence")], "call-b": [("res-c", "sequence")]}
    parents = causal_parents(links, {"call-b": ["res-a"]})
    assert parents["call-b"] == ("res-a",)
    assert parents["res-c"] == ("res-a",)  # no declared cause: the sequence link stays
    assert parents["res-a"] == ("call-a",)


def test_values_from_the_task_are_not_data_dependencies():
    # Tools echo the names they were called with; the deploy's service came from the task, not
    # from reading the logs. The build number only a result produced is still a dependency.
    records = [
        {"id": "task", "kind": "message", "text": "deploy billing-api to staging", "tool_args": None},
        {"id": "logs", "kind": "tool_result", "text": "last log lines of billing-api: build 8812 ok", "tool_args": None},
        {"id": "deploy", "kind": "tool_call", "text": "", "tool_args": {"service": "billing-api", "build": "8812"}},
    ]
    assert data_dependencies(records) == {"deploy": ["logs"]}
    only_echo = [records[0], records[1], {**records[2], "tool_args": {"service": "billing-api", "env": "staging"}}]
    assert data_dependencies(only_echo) == {"deploy": ["logs"]}  # without the task: a false edge
    assert data_dependencies(only_echo, shared=["deploy billing-api to staging"]) == {}
    assert data_dependencies(records, shared=["deploy billing-api to staging"]) == {"deploy": ["logs"]}


def test_counterfactual_relevance_scales_off_path_credit():
    # Same terminal call ("d"): success came with the migration every time and never without it;
    # the logs were read in two of the runs that also migrated, which made no difference.
    history = [("d", {"migrate", "logs"}, True), ("d", {"logs"}, False), ("d", {"migrate"}, True), ("d", set(), False)]
    effects = step_effects(history)
    assert effects["migrate"] > 0.5 and abs(effects["logs"]) < 0.05
    assert "unseen" not in effects  # never made: no contrast
    assert step_effects([("d", {"migrate"}, True), ("d", {"migrate"}, False)]) == {}  # never skipped
    # Strata: a step compared only within episodes that ended in the same terminal call. An
    # agent that always read the logs once it knew the right call ("ok") and never while it
    # explored the wrong one ("bad") does not make the logs look useful.
    habit = [("ok", {"logs"}, True), ("ok", {"logs"}, True), ("bad", set(), False), ("bad", set(), False)]
    assert step_effects(habit) == {}
    # Relevance multiplies an off-path step's temporal weight; None leaves the seed's rule.
    steps = [Step("logs", relevance=0.0), Step("migrate", relevance=None), Step("deploy", ("x",))]
    credits = {c.id: c for c in assign_credit(steps, 1.0, lam=LN2)}
    assert credits["logs"].weight == 0.0 and credits["migrate"].weight == pytest.approx(0.5 / 2)
    assert credits["deploy"].weight == 1.0


def test_utility_update_and_oscillation_rules():
    assert outcome_of(1.0) == 1.0 and outcome_of(-1.0) == 0.0 and outcome_of(0.0) == 0.5
    assert update_utility(0.5, reward=1.0, weight=1.0, alpha=0.3) == pytest.approx((0.65, 0.15))
    assert update_utility(0.65, reward=-1.0, weight=0.5, alpha=0.3) == pytest.approx((0.5525, -0.0975))
    assert sign_flips([0.1, -0.01, 0.01, -0.1]) == 1  # the ±0.01 are below the floor and ignored
    assert not is_oscillating([0.1, -0.1, 0.1])  # 2 flips
    assert is_oscillating([0.1, -0.1, 0.1, -0.1])  # 3 flips
    assert not is_oscillating([0.1, -0.1, 0.1, -0.1, -0.1, -0.1, -0.1, -0.1, -0.1])  # outside the last 6
    with pytest.raises(ValueError):
        update_utility(0.5, reward=1.0, weight=2.0)


# ---- the engine ---------------------------------------------------------------------------


def _delta(memory: DeltaCore, event_id: str):
    chain = memory.query_causal(event_id, depth=1)
    return chain.deltas[chain.root]


def _episode(memory: DeltaCore, episode_id: str) -> dict[str, str]:
    """call A → result A ("build 8812"), an irrelevant ping, call B using 8812 → result B."""
    base = time.time() - 60
    events = [
        {"id": f"{episode_id}-call-a", "kind": "tool_call", "tool_name": "lookup", "tool_args": {"q": "newest"}},
        {"id": f"{episode_id}-res-a", "kind": "tool_result", "tool_name": "lookup", "text": "newest build is 8812",
         "parent_ids": [f"{episode_id}-call-a"]},
        {"id": f"{episode_id}-call-c", "kind": "tool_call", "tool_name": "ping", "tool_args": {"host": "db"}},
        {"id": f"{episode_id}-res-c", "kind": "tool_result", "tool_name": "ping", "text": "pong",
         "parent_ids": [f"{episode_id}-call-c"]},
        {"id": f"{episode_id}-call-b", "kind": "tool_call", "tool_name": "deploy", "tool_args": {"build": "8812"}},
        {"id": f"{episode_id}-res-b", "kind": "tool_result", "tool_name": "deploy", "text": "deployed",
         "parent_ids": [f"{episode_id}-call-b"]},
    ]
    for i, event in enumerate(events):
        event.update(episode_id=episode_id, ts=base + i)
    result = memory.ingest(events)
    assert result.ok
    return {e["id"].removeprefix(f"{episode_id}-"): e["id"] for e in events}


def test_record_outcome_credits_the_causal_chain(memory):
    ids = _episode(memory, "ep1")
    report = memory.record_outcome("ep1", 1.0)
    assert isinstance(report, OutcomeReport) and report.episode_id == "ep1"
    by = {name: report.update_for(event_id) for name, event_id in ids.items()}
    # T = 5, λ = 0.1. Path: res-b (0 hops) ← call-b (1) ← res-a (2, data edge 8812) ← call-a (3).
    # The ping (indices 2, 3) is off the path: exp(−0.1·(5 − t)) / 2.
    expected = {
        "call-a": math.exp(-0.3),
        "res-a": math.exp(-0.2),
        "call-c": math.exp(-0.3) / 2,
        "res-c": math.exp(-0.2) / 2,
        "call-b": math.exp(-0.1),
        "res-b": 1.0,
    }
    for name, weight in expected.items():
        assert by[name].weight == pytest.approx(weight), name
        assert by[name].index == list(ids).index(name)
        # predicted 0.5 (decayed for a minute: a hair less), outcome 1, α = 0.3.
        assert by[name].predicted == pytest.approx(0.5, rel=1e-3)
        assert by[name].utility == pytest.approx(by[name].predicted + 0.3 * weight * (1 - by[name].predicted))
    assert by["res-a"].necessary and by["res-a"].on_path  # its output was consumed on the path
    assert not by["call-c"].on_path and not by["res-c"].on_path
    assert by["call-a"].weight > by["res-c"].weight  # earlier, but needed
    assert sum(u.share for u in report.updates) == pytest.approx(1.0)
    # Stored: utility, credit, and one history row per delta, in the same transaction.
    stored = _delta(memory, ids["res-b"])
    assert stored.utility == pytest.approx(by["res-b"].utility, rel=1e-3)
    assert stored.credit == pytest.approx(1.0)
    with memory._sql.reader() as conn:
        rows = conn.execute(select(utility_updates).order_by(utility_updates.c.id)).all()
    assert len(rows) == 6
    assert {row.episode_id for row in rows} == {"ep1"} and {row.source for row in rows} == {"outcome"}
    assert all(row.step == pytest.approx(row.new_utility - row.predicted) for row in rows)


def test_caller_named_necessary_steps_and_unknown_episodes(memory):
    ids = _episode(memory, "ep2")
    report = memory.record_outcome("ep2", -1.0, necessary=[ids["call-c"]])
    ping = report.update_for(ids["call-c"])
    assert ping.necessary and ping.weight == pytest.approx(0.5)
    assert ping.credit == pytest.approx(-0.5) and ping.step < 0
    with pytest.raises(NotFoundError):
        memory.record_outcome("no-such-episode", 1.0)
    with pytest.raises(InvalidQueryError):
        memory.record_outcome("ep2", 2.0)


def test_starvation_a_necessary_early_step_in_a_long_episode(memory):
    base = time.time() - 100
    events = [
        {"id": f"s{i}", "text": f"step {i} of the long task", "episode_id": "long", "ts": base + i,
         "meta": {"necessary": True} if i == 2 else {}}
        for i in range(50)
    ]
    assert memory.ingest(events).ok
    report = memory.record_outcome("long", 1.0)
    necessary = report.update_for("s2")
    # Unfloored it would get exp(−λ'·47) with λ' = min(0.1, ln 100 / 49): about 0.012.
    lam = min(0.1, math.log(100) / 49)
    assert math.exp(-lam * 47) == pytest.approx(0.012, abs=1e-3)
    assert necessary.necessary and necessary.weight == pytest.approx(0.5)
    assert necessary.share > 2 / 50  # more than twice a uniform share
    assert necessary.utility - necessary.predicted == pytest.approx(0.3 * 0.5 * (1 - necessary.predicted))
    # No step's credit vanishes: the first keeps min_weight.
    assert report.update_for("s0").weight == pytest.approx(0.01)
    assert report.update_for("s1").weight < necessary.weight


def test_oscillating_utility_is_unstable_and_queued_for_review(memory):
    event_id = memory.add("retry the flaky upload with a longer timeout", episode_id="osc")
    flags = []
    for reward in (1.0, -1.0, 1.0):
        report = memory.feedback(event_id, reward)
        flags.append(report.updates[0].unstable)
    assert flags == [False, False, False] and memory.review_queue() == []
    report = memory.feedback(event_id, -1.0)  # third sign flip in the last four updates
    assert report.updates[0].unstable and len(report.review_items) == 1
    queue = memory.review_queue()
    assert [(item.kind, item.event_id) for item in queue] == [("UNSTABLE", event_id)]
    assert "sign flips" in queue[0].reason and len(queue[0].payload["steps"]) == 4
    delta = _delta(memory, event_id)
    assert "unstable" in delta.conflict_flags
    # Still oscillating: no second item while one is open.
    assert memory.feedback(event_id, 1.0).review_items == []
    assert len(memory.review_queue()) == 1
    assert memory.review_queue(tenant="other") == []
    resolved = memory.resolve_review(queue[0].id, "keep: the upload is flaky, not the advice")
    assert resolved.resolved_at is not None and resolved.resolution.startswith("keep")
    assert memory.review_queue() == []
    assert [item.id for item in memory.review_queue(include_resolved=True)] == [queue[0].id]
    delta = _delta(memory, event_id)
    assert "unstable" not in delta.conflict_flags
    # The window restarts at the resolution.
    assert not memory.feedback(event_id, -1.0).updates[0].unstable
    with pytest.raises(InvalidQueryError):
        memory.resolve_review(queue[0].id, "again")
    with pytest.raises(NotFoundError):
        memory.resolve_review(987654, "nothing")
    with pytest.raises(NotFoundError):
        memory.feedback("no-such-event", 1.0)
    with memory._sql.reader() as conn:
        steps = conn.execute(select(utility_updates.c.step).order_by(utility_updates.c.id)).scalars().all()
    assert len(steps) == 6 and [s > 0 for s in steps] == [True, False, True, False, True, False]


def test_deleting_an_event_removes_its_history_and_review_items(memory):
    event_id = memory.add("a flaky piece of advice", episode_id="del")
    for reward in (1.0, -1.0, 1.0, -1.0):
        memory.feedback(event_id, reward)
    assert len(memory.review_queue()) == 1
    memory.delete([event_id])
    assert memory.review_queue(include_resolved=True) == []
    with memory._sql.reader() as conn:
        assert conn.execute(select(utility_updates)).all() == []


def test_utility_router_ranks_what_led_to_success_first(memory):
    for episode, strategy in (("good", "canary"), ("bad", "rolling")):
        memory.add(
            f"deploy the api service with the {strategy} strategy",
            kind="tool_call", tool_name="deploy", tool_args={"service": "api", "strategy": strategy}, episode_id=episode,
        )
    for _ in range(3):
        memory.record_outcome("good", 1.0)
        memory.record_outcome("bad", -1.0)
    packets = memory.query("deploy the api service", routers=["UTILITY"], kinds="tool_call", top_k=2)
    assert [p.episode_id for p in packets] == ["good", "bad"]
    assert packets[0].utility > 0.8 > 0.2 > packets[1].utility
    assert packets[0].routers.get("utility") == 1


def test_retrieved_memories_share_the_outcome(memory):
    advice = memory.add("use the canary strategy for the api", episode_id="earlier")
    memory.add("deploy api", kind="tool_call", tool_name="deploy", episode_id="now")
    assert memory.record_retrieval([advice], episode_id="now") == 1
    report = memory.record_outcome("now", 1.0)
    update = report.update_for(advice)
    assert update.index is None and update.weight == pytest.approx(0.5)
    assert update.utility > update.predicted


# ---- the seed's test: an agent gets better with memory ---------------------------------------

SERVICES = ["api", "billing", "search", "auth"]
STRATEGIES = ["rolling", "canary", "bluegreen"]
RULE = {service: STRATEGIES[i % 3] for i, service in enumerate(SERVICES)}  # hidden from the agent


def _run_episode(memory: DeltaCore, rng: random.Random, n: int, service: str, use_memory: bool) -> bool:
    episode = f"ep-{n}"
    strategy = None
    if use_memory:
        packets = memory.query(f"deploy {service}", routers=["UTILITY"], action="deploy", kinds="tool_call", top_k=20)
        memory.record_retrieval([p.id for p in packets[:1]], episode_id=episode)
        tried_bad = set()
        for packet in packets:  # best first: the utility router put what worked on top
            args = packet.deltas[0].object or ""
            if f'"service": "{service}"' not in args:
                continue
            used = next(s for s in STRATEGIES if f'"strategy": "{s}"' in args)
            if packet.utility > 0.5 and strategy is None:
                strategy = used
            elif packet.utility < 0.5:
                tried_bad.add(used)
        if strategy is None:
            strategy = rng.choice([s for s in STRATEGIES if s not in tried_bad] or STRATEGIES)
    else:
        strategy = rng.choice(STRATEGIES)
    success = RULE[service] == strategy
    call = memory.add(
        f"deploy {service} with the {strategy} strategy",
        kind="tool_call", tool_name="deploy", tool_args={"service": service, "strategy": strategy}, episode_id=episode,
    )
    memory.add("deployed" if success else "deploy failed: health checks red", kind="tool_result", tool_name="deploy",
               parent_ids=[call], episode_id=episode, meta={} if success else {"error": True})
    memory.record_outcome(episode, 1.0 if success else -1.0)
    return success


def test_agent_improves_with_memory(memory):
    rng = random.Random(7)
    tasks = [SERVICES[i % len(SERVICES)] for i in range(12)]
    baseline = sum(_run_episode(memory, rng, 1000 + i, s, use_memory=False) for i, s in enumerate(tasks)) / len(tasks)
    for i in range(16):  # train: memory is populated and learns from outcomes
        _run_episode(memory, rng, i, SERVICES[i % len(SERVICES)], use_memory=True)
    score = sum(_run_episode(memory, rng, 2000 + i, s, use_memory=True) for i, s in enumerate(tasks)) / len(tasks)
    assert baseline < 1.0
    assert score >= 1.1 * baseline
    assert score >= 0.9


def test_async_twins(backend):
    async def scenario() -> None:
        memory = await AsyncDeltaCore.open(**_settings(backend))
        async with memory:
            event_id = await memory.add("async advice", episode_id="a1")
            report = await memory.record_outcome("a1", 1.0)
            assert report.update_for(event_id).utility > 0.5
            assert (await memory.feedback(event_id, -1.0)).updates[0].step < 0
            assert await memory.review_queue() == []

    asyncio.run(scenario())


def _settings(backend) -> dict:
    from deltacore.testing import FakeEmbedder

    return {"embedder": FakeEmbedder(), **backend.settings}


def _ops_episode(memory, name, calls, reward, service="billing-api"):
    """A task message, then tool calls (each with its result) hanging off it, then the outcome.
    A call given as ``(tool, args, "timed out")`` fails (an error result); a repeated call is
    ``<name>:<tool>#2``."""
    base = time.time() - 100
    rows = [{"id": f"{name}:task", "text": f"deploy {service} to staging", "episode_id": name, "ts": base}]
    seen: dict[str, int] = {}
    for i, (tool, args, *failure) in enumerate(calls):
        seen[tool] = seen.get(tool, 0) + 1
        call_id = f"{name}:{tool}" + (f"#{seen[tool]}" if seen[tool] > 1 else "")
        # A retry is a call of its own (the adapters key calls by their tool-call id), not a duplicate.
        rows.append({"id": call_id, "kind": "tool_call", "tool_name": tool, "tool_args": args,
                     "episode_id": name, "ts": base + 2 * i + 1, "parent_ids": [f"{name}:task"],
                     "meta": {"dedupe_key": call_id}})
        rows.append({"id": f"{call_id}:result", "kind": "tool_result", "tool_name": tool,
                     "text": f"{tool} of {service}: " + (failure[0] if failure else "ok"), "episode_id": name,
                     "ts": base + 2 * i + 2, "parent_ids": [call_id], "meta": {"error": True} if failure else {}})
    assert memory.ingest(rows).ok
    return memory.record_outcome(name, reward)


def test_credit_learns_from_other_tasks_and_not_from_habits(memory):
    # Other services: reading the service's logs before deploying made no difference.
    for svc in ("auth-service", "search-indexer", "user-profile"):
        deploy_svc = ("deploy", {"service": svc, "env": "staging", "strategy": "canary"})
        _ops_episode(memory, f"{svc}-1", [("read_logs", {"service": svc}), deploy_svc], 1.0, service=svc)
        _ops_episode(memory, f"{svc}-2", [deploy_svc], 1.0, service=svc)
    # billing-api: the agent read the logs every time (a habit), so its own runs have no
    # contrast; the other services' runs say what reading a service's logs is worth.
    deploy = ("deploy", {"service": "billing-api", "env": "staging", "strategy": "canary"})
    _ops_episode(memory, "b1", [("read_logs", {"service": "billing-api"}), deploy], 1.0)
    report = _ops_episode(memory, "b2", [("read_logs", {"service": "billing-api"}), deploy], 1.0)
    assert report.update_for("b2:read_logs").weight < 0.05
    assert report.update_for("b2:deploy").on_path and report.update_for("b2:deploy").weight > 0.9


def test_a_failed_attempt_earns_nothing_of_the_success_its_retry_made(memory):
    migrate = ("run_migration", {"service": "billing-api"})
    deploy = ("deploy", {"service": "billing-api", "env": "staging", "strategy": "canary"})
    report = _ops_episode(memory, "r1", [(*migrate, "timed out"), migrate, deploy], 1.0)
    assert report.update_for("r1:run_migration").weight == 0.0
    assert report.update_for("r1:run_migration:result").weight == 0.0
    assert report.update_for("r1:run_migration#2").weight > 0.0  # the retry that went through
    # A failed call that was never retried is not excused this way.
    report = _ops_episode(memory, "r2", [(*migrate, "timed out"), deploy], 1.0)
    assert report.update_for("r2:run_migration").weight > 0.0


def test_credit_goes_to_the_steps_success_depended_on(memory):
    service = {"service": "billing-api"}
    deploy = ("deploy", {"service": "billing-api", "env": "staging", "strategy": "canary"})
    migrate, logs = ("run_migration", service), ("read_logs", service)
    # History with the same deploy: it worked whenever the migration ran, whether or not the
    # logs were read; it failed without the migration.
    _ops_episode(memory, "h1", [migrate, logs, deploy], 1.0)
    _ops_episode(memory, "h2", [logs, deploy], -1.0)
    _ops_episode(memory, "h3", [migrate, deploy], 1.0)
    _ops_episode(memory, "h4", [deploy], -1.0)
    report = _ops_episode(memory, "now", [migrate, logs, deploy], 1.0)
    weight = {name: report.update_for(f"now:{name}").weight for name in ("run_migration", "read_logs", "deploy")}
    # The migration is off the causal path (nothing links the deploy to it) but success
    # depended on it: never starved. Reading logs made no difference: next to nothing.
    assert report.update_for("now:run_migration").necessary and weight["run_migration"] >= 0.5
    assert weight["read_logs"] < 0.05 < weight["run_migration"] < weight["deploy"]
    # Echoed names are no data dependency: the logs step stays off the path.
    assert not report.update_for("now:read_logs").on_path and not report.update_for("now:read_logs:result").on_path
    # A failure without the migration: the logs read in it are not blamed for it.
    failed = _ops_episode(memory, "later", [logs, deploy], -1.0)
    assert failed.update_for("later:read_logs").weight < 0.05
