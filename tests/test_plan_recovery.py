"""How fast plan recall recovers after a tool's schema or the world changes (issue 17): a
parameter renamed to a name nothing links to the old one, a call whose failed result the store
does not show, a plan that stops working. Real SQLite + embedded Chroma (fake embedder)."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from deltacore import DeltaCore
from deltacore.testing import FakeEmbedder

_ids = itertools.count()
_clock = itertools.count()
_START = time.time() - 86400.0


def _ts() -> str:
    return datetime.fromtimestamp(_START + next(_clock), UTC).isoformat()


def grant_tool(who: str) -> dict[str, Any]:
    return {
        "name": "grant_access",
        "description": "Grant a principal a role on a dataset.",
        "parameters": {
            "type": "object",
            "properties": {
                who: {"type": "string"},
                "role": {"type": "string", "enum": ["reader", "writer"]},
                "dataset": {"type": "string"},
            },
            "required": [who, "role", "dataset"],
        },
    }


V1, V2 = [grant_tool("principal")], [grant_tool("member")]


def grant_task(principal: str, dataset: str, role: str = "reader") -> dict[str, Any]:
    return {
        "text": f"grant {principal} {role} access to dataset {dataset}",
        "kind": "grant",
        "fields": {"principal": principal, "role": role, "dataset": dataset},
        "entity": dataset,
    }


def run_episode(
    store: DeltaCore,
    task: dict[str, Any],
    calls: list[tuple[str, dict[str, Any], str | None]],
    reward: float,
    tools: list[dict[str, Any]],
) -> None:
    """One episode as an adapter records it: the task, each call (with the schema on offer)
    and its result (``"error"``: a failed result; ``None``: no result recorded)."""
    episode = f"rec{next(_ids)}"
    schemas = {tool["name"]: tool["parameters"] for tool in tools}
    events: list[dict[str, Any]] = [
        {"id": f"{episode}-task", "kind": "message", "role": "user", "text": task["text"],
         "episode_id": episode, "meta": {"task": {k: v for k, v in task.items() if k != "text"}},
         "ts": _ts()},
    ]  # fmt: skip
    for index, (tool, args, result) in enumerate(calls):
        call_id = f"{episode}-c{index}"
        events.append({"id": call_id, "kind": "tool_call", "tool_name": tool, "tool_args": args,
                       "tool_schema": schemas.get(tool), "text": f"called {tool}",
                       "episode_id": episode, "ts": _ts()})  # fmt: skip
        if result is None:
            continue
        meta = (
            {"error": {"type": "ToolError", "message": "refused"}}
            if result == "error"
            else {}
        )
        events.append({"id": f"{episode}-r{index}", "kind": "tool_result", "tool_name": tool,
                       "text": "failed" if meta else "done", "parent_ids": [call_id],
                       "episode_id": episode, "meta": meta, "ts": _ts()})  # fmt: skip
    stored = store.ingest(events)
    assert not stored.rejected, stored.rejected
    store.record_outcome(episode, reward)


def grant(
    who: str, principal: str, dataset: str, role: str = "reader"
) -> dict[str, Any]:
    return {who: principal, "role": role, "dataset": dataset}


@pytest.fixture
def store(tmp_path):
    memory = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    memory.observe_tools(V1)
    yield memory
    memory.close()


def learn_grants_under_v1(store: DeltaCore) -> None:
    for principal, dataset in (("alice", "sales"), ("bob", "hr"), ("carol", "web")):
        for _ in range(2):
            call = ("grant_access", grant("principal", principal, dataset), "ok")
            run_episode(store, grant_task(principal, dataset), [call], 1.0, V1)


def grant_tool_moved(who: str) -> dict[str, Any]:
    """``grant_tool`` with the principal's parameter last: a rename the shape cannot tell."""
    tool = grant_tool(who)
    properties = tool["parameters"]["properties"]
    tool["parameters"]["properties"] = {k: properties[k] for k in ("role", "dataset", who)}
    return tool


def test_a_call_the_renamed_tool_would_reject_is_not_advised(store):
    learn_grants_under_v1(store)
    before = store.recall_plans(grant_task("dave", "sales"), tools=V1)[0]
    assert before.probability >= 0.5

    moved = [grant_tool_moved("member")]
    store.observe_tools(moved)
    plans = store.recall_plans(grant_task("dave", "sales"), tools=moved)
    old = next(p for p in plans if p.schema_id == before.schema_id)
    # principal -> member at another position: neither the names nor the shape tie them.
    assert "principal" in old.steps[0].args
    assert {"drifted", "unrunnable"} <= old.flags
    assert old.probability < 0.5 and old.probability == pytest.approx(
        old.alpha / (old.alpha + old.beta)
    )


def test_a_lone_swapped_parameter_is_guessed_as_a_rename(store):
    learn_grants_under_v1(store)
    before = store.recall_plans(grant_task("dave", "sales"), tools=V1)[0]

    store.observe_tools(V2)
    best = store.recall_plans(grant_task("dave", "sales"), tools=V2)[0]
    # principal gone, member new, required, no default, same position and type: the only
    # reading of the change is a rename; the plan is advised under it, flagged and discounted.
    assert best.steps[0].args == {"member": "dave", "role": "reader", "dataset": "sales"}
    assert {"drifted", "guessed"} <= best.flags and "unrunnable" not in best.flags
    assert best.migrations[0].renamed == {"principal": "member"}
    assert best.migrations[0].guessed == ("principal",)
    assert 0.5 <= best.probability < before.probability


def test_a_guess_that_fails_stops_being_advised(store):
    learn_grants_under_v1(store)
    store.observe_tools(V2)
    # The guessed call is refused each time (member was not the principal after all).
    for principal, dataset in (("erin", "web"), ("frank", "hr"), ("gina", "sales")):
        call = ("grant_access", grant("member", principal, dataset), "error")
        run_episode(store, grant_task(principal, dataset), [call], -1.0, V2)

    plans = store.recall_plans(grant_task("dave", "sales"), tools=V2, top_k=5)
    guessed = [p for p in plans if p.steps[0].args.get("member") == "dave"]
    assert guessed and all(p.probability < 0.5 for p in guessed)


def test_no_guess_when_the_shape_is_ambiguous(store):
    learn_grants_under_v1(store)
    two_new = grant_tool("member")
    two_new["parameters"]["properties"]["team"] = {"type": "string"}
    two_new["parameters"]["required"].append("team")
    with_default = grant_tool("member")
    with_default["parameters"]["properties"]["member"]["default"] = "nobody"
    for tools in ([two_new], [with_default], [grant_tool_moved("member")]):
        store.observe_tools(tools)
        plans = store.recall_plans(grant_task("dave", "sales"), tools=tools, top_k=5)
        assert not any(m.guessed for p in plans for m in p.migrations)
        assert all("guessed" not in p.flags for p in plans)


def test_one_success_under_the_new_name_maps_the_learned_plan_to_it(store):
    learn_grants_under_v1(store)
    store.observe_tools(V2)
    # One episode after the rename works with the new parameter carrying the task's principal.
    run_episode(store, grant_task("erin", "web"),
                [("grant_access", grant("member", "erin", "web"), "ok")], 1.0, V2)  # fmt: skip

    best = store.recall_plans(grant_task("dave", "sales"), tools=V2)[0]
    assert best.steps[0].args == {
        "member": "dave",
        "role": "reader",
        "dataset": "sales",
    }
    assert best.steps[0].template["member"] == "{principal}"
    assert best.probability >= 0.5 and not {"unrunnable", "guessed"} & best.flags
    # The six runs learned before the rename are this plan's evidence too, not another plan's.
    assert best.evidence.successes == 7 and best.evidence.failures == 0


def test_a_success_with_another_value_in_the_new_parameter_is_no_rename(store):
    learn_grants_under_v1(store)
    store.observe_tools(V2)
    # "member" got the dataset's name here, not the principal: nothing says principal became it.
    run_episode(store, grant_task("erin", "web"),
                [("grant_access", grant("member", "web", "web"), "ok")], 1.0, V2)  # fmt: skip

    plans = store.recall_plans(grant_task("dave", "sales"), tools=V2, top_k=5)
    assert not any(
        m.renamed.get("principal") == "member" for p in plans for m in p.migrations
    )
    assert all(p.probability < 0.5 for p in plans if "principal" in p.steps[0].args)


def test_a_retried_call_with_no_visible_result_counts_against_its_plan(store):
    for principal in ("alice", "bob", "carol"):
        call = ("grant_access", grant("principal", principal, "sales"), "ok")
        run_episode(store, grant_task(principal, "sales"), [call], 1.0, V1)
    plan = store.recall_plans(grant_task("dave", "sales"), tools=V1)[0]
    assert plan.probability >= 0.5

    # The rule changed: the grant is refused; the failed results are not in the store (held in
    # quarantine, or never recorded), and the agent retried each call once.
    for principal in ("erin", "frank", "gina"):
        call = ("grant_access", grant("principal", principal, "sales"), None)
        run_episode(store, grant_task(principal, "sales"), [call, call], -1.0, V1)

    after = next(
        p
        for p in store.recall_plans(grant_task("dave", "sales"), tools=V1, top_k=5)
        if p.schema_id == plan.schema_id
    )
    assert after.evidence.failures == 3
    assert after.probability < 0.5 and "failed" in after.flags


def test_a_renamed_tool_is_not_advised_until_a_success_maps_the_plan_to_it(store):
    learn_grants_under_v1(store)
    renamed = [{**V1[0], "name": "share_dataset"}]
    store.observe_tools(renamed)
    # grant_access is no longer on offer: calling it would fail.
    (old,) = store.recall_plans(grant_task("dave", "sales"), tools=renamed)
    assert old.steps[0].tool == "grant_access"
    assert "unrunnable" in old.flags and old.probability < 0.5

    args = grant("principal", "erin", "web")
    run_episode(
        store, grant_task("erin", "web"), [("share_dataset", args, "ok")], 1.0, renamed
    )
    best = store.recall_plans(grant_task("dave", "sales"), tools=renamed)[0]
    assert best.steps[0].tool == "share_dataset"
    assert best.steps[0].args == grant("principal", "dave", "sales")
    assert best.probability >= 0.5 and "unrunnable" not in best.flags
    assert best.evidence.successes == 7


def test_a_new_tool_with_the_same_parameters_is_not_taken_for_a_renamed_one(store):
    learn_grants_under_v1(store)
    revoke = [{**V1[0], "name": "revoke_access"}]
    store.observe_tools(revoke)
    # revoke_access takes the same arguments, but its one success used another constant role.
    args = grant("principal", "erin", "web", role="writer")
    run_episode(
        store, grant_task("erin", "web"), [("revoke_access", args, "ok")], 1.0, revoke
    )
    plans = store.recall_plans(grant_task("dave", "sales"), tools=revoke, top_k=5)
    assert not any(m.renamed_from for p in plans for m in p.migrations)
