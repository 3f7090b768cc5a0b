"""What plan recall advises after the world changes for every entity at once (a new hidden rule),
against a rule that differs per entity, and for a plan that was tried and never worked (issue 17,
the unseen world's late losses). Real SQLite + embedded Chroma (fake embedder)."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from deltacore import DeltaCore
from deltacore.learning import evidence
from deltacore.testing import FakeEmbedder

_ids = itertools.count()
_clock = itertools.count()
_START = time.time() - 86400.0

CLOSE = {
    "name": "close_site",
    "description": "Close a site for the night.",
    "parameters": {
        "type": "object",
        "properties": {
            "site": {"type": "string"},
            "mode": {"type": "string", "enum": ["locked", "staffed"]},
        },
        "required": ["site", "mode"],
    },
}
NOTE = {
    "name": "post_note",
    "description": "Post a note on a site's board.",
    "parameters": {
        "type": "object",
        "properties": {"site": {"type": "string"}},
        "required": ["site"],
    },
}
TOOLS = [CLOSE, NOTE]


def _ts() -> str:
    return datetime.fromtimestamp(_START + next(_clock), UTC).isoformat()


def close_task(site: str) -> dict[str, Any]:
    return {"text": f"close site {site} for the night", "kind": "close",
            "fields": {"site": site}, "entity": site}  # fmt: skip


def run_episode(store: DeltaCore, site: str, calls: list[tuple[str, dict[str, Any]]], ok: bool) -> None:
    """One episode as an adapter records it; the last call fails when the episode does."""
    episode = f"brk{next(_ids)}"
    task = close_task(site)
    events: list[dict[str, Any]] = [
        {"id": f"{episode}-task", "kind": "message", "role": "user", "text": task["text"],
         "episode_id": episode, "meta": {"task": {k: v for k, v in task.items() if k != "text"}},
         "ts": _ts()},
    ]  # fmt: skip
    for index, (tool, args) in enumerate(calls):
        call_id = f"{episode}-c{index}"
        failed = not ok and index == len(calls) - 1
        events.append({"id": call_id, "kind": "tool_call", "tool_name": tool, "tool_args": args,
                       "tool_schema": next(t["parameters"] for t in TOOLS if t["name"] == tool),
                       "text": f"called {tool}", "episode_id": episode, "ts": _ts()})  # fmt: skip
        events.append({"id": f"{episode}-r{index}", "kind": "tool_result", "tool_name": tool,
                       "text": "failed" if failed else "done", "parent_ids": [call_id],
                       "episode_id": episode, "ts": _ts(),
                       "meta": {"error": {"type": "ToolError", "message": "refused"}} if failed else {}})  # fmt: skip
    stored = store.ingest(events)
    assert not stored.rejected, stored.rejected
    store.record_outcome(episode, 1.0 if ok else -1.0)


def close(site: str, mode: str = "locked") -> list[tuple[str, dict[str, Any]]]:
    return [("close_site", {"site": site, "mode": mode})]


def plan_closing(store: DeltaCore, site: str, mode: str = "locked", top_k: int = 5):
    plans = store.recall_plans(close_task(site), tools=TOOLS, top_k=top_k)
    return next(
        p for p in plans
        if [s.tool for s in p.steps] == ["close_site"] and p.steps[0].args.get("mode") == mode
    )  # fmt: skip


@pytest.fixture
def store(tmp_path):
    memory = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    memory.observe_tools(TOOLS)
    yield memory
    memory.close()


def learn_closing(store: DeltaCore, sites: tuple[str, ...] = ("north", "south", "east", "west")) -> None:
    for _ in range(3):
        for site in sites:
            run_episode(store, site, close(site), True)


def test_a_plan_that_broke_for_two_sites_is_not_advised_to_a_third(store):
    learn_closing(store)
    assert plan_closing(store, "east").probability >= 0.9
    # A new hidden rule: the plan now fails at north and south, which it had always worked for.
    run_episode(store, "north", close("north"), False)
    run_episode(store, "south", close("south"), False)

    # east has only ever succeeded with it; its own three successes no longer carry the plan.
    east = plan_closing(store, "east")
    assert east.probability < 0.5 and "failed" in east.flags
    assert east.evidence.successes == 12 and east.evidence.failures == 2


def test_one_failing_site_is_not_a_break(store):
    learn_closing(store)
    run_episode(store, "north", close("north"), False)
    # One site's failure says something about that site; the others keep their plan.
    assert plan_closing(store, "east").probability >= 0.5
    assert plan_closing(store, "north").probability < plan_closing(store, "east").probability


def test_a_success_after_the_break_ends_it(store):
    learn_closing(store)
    run_episode(store, "north", close("north"), False)
    run_episode(store, "south", close("south"), False)
    run_episode(store, "west", close("west"), True)  # it works again: the old evidence counts

    assert plan_closing(store, "east").probability >= 0.5


def test_sites_the_plan_never_worked_for_do_not_break_it_for_the_others(store):
    # A rule that differs per site: "locked" works for north and south only.
    learn_closing(store, ("north", "south"))
    for site in ("east", "west", "ridge"):
        run_episode(store, site, close(site), False)

    assert plan_closing(store, "north").probability >= 0.5


def test_a_plan_that_only_ever_failed_is_not_advised_at_the_base_rate(store, monkeypatch):
    # Most episodes succeed (a plan that works is being followed), so the base rate is high;
    # one exploration with an extra note failed at another site.
    learn_closing(store)
    run_episode(store, "ridge", [("post_note", {"site": "ridge"}), *close("ridge")], False)

    def noted(plans):
        return next(p for p in plans if [s.tool for s in p.steps] == ["post_note", "close_site"])

    plan = noted(store.recall_plans(close_task("harbour"), tools=TOOLS, top_k=10))
    assert plan.evidence.successes == 0 and plan.evidence.failures == 1
    assert plan.probability < 0.5 and "failed" in plan.flags
    # Without the cut the one failure elsewhere would leave it above even odds.
    monkeypatch.setattr(evidence, "NEVER_WORKED_FACTOR", 1.0)
    assert noted(store.recall_plans(close_task("harbour"), tools=TOOLS, top_k=10)).probability >= 0.5
