"""Look-alike subjects (E06) on each backend: "Ana" and "Anna", "api-staging" and
"api-production" never share a fact, and each pair is reported once and flagged on the memories."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore.belief.aliasing import alias_reason
from deltacore.model import MemoryFlag

NOW = datetime.now(timezone.utc)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def health(memory, service: str, status: str, minutes_ago: float = 1.0) -> str:
    return memory.add(
        f'{{"service": "{service}", "status": "{status}"}}', kind="tool_result", tool_name="health", ts=days_ago(minutes_ago / 1440)
    )


def alias_events(memory) -> list[dict]:
    return [e["payload"] for e in memory.system_events("ALIAS_AMBIGUITY")]


def test_ana_and_anna_never_share_a_fact_and_are_reported_once(memory):
    memory.add("Ana lives in Paris", ts=days_ago(20))
    memory.add("Anna lives in Berlin", ts=days_ago(10))
    memory.add("Anna moved to Rome", ts=days_ago(2))  # Anna's move retires nothing of Ana's
    memory.add("Ana works at Acme", ts=days_ago(1))

    assert [f.value for f in memory.facts("Ana", "home city")] == ["Paris"]
    assert [f.value for f in memory.facts("Anna", "home city")] == ["Rome"]
    assert [f.value for f in memory.history("Ana", "home city")] == ["Paris"]
    assert alias_events(memory) == [
        {"code": "E06", "subjects": ["ana", "anna"], "reason": "near-identical name", "action": "kept apart"}
    ]
    assert memory.query_belief("ana").ambiguous_with == ("anna",)
    assert memory.query_belief("anna").value("home city") == "Rome"

    packets = memory.query("where does Ana live?", top_k=4)
    ana = next(p for p in packets if p.text == "Ana lives in Paris")
    assert MemoryFlag.AMBIGUOUS in ana.flags and MemoryFlag.SUPERSEDED not in ana.flags
    assert "'anna'" in ana.belief_hint


def test_staging_and_production_slots_stay_apart(memory):
    health(memory, "api-production", "up")
    health(memory, "api-staging", "down", minutes_ago=30)
    health(memory, "api-staging", "up")  # staging recovers; production's slot is not touched

    assert memory.query_belief("api-production").value("status") == "up"
    assert [f.value for f in memory.history("api-production", "status")] == ["up"]
    assert [f.value for f in memory.history("api-staging", "status")] == ["down", "up"]
    [event] = alias_events(memory)
    assert event["subjects"] == ["api-production", "api-staging"] and event["reason"] == "disambiguation key"
    assert memory.query_belief("api-staging").ambiguous_with == ("api-production",)


def test_release_rings_are_deployments_of_their_own_and_a_stable_status_is_a_status(memory):
    def ring(ring_name: str, tag: str, minutes_ago: float) -> None:
        memory.add(f'{{"app": "thumbnailer", "ring": "{ring_name}", "observed": {{"tag": "{tag}"}}}}',
                   kind="tool_result", tool_name="fleet", ts=days_ago(minutes_ago / 1440))

    ring("stable", "2025.4", 30)
    ring("canary", "2025.7", 20)
    ring("stable", "2025.5", 10)  # the stable ring moves on; the canary's tag is not touched
    health(memory, "billing", "stable")

    assert memory.query_belief("thumbnailer stable").value("tag") == "2025.5"
    assert memory.query_belief("thumbnailer canary").value("tag") == "2025.7"
    assert [f.value for f in memory.history("thumbnailer stable", "tag")] == ["2025.4", "2025.5"]
    assert memory.query_belief("billing").value("status") == "stable"


def test_a_batch_that_names_both_reports_the_pair_once_and_a_rerun_adds_nothing(memory):
    result = memory.ingest(
        [
            {"text": "Anna lives in Oslo", "ts": days_ago(3)},
            {"text": "Ana lives in Lima", "ts": days_ago(3)},
            {"text": "Anna's employer is Globex", "ts": days_ago(2)},
        ]
    )
    assert len(alias_events(memory)) == 1
    memory._beliefs.after_commit(result.stored)  # as after a crash between the write and the update
    assert len(alias_events(memory)) == 1


def test_different_names_are_not_flagged(memory):
    memory.add("Alice lives in Paris", ts=days_ago(5))
    memory.add("Bob lives in Paris", ts=days_ago(5))
    health(memory, "node-1", "up")
    health(memory, "node-2", "up")

    assert alias_events(memory) == []
    assert memory.query_belief("alice").ambiguous_with == ()
    packets = memory.query("where does Bob live?", top_k=3)
    assert all(MemoryFlag.AMBIGUOUS not in p.flags for p in packets)


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("ana", "anna", "near-identical name"),
        ("jon", "john", "near-identical name"),
        ("kristin", "kirstin", "near-identical name"),
        ("api-staging", "api-production", "disambiguation key"),
        ("api", "api staging", "disambiguation key"),
        ("db-primary", "db-replica", "disambiguation key"),
        ("bob", "rob", None),
        ("node1", "node2", None),
        ("user", "users", None),
        ("staging", "production", None),
        ("alice", "alicia", None),
    ],
)
def test_which_names_are_look_alikes(a, b, reason):
    assert alias_reason(a, b) == reason
    assert alias_reason(b, a) == reason
