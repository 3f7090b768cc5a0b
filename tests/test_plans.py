"""Plans as schemas (issue 17): recall across entities, pooled evidence, splits, failure kinds,
credit, drift, schema versions and bundles. Real SQLite + embedded Chroma (fake embedder); the
``memory`` tests also run on PostgreSQL + a Chroma server when configured."""

from __future__ import annotations

import copy
import itertools
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from deltacore import DeltaCore
from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.testing import FakeEmbedder

_ids = itertools.count()
_clock = itertools.count()
_START = time.time() - 86400.0


def _ts() -> str:
    """Distinct, increasing, past times: a retried call is a second occurrence, not a duplicate."""
    return datetime.fromtimestamp(_START + next(_clock), UTC).isoformat()


TOOLS = [
    {
        "name": "run_migration",
        "parameters": {
            "type": "object",
            "properties": {"service": {"type": "string"}},
            "required": ["service"],
        },
    },
    {
        "name": "deploy",
        "parameters": {
            "type": "object",
            "properties": {
                "service": {"type": "string"},
                "env": {"type": "string"},
                "strategy": {"type": "string"},
            },
            "required": ["service", "env"],
        },
    },
    {
        "name": "check_status",
        "parameters": {"type": "object", "properties": {"service": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    },
]


def deploy_task(
    service: str, env: str = "staging", **attributes: Any
) -> dict[str, Any]:
    return {
        "text": f"deploy {service} to {env}",
        "kind": "deploy",
        "fields": {"service": service, "env": env},
        "entity": service,
        "attributes": attributes,
    }


def run_episode(
    store: DeltaCore,
    task: dict[str, Any],
    calls: list[
        tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], dict[str, Any]]
    ],
    reward: float | None,
    *,
    tenant: str = "default",
) -> dict[str, str]:
    """Record one episode (task message, calls and results) and its outcome; ``{tool: result id}``."""
    episode = f"ep{next(_ids)}"
    events: list[dict[str, Any]] = [
        {"id": f"{episode}-task", "kind": "message", "role": "user", "text": task["text"], "episode_id": episode,
         "tenant": tenant, "meta": {"task": {k: v for k, v in task.items() if k != "text"}}, "ts": _ts()},
    ]  # fmt: skip
    results: dict[str, str] = {}
    for index, call in enumerate(calls):
        tool, args = call[0], call[1]
        meta = call[2] if len(call) > 2 else {}
        call_id, result_id = f"{episode}-c{index}", f"{episode}-r{index}"
        events.append({"id": call_id, "kind": "tool_call", "tool_name": tool, "tool_args": args,
                       "text": f"called {tool}", "episode_id": episode, "tenant": tenant, "ts": _ts()})  # fmt: skip
        events.append({"id": result_id, "kind": "tool_result", "tool_name": tool, "text": "failed" if meta else "done",
                       "parent_ids": [call_id], "episode_id": episode, "tenant": tenant, "meta": meta, "ts": _ts()})  # fmt: skip
        results.setdefault(tool, result_id)
    result = store.ingest(events)
    assert not result.rejected and not result.quarantined, (
        result.rejected,
        result.quarantined,
    )
    if reward is not None:
        store.record_outcome(episode, reward, tenant=tenant)
    return results


def full_plan(service: str, env: str = "staging") -> list[tuple[str, dict[str, Any]]]:
    return [
        ("run_migration", {"service": service}),
        ("deploy", {"service": service, "env": env, "strategy": "rolling"}),
        ("check_status", {"service": service}),
    ]


def without_migration(
    service: str, env: str = "staging"
) -> list[tuple[str, dict[str, Any]]]:
    return full_plan(service, env)[1:]


@pytest.fixture
def store(tmp_path):
    memory = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    memory.observe_tools(TOOLS)
    yield memory
    memory.close()


def plan_with(plans, tools: list[str]):
    return next(p for p in plans if [s.tool for s in p.steps] == tools)


def test_a_plan_learned_on_one_entity_is_advised_for_another_with_its_slots_filled(
    store,
):
    run_episode(store, deploy_task("billing"), full_plan("billing"), 1.0)
    run_episode(
        store, deploy_task("auth", "production"), full_plan("auth", "production"), 1.0
    )

    best = store.recall_plans(deploy_task("payments"))[0]
    assert [s.tool for s in best.steps] == ["run_migration", "deploy", "check_status"]
    assert best.steps[1].args == {
        "service": "payments",
        "env": "staging",
        "strategy": "rolling",
    }
    assert best.steps[1].template == {
        "service": "{service}",
        "env": "{env}",
        "strategy": "rolling",
    }
    assert {s.name: (s.source, s.value) for s in best.slots} == {
        "service": ("field:service", "payments"),
        "env": ("field:env", "staging"),
    }
    assert best.evidence.successes == 2 and best.probability > 0.5 and best.complete
    # A task given as text only is filled from the text the earlier tasks had.
    text_only = store.recall_plans("deploy search to production")[0]
    assert text_only.steps[1].args == {
        "service": "search",
        "env": "production",
        "strategy": "rolling",
    }


def test_relative_dates_stay_relative(store):
    for start, day_before in (
        ("2026-03-10", "2026-03-09"),
        ("2026-05-01", "2026-04-30"),
    ):
        task = {
            "text": f"backfill orders from {start}",
            "kind": "backfill",
            "fields": {"start": start, "table": "orders"},
        }
        run_episode(
            store, task, [("backfill", {"table": "orders", "since": day_before})], 1.0
        )
    plan = store.recall_plans({"text": "backfill orders from 2026-07-01", "kind": "backfill",
                               "fields": {"start": "2026-07-01", "table": "orders"}})[0]  # fmt: skip
    assert plan.steps[0].args == {"table": "orders", "since": "2026-06-30"}
    assert plan.steps[0].template["since"] == "{start-1d}"
    assert plan.evidence.successes == 2


def test_a_failure_on_one_entity_lowers_the_pattern_for_similar_ones(store):
    for service in ("billing", "auth", "search"):
        run_episode(store, deploy_task(service, tier="web"), full_plan(service), 1.0)
    before = plan_with(
        store.recall_plans(deploy_task("payments", tier="web")),
        ["run_migration", "deploy", "check_status"],
    )

    run_episode(store, deploy_task("ledger", tier="web"), full_plan("ledger"), -1.0)

    after = plan_with(
        store.recall_plans(deploy_task("payments", tier="web")),
        ["run_migration", "deploy", "check_status"],
    )
    assert after.schema_id == before.schema_id
    assert after.evidence.failures == 1 and after.evidence.successes == 3
    assert after.probability < before.probability - 0.05


def test_an_entity_specific_rule_is_learned_as_a_split_not_averaged(store):
    plan = [("restart", {"service": "db-{n}", "mode": "fast"})]
    for n in range(4):
        for engine, reward in (("postgres", 1.0), ("mysql", -1.0)):
            name = f"{engine}-{n}"
            task = {
                "text": f"restart {name}",
                "kind": "restart",
                "entity": name,
                "attributes": {"engine": engine},
            }
            run_episode(
                store, task, [("restart", {"service": name, "mode": "fast"})], reward
            )
    del plan

    pg = store.recall_plans({"text": "restart postgres-9", "kind": "restart", "entity": "postgres-9",
                             "attributes": {"engine": "postgres"}})[0]  # fmt: skip
    my = store.recall_plans({"text": "restart mysql-9", "kind": "restart", "entity": "mysql-9",
                             "attributes": {"engine": "mysql"}})[0]  # fmt: skip
    assert pg.schema_id == my.schema_id
    assert pg.steps[0].args == {"service": "postgres-9", "mode": "fast"}
    assert pg.probability > 0.75 and "failed" not in pg.flags
    assert my.probability < 0.25 and "failed" in my.flags
    assert pg.split is not None and pg.split["key"] == "attr:engine"
    # Another engine: the postgres-only rule does not speak for it.
    other = store.recall_plans({"text": "restart oracle-1", "kind": "restart", "entity": "oracle-1",
                                "attributes": {"engine": "oracle"}})[0]  # fmt: skip
    assert other.probability < 0.5


def test_transient_failures_do_not_count_against_a_plan_and_permanent_ones_do(store):
    for service in ("billing", "auth"):
        run_episode(store, deploy_task(service), without_migration(service), 1.0)
    before = store.recall_plans(deploy_task("payments"))[0]

    timeout = {
        "error": {
            "kind": None,
            "type": "TimeoutError",
            "message": "deploy timed out after 30s",
        }
    }
    failed = without_migration("ledger")
    failed[0] = (*failed[0], timeout)
    run_episode(store, deploy_task("ledger"), failed, -1.0)
    after = store.recall_plans(deploy_task("payments"))[0]
    assert after.schema_id == before.schema_id
    assert after.evidence.transient_failures == 1 and after.evidence.failures == 0
    assert after.probability == pytest.approx(before.probability, abs=0.02)

    denied = without_migration("vault")
    denied[0] = (
        *denied[0],
        {
            "error": {
                "kind": None,
                "type": "PermissionError",
                "message": "permission denied",
            }
        },
    )
    results = run_episode(store, deploy_task("vault"), denied, -1.0)
    worse = store.recall_plans(deploy_task("payments"))[0]
    assert worse.evidence.failures == 1 and worse.probability < after.probability

    # Declared after the fact: the permission error was a flaky identity provider after all.
    store.declare_failure(results["deploy"], "transient")
    declared = store.recall_plans(deploy_task("payments"))[0]
    assert declared.evidence.failures == 0 and declared.evidence.transient_failures == 2


def test_a_retry_that_went_through_makes_the_failure_transient(store):
    flaky = {"error": {"type": "RuntimeError", "message": "something broke"}}
    calls = [
        (
            "deploy",
            {"service": "billing", "env": "staging", "strategy": "rolling"},
            flaky,
        ),
        *without_migration("billing"),
    ]
    run_episode(store, deploy_task("billing"), calls, 1.0)
    plan = store.recall_plans(deploy_task("auth"))[0]
    # The failed attempt is not part of the plan: the retry did the work.
    assert [s.tool for s in plan.steps] == ["deploy", "check_status"]
    assert plan.evidence.successes == 1


def test_credit_goes_to_the_necessary_step_not_the_trailing_read_only_one(store):
    for index, service in enumerate(("billing", "auth", "search", "ledger")):
        run_episode(store, deploy_task(service), full_plan(service), 1.0)
        run_episode(
            store, deploy_task(f"{service}-b"), without_migration(f"{service}-b"), -1.0
        )
        del index
    plan = plan_with(
        store.recall_plans(deploy_task("payments"), tools=TOOLS, top_k=5),
        ["run_migration", "deploy", "check_status"],
    )
    credit = {s.tool: s.credit for s in plan.steps}
    assert plan.steps[2].read_only and not plan.steps[0].read_only
    assert credit["run_migration"] > 0.8
    assert credit["check_status"] < 0.3
    assert (
        credit["run_migration"] > credit["check_status"]
        and credit["deploy"] > credit["check_status"]
    )


def test_a_drifted_tool_is_migrated_with_one_migration_record(store):
    run_episode(
        store,
        deploy_task("billing"),
        [("deploy", {"service": "billing", "env": "staging", "strategy": "rolling"})],
        1.0,
    )
    v2 = [{
        "name": "deploy",
        "parameters": {
            "type": "object",
            "properties": {"service": {"type": "string"}, "environment": {"type": "string"},
                           "approval": {"type": "string", "default": "auto"}},
            "required": ["service", "environment", "approval"],
        },
    }]  # fmt: skip
    plan = store.recall_plans(deploy_task("payments"), tools=v2)[0]
    assert plan.steps[0].args == {
        "service": "payments",
        "environment": "staging",
        "approval": "auto",
    }
    assert plan.steps[0].template == {
        "service": "{service}",
        "environment": "{env}",
        "approval": "auto",
    }
    (migration,) = plan.migrations
    assert migration.tool == "deploy" and migration.renamed == {"env": "environment"}
    assert migration.added_defaults == {"approval": "auto"} and migration.dropped == (
        "strategy",
    )
    assert "drifted" in plan.flags and "stale" not in plan.flags
    # A tool that is no longer offered: the plan cannot run as is.
    gone = store.recall_plans(deploy_task("payments"), tools=[TOOLS[0]])[0]
    assert "stale" in gone.flags


def test_schema_update_and_rollback(store):
    run_episode(store, deploy_task("billing"), without_migration("billing"), 1.0)
    plan = store.recall_plans(deploy_task("auth"))[0]
    schema = store.schema_get(plan.schema_id)
    assert (
        schema.version == 1
        and schema.provenance == "LEARNED"
        and schema.reliability["successes"] == 1
    )

    steps = [step.model_dump() for step in schema.steps]
    steps[0]["template"] = {**steps[0]["template"], "strategy": "blue-green"}
    updated = store.schema_update(plan.schema_id, steps=steps, note="rolling is gone")
    assert updated.version == 2
    assert (
        store.recall_plans(deploy_task("auth"))[0].steps[0].args["strategy"]
        == "blue-green"
    )

    back = store.schema_rollback(plan.schema_id, 1)
    assert back.version == 3 and back.steps[0].template["strategy"] == "rolling"
    assert (
        store.recall_plans(deploy_task("auth"))[0].steps[0].args["strategy"]
        == "rolling"
    )

    with pytest.raises(InvalidQueryError, match="colour"):
        store.schema_update(plan.schema_id, colour="red")
    with pytest.raises(InvalidQueryError, match="version"):
        store.schema_rollback(plan.schema_id, 9)
    with pytest.raises(NotFoundError):
        store.schema_get("nope")


def test_export_then_import_into_a_fresh_tenant_gives_the_same_plans(memory):
    memory.observe_tools(TOOLS)
    for service in ("billing", "auth"):
        run_episode(memory, deploy_task(service), full_plan(service), 1.0)
    run_episode(memory, deploy_task("ledger"), without_migration("ledger"), -1.0)
    task = deploy_task("payments")
    here = memory.recall_plans(task, top_k=5)

    bundle = memory.schema_export()
    assert (
        bundle["format"] == "deltacore.schemas"
        and bundle["version"] == 1
        and len(bundle["checksum"]) == 64
    )
    assert memory.schema_import(bundle, tenant="fresh") == len(bundle["schemas"]) == 2
    there = memory.recall_plans(task, tenant="fresh", top_k=5)

    def shape(plans):
        return [
            (p.schema_id, [(s.tool, s.args, s.template) for s in p.steps])
            for p in plans
        ]

    assert shape(there) == shape(here)
    assert all(p.provenance == "PRIOR" and "prior" in p.flags for p in there)
    assert memory.schema_get(
        there[0].schema_id, tenant="fresh"
    ).confidence == pytest.approx(0.3)


def test_a_corrupt_or_foreign_bundle_is_refused_and_nothing_changes(store):
    run_episode(store, deploy_task("billing"), without_migration("billing"), 1.0)
    bundle = store.schema_export()

    edited = copy.deepcopy(bundle)
    edited["schemas"][0]["body"]["steps"][0]["template"]["strategy"] = "yolo"
    with pytest.raises(InvalidQueryError, match="bundle.checksum"):
        store.schema_import(edited, tenant="fresh")
    newer = {**bundle, "version": 99}
    with pytest.raises(InvalidQueryError, match="bundle.version"):
        store.schema_import(newer, tenant="fresh")
    with pytest.raises(InvalidQueryError, match="bundle.format"):
        store.schema_import({"schemas": []}, tenant="fresh")
    with pytest.raises(InvalidQueryError, match="bundle"):
        store.schema_import("{not json", tenant="fresh")
    assert store.recall_plans(deploy_task("auth"), tenant="fresh") == []


def test_cold_start_priors_are_offered_until_local_outcomes_take_over(store, tmp_path):
    for service in ("billing", "auth", "search"):
        run_episode(store, deploy_task(service), without_migration(service), 1.0)
    bundle = store.schema_export()

    fresh = DeltaCore.open(tmp_path / "fresh", embedder=FakeEmbedder())
    try:
        assert fresh.schema_import(bundle) == 1
        prior = fresh.recall_plans(deploy_task("payments"))[0]
        schema = fresh.schema_get(prior.schema_id)
        assert schema.provenance == "PRIOR" and schema.confidence == pytest.approx(0.3)
        assert (
            prior.provenance == "PRIOR"
            and "prior" in prior.flags
            and prior.evidence.episodes == 0
        )
        # A prior says "probably": above even odds, far from certain.
        assert 0.5 < prior.probability < 0.65
        assert prior.steps[0].args == {
            "service": "payments",
            "env": "staging",
            "strategy": "rolling",
        }
        fresh.observe_tools(TOOLS)
        for service in ("a1", "a2"):
            run_episode(fresh, deploy_task(service), without_migration(service), -1.0)
        local = fresh.recall_plans(deploy_task("payments"))[0]
        assert (
            local.evidence.failures == 2
            and local.probability < 0.4
            and "prior" not in local.flags
        )
    finally:
        fresh.close()


def test_bad_input_names_the_field(store):
    with pytest.raises(InvalidQueryError, match="task"):
        store.recall_plans("  ")
    with pytest.raises(InvalidQueryError, match="task.colour"):
        store.recall_plans({"text": "x", "colour": "red"})
    with pytest.raises(InvalidQueryError, match="top_k"):
        store.recall_plans("deploy", top_k=0)
    with pytest.raises(InvalidQueryError, match="kind"):
        store.declare_failure("x", "flaky")
    with pytest.raises(NotFoundError):
        store.declare_failure("no-such-event", "transient")
    assert store.recall_plans("deploy billing") == []


def test_record_outcome_gives_a_trailing_read_only_step_little_credit(store):
    results = run_episode(store, deploy_task("billing"), full_plan("billing"), None)
    episode = results["deploy"].split("-")[0]
    report = store.record_outcome(episode, 1.0)
    weight = {u.event_id: u.weight for u in report.updates}
    deploy, status = results["deploy"], results["check_status"]
    assert weight[deploy] == pytest.approx(1.0)
    assert weight[status] < 0.2 < weight[deploy]
    assert weight[results["run_migration"]] > weight[status]


def _deploy(service: str, strategy: str, env: str = "staging") -> list[tuple[str, dict[str, Any]]]:
    return [("deploy", {"service": service, "env": env, "strategy": strategy})]


def test_thin_or_contradicted_evidence_is_not_advised_above_even_odds(store):
    run_episode(store, deploy_task("billing", tier="web"), _deploy("billing", "canary"), 1.0)
    for service in ("auth", "search"):
        denied = {"error": {"type": "PermissionError", "message": "permission denied"}}
        run_episode(store, deploy_task(service, tier="web"),
                    [(*_deploy(service, "canary")[0], denied)], -1.0)  # fmt: skip

    plan = plan_with(store.recall_plans(deploy_task("payments", tier="web"), top_k=5), ["deploy"])
    assert plan.evidence.successes == 1 and plan.evidence.failures == 2
    assert plan.probability < 0.5


def test_a_value_that_differs_per_entity_is_learned_per_entity(store):
    # The strategy that works is each service's own: canary for three, rolling for one. It is
    # not in the task, so nothing but the entity tells them apart.
    for service in ("billing", "auth", "search"):
        run_episode(store, deploy_task(service), _deploy(service, "canary"), 1.0)
    run_episode(store, deploy_task("ledger"), _deploy("ledger", "canary"), -1.0)
    run_episode(store, deploy_task("ledger"), _deploy("ledger", "rolling"), 1.0)

    best = store.recall_plans(deploy_task("ledger"))[0]
    assert best.steps[0].args["strategy"] == "rolling" and best.probability > 0.5
    canary = next(p for p in store.recall_plans(deploy_task("ledger"), top_k=5)
                  if p.steps[0].args["strategy"] == "canary")  # fmt: skip
    assert canary.probability < 0.5  # three successes elsewhere do not outweigh its failure here
    # A service seen working with canary keeps it, whatever ledger needed.
    assert store.recall_plans(deploy_task("billing"))[0].steps[0].args["strategy"] == "canary"
    # A new service: what worked elsewhere is likely, not certain.
    new = store.recall_plans(deploy_task("payments"))[0]
    assert 0.5 < new.probability < store.recall_plans(deploy_task("billing"))[0].probability


def test_a_plan_that_failed_here_does_not_hide_one_that_worked_elsewhere(store):
    run_episode(store, deploy_task("ledger"), _deploy("ledger", "canary"), -1.0)
    for service in ("billing", "auth", "search"):
        run_episode(store, deploy_task(service), _deploy(service, "rolling"), 1.0)

    plans = store.recall_plans(deploy_task("ledger"), top_k=5)
    assert plans[0].steps[0].args["strategy"] == "rolling" and plans[0].probability > 0.5


DEPLOY_V2 = [{
    "name": "deploy",
    "parameters": {
        "type": "object",
        "properties": {"service": {"type": "string"}, "environment": {"type": "string"},
                       "strategy": {"type": "string"}},
        "required": ["service", "environment"],
    },
}]  # fmt: skip


def test_failures_of_a_migrated_plan_count_against_it(store):
    for service in ("billing", "auth"):
        run_episode(store, deploy_task(service), _deploy(service, "canary"), 1.0)
    store.observe_tools(DEPLOY_V2)
    migrated = store.recall_plans(deploy_task("search"), tools=DEPLOY_V2)[0]
    assert "drifted" in migrated.flags and migrated.probability > 0.5
    call = dict(migrated.steps[0].args)
    assert call == {"service": "search", "environment": "staging", "strategy": "canary"}

    # After the change the migrated plan fails (the new deploy needs something else): those
    # runs are the same pattern, and their failures count against it.
    for service in ("search", "ledger", "payments"):
        run_episode(store, deploy_task(service),
                    [("deploy", {**call, "service": service})], -1.0)  # fmt: skip
    after = plan_with(store.recall_plans(deploy_task("vault"), tools=DEPLOY_V2, top_k=5), ["deploy"])
    assert after.schema_id == migrated.schema_id
    assert after.evidence.successes == 2 and after.evidence.failures == 3
    assert after.probability < 0.5


def test_an_episode_without_a_recorded_task_is_not_advised_for_a_described_one(store):
    # Its task message never made it into the store (not recorded, or quarantined): its calls,
    # with their literal values, say nothing about which tasks they fit.
    episode = f"ep{next(_ids)}"
    store.ingest([
        {"id": f"{episode}-c", "kind": "tool_call", "tool_name": "deploy", "episode_id": episode, "ts": _ts(),
         "tool_args": {"service": "billing", "env": "staging", "strategy": "rolling"}, "text": "called deploy"},
        {"id": f"{episode}-r", "kind": "tool_result", "tool_name": "deploy", "text": "done", "ts": _ts(),
         "parent_ids": [f"{episode}-c"], "episode_id": episode},
    ])  # fmt: skip
    store.record_outcome(episode, 1.0)

    assert store.recall_plans(deploy_task("payments")) == []
