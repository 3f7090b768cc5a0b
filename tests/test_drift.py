"""Tool-schema drift (E04): detection on a call or an offer, demotion, argument migration,
review of failed migrations, and invalidation of cached results."""

from __future__ import annotations

import pytest

from deltacore import DeltaCore, InvalidQueryError, MemoryFlag, SchemaDrift
from deltacore.delta.migration import migrate_args, name_similarity

V1 = {
    "type": "object",
    "properties": {"service": {"type": "string"}, "env": {"type": "string", "description": "target environment"}},
    "required": ["service", "env"],
}
V2_RENAMED = {
    "type": "object",
    "properties": {
        "service": {"type": "string"},
        "environment": {"type": "string", "description": "target environment"},
    },
    "required": ["service", "environment"],
}
V2_UNMAPPABLE = {
    "type": "object",
    "properties": {"service": {"type": "string"}, "region": {"type": "integer"}},
    "required": ["service", "region"],
}


# ---- migration rules (pure) -------------------------------------------------------------------


def test_renamed_parameter_is_carried_over():
    result = migrate_args({"service": "api", "env": "prod"}, V1, V2_RENAMED)
    assert result.ok
    assert result.args == {"service": "api", "environment": "prod"}
    assert result.renamed == {"env": "environment"}


def test_rename_by_words_position_and_description():
    old = {"type": "object", "properties": {"jobId": {"type": "string", "description": "the job to recover"}}}
    new = {
        "type": "object",
        "properties": {"job_identifier": {"type": "string", "description": "the job to recover"}},
        "required": ["job_identifier"],
    }
    result = migrate_args({"jobId": "J-7"}, old, new)
    assert result.ok and result.args == {"job_identifier": "J-7"}


def test_a_rename_is_never_guessed():
    # The seed's example: api_key -> bearer_token is a different credential, not a rename.
    old = {"type": "object", "properties": {"api_key": {"type": "string"}}}
    new = {"type": "object", "properties": {"bearer_token": {"type": "string"}}, "required": ["bearer_token"]}
    result = migrate_args({"api_key": "k"}, old, new)
    assert not result.ok and result.args is None
    assert "'api_key' no longer exists" in result.reason
    # Two equally good candidates: ambiguous, refused.
    new = {"type": "object", "properties": {"host_name": {"type": "string"}, "host_url": {"type": "string"}}}
    result = migrate_args({"host": "db1"}, {"type": "object", "properties": {"host": {"type": "string"}}}, new)
    assert not result.ok and "could have become" in result.reason


def test_retyped_parameter_is_cast_only_when_lossless():
    old = {"type": "object", "properties": {"port": {"type": "string"}, "replicas": {"type": "number"}}}
    new = {"type": "object", "properties": {"port": {"type": "integer"}, "replicas": {"type": "integer"}}}
    result = migrate_args({"port": "8080", "replicas": 3.0}, old, new)
    assert result.ok and result.args == {"port": 8080, "replicas": 3}
    assert result.cast == {"port": "string -> integer", "replicas": "number -> integer"}
    failed = migrate_args({"port": "eighty", "replicas": 3}, old, new)
    assert not failed.ok and "'port' is now integer" in failed.reason
    assert not migrate_args({"port": "80", "replicas": 2.5}, old, new).ok


def test_new_required_parameter_needs_a_default():
    with_default = {
        "type": "object",
        "properties": {**V1["properties"], "strategy": {"type": "string", "default": "rolling"}},
        "required": ["service", "env", "strategy"],
    }
    result = migrate_args({"service": "api", "env": "prod"}, V1, with_default)
    assert result.ok and result.args["strategy"] == "rolling" and result.defaulted == ["strategy"]
    without = {**with_default, "properties": {**V1["properties"], "strategy": {"type": "string"}}}
    failed = migrate_args({"service": "api", "env": "prod"}, V1, without)
    assert not failed.ok and failed.reason == "new required parameter 'strategy' has no default"


def test_enum_values_match_case_insensitively():
    new = {"type": "object", "properties": {"env": {"type": "string", "enum": ["PROD", "STAGING"]}}}
    assert migrate_args({"env": "prod"}, None, new).args == {"env": "PROD"}
    assert not migrate_args({"env": "qa"}, None, new).ok


def test_name_similarity():
    assert name_similarity("env", "environment") == 0.9
    assert name_similarity("jobId", "job_id") == 1.0
    assert name_similarity("api_key", "bearer_token") < 0.4


# ---- detection in the store ------------------------------------------------------------------


def _deploy_episode(memory: DeltaCore, episode: str, env: str, schema: dict, *, ok: bool = True, tenant: str = "default"):
    memory.ingest(
        [
            {"id": f"{episode}-task", "text": f"deploy api to {env}", "episode_id": episode, "tenant": tenant},
            {
                "id": f"{episode}-call",
                "kind": "tool_call",
                "tool_name": "deploy",
                "tool_args": {"service": "api", "env": env},
                "tool_schema": schema,
                "episode_id": episode,
                "tenant": tenant,
            },
        ]
    )
    memory.record_outcome(episode, 1.0 if ok else -1.0, tenant=tenant)


def _call_delta(memory: DeltaCore, event_id: str):
    [packet] = [p for p in memory.query("deploy", top_k=50, kinds="tool_call") if p.id == event_id]
    return packet, packet.deltas[0]


def test_a_call_under_a_changed_schema_demotes_and_migrates(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    _deploy_episode(memory, "e2", "staging", V1)
    _, before = _call_delta(memory, "e1-call")
    result = memory.ingest(
        [{"kind": "tool_call", "tool_name": "deploy", "tool_args": {"service": "web", "environment": "prod"},
          "tool_schema": V2_RENAMED, "episode_id": "e3"}]
    )  # fmt: skip
    [drift] = result.schema_drifts
    assert drift.tool == "deploy" and len(drift.affected) == 2 and drift.failed == []
    assert sorted(drift.migrated) == sorted(drift.affected) and drift.mapping == {"env": "environment"}
    packet, after = _call_delta(memory, "e1-call")
    assert after.utility == pytest.approx(before.utility * 0.8, rel=1e-3)
    assert "schema_drift" in after.conflict_flags and MemoryFlag.SCHEMA_DRIFT in packet.flags
    kinds = [event["kind"] for event in memory.system_events()]
    assert "SCHEMA_DRIFT" in kinds and "SCHEMA_MIGRATED" in kinds
    [logged] = memory.system_events("SCHEMA_DRIFT")
    assert logged["payload"]["code"] == "E04" and logged["payload"]["affected"] == 2
    # The decision now carries the migrated arguments, the original ones and its schema's status.
    [decision] = [d for d in memory.recall_decisions("deploy api to prod", tool="deploy") if d.event_id == "e1-call"]
    assert decision.args == {"service": "api", "environment": "prod"}
    assert decision.original_args == {"service": "api", "env": "prod"}
    assert decision.migrated and decision.schema_current is False and "schema_drift" in decision.flags
    # The original call is kept as it was.
    assert memory.get("e1-call").tool_args == {"service": "api", "env": "prod"}
    assert memory.review_queue() == []


def test_a_failed_migration_goes_to_the_review_queue(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    report = memory.observe_tools({"deploy": V2_UNMAPPABLE})
    [drift] = report.drifts
    assert drift.migrated == [] and len(drift.failed) == 1 and len(drift.review_items) == 1
    error = drift.error()
    assert isinstance(error, SchemaDrift) and error.code == "E04" and error.details["failed"] == drift.failed
    assert str(error).startswith("E04 SCHEMA_DRIFT: tool 'deploy' changed its schema")
    [item] = memory.review_queue()
    assert item.kind == "SCHEMA_DRIFT" and item.event_id == "e1-call"
    assert "'env' no longer exists" in item.reason
    assert item.payload["args"] == {"service": "api", "env": "prod"}
    _, delta = _call_delta(memory, "e1-call")
    assert {"schema_drift", "migration_failed"} <= set(delta.conflict_flags)
    [decision] = memory.recall_decisions("deploy api to prod")
    assert not decision.migrated and decision.args == {"service": "api", "env": "prod"}
    assert "migration_failed" in decision.flags and decision.schema_current is False
    # Re-offering the same schema changes nothing and queues nothing twice.
    assert memory.observe_tools({"deploy": V2_UNMAPPABLE}).drifts == []
    assert len(memory.review_queue()) == 1
    # A reviewer rejects it: it is never offered as a decision again.
    resolved = memory.resolve_review(item.id, "reject: the region is not derivable")
    assert resolved.resolution.startswith("reject")
    assert memory.recall_decisions("deploy api to prod") == []
    _, delta = _call_delta(memory, "e1-call")
    assert delta.utility == 0.0 and "rejected" in delta.conflict_flags


def test_accepting_a_failed_migration_clears_its_flag(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    memory.observe_tools({"deploy": V2_UNMAPPABLE})
    [item] = memory.review_queue()
    memory.resolve_review(item.id, "accept")
    _, delta = _call_delta(memory, "e1-call")
    assert "migration_failed" not in delta.conflict_flags and "schema_drift" in delta.conflict_flags


def test_observe_tools_registers_without_a_call(memory):
    first = memory.observe_tools([{"type": "function", "function": {"name": "deploy", "parameters": V1}}])
    assert first.tools == ["deploy"] and first.new_versions == ["deploy"] and not first.drifted
    assert memory.observe_tools({"deploy": V1}).new_versions == []  # same schema, any shape
    assert [s["schema"] for s in memory.tool_schemas("deploy")] == [V1]
    # Bad specs are reported by position; the good ones are still observed.
    mixed = memory.observe_tools([{"name": "notify", "input_schema": {"type": "object"}}, {"parameters": {}}, {"name": "x"}])
    assert mixed.tools == ["notify"]
    assert [(r.index, r.field) for r in mixed.rejected] == [(1, "name"), (2, "parameters")]
    with pytest.raises(InvalidQueryError, match="tools"):
        memory.observe_tools("deploy")


def test_drift_marks_only_that_tool_in_that_tenant(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    _deploy_episode(memory, "t1", "prod", V1, tenant="other")
    memory.add("notify", kind="tool_call", tool_name="notify", tool_args={"channel": "ops"},
               tool_schema={"type": "object", "properties": {"channel": {"type": "string"}}}, episode_id="e1")  # fmt: skip
    [drift] = memory.observe_tools({"deploy": V2_RENAMED}).drifts
    assert drift.affected == [_call_delta(memory, "e1-call")[1].id]
    notify = [p for p in memory.query("notify", top_k=20) if p.tool_name == "notify"][0]
    assert "schema_drift" not in notify.deltas[0].conflict_flags
    [other] = memory.recall_decisions("deploy api to prod", tenant="other")
    assert other.schema_current is True and not other.migrated and other.flags == []


def test_migrations_chain_across_versions(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    memory.observe_tools({"deploy": V2_RENAMED})
    v3 = {
        "type": "object",
        "properties": {**V2_RENAMED["properties"], "dry_run": {"type": "boolean", "default": False}},
        "required": ["service", "environment", "dry_run"],
    }
    [drift] = memory.observe_tools({"deploy": v3}).drifts
    assert drift.failed == [] and len(drift.migrated) == 1
    [decision] = memory.recall_decisions("deploy api to prod")
    assert decision.args == {"service": "api", "environment": "prod", "dry_run": False}


def test_drift_invalidates_cached_results(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    hot = memory._hot  # the HOT tier: whole-tenant vector cache keyed on the tenant's change counter
    memory.query("deploy api", top_k=5)
    memory.query("deploy api", top_k=5)
    hits = hot.hits
    memory.query("deploy api", top_k=5)
    assert hot.hits == hits + 1  # served from the cache while nothing changed
    before = _call_delta(memory, "e1-call")[1].utility
    with memory._sql.reader() as conn:
        signature = memory._sql.tenant_signature(conn, "default")
    memory.observe_tools({"deploy": V2_RENAMED})
    with memory._sql.reader() as conn:
        assert memory._sql.tenant_signature(conn, "default") != signature
    misses = hot.misses
    packet, delta = _call_delta(memory, "e1-call")
    assert hot.misses == misses + 1  # the cache built before the drift was not used
    assert delta.utility < before and MemoryFlag.SCHEMA_DRIFT in packet.flags


def test_a_cosmetic_schema_change_is_not_a_drift(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    retitled = {**V1, "title": "Deploy", "properties": {
        "service": {"type": "string", "title": "Service", "description": "which service"},
        "env": {"type": "string", "title": "Env"},
    }}  # fmt: skip
    report = memory.observe_tools({"deploy": retitled})
    assert report.new_versions == ["deploy"] and not report.drifted
    assert memory.system_events("SCHEMA_DRIFT") == []
    [decision] = memory.recall_decisions("deploy api to prod")
    assert decision.schema_current is True and decision.flags == []
    # A changed interface after it still drifts, and migrates from either rendering.
    [drift] = memory.observe_tools({"deploy": V2_RENAMED}).drifts
    assert len(drift.migrated) == 1


def test_a_reviewer_can_migrate_the_arguments_by_hand(memory):
    _deploy_episode(memory, "e1", "prod", V1)
    memory.observe_tools({"deploy": V2_UNMAPPABLE})
    [item] = memory.review_queue()
    with pytest.raises(InvalidQueryError, match="requires 'region'"):
        memory.resolve_review(item.id, "accept", args={"service": "api"})
    with pytest.raises(InvalidQueryError, match="args"):
        memory.resolve_review(item.id, "reject", args={"service": "api", "region": 3})
    assert memory.review_queue() == [item]  # a refused resolution leaves the item open
    memory.resolve_review(item.id, "accept: prod is region 3", args={"service": "api", "region": 3})
    [decision] = memory.recall_decisions("deploy api to prod")
    assert decision.migrated and decision.args == {"service": "api", "region": 3}
    assert decision.original_args == {"service": "api", "env": "prod"} and "migration_failed" not in decision.flags
    _, delta = _call_delta(memory, "e1-call")
    assert "migration_failed" not in delta.conflict_flags
