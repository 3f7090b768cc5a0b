"""The agent: ONE fixed, seeded policy shared by every system; only the memory differs.

Per episode the agent asks its memory for advice (:class:`Advice`: ordered calls and, for
DeltaCore, the engine's success probability and per-step credit). It follows the advice when
the memory offers it (DeltaCore: when ``Plan.probability >= FOLLOW_AT``); otherwise it explores
with a fixed policy: each non-goal tool on offer is called with probability ``EXPLORE_INCLUDE``
(in random order), then the tool that accomplishes the task kind (what an LLM reading the task
would pick), then the world's read-only status check when it has one. Arguments are filled
from the tool's *current* schema: a parameter named like a task field gets that field's value,
an enum a random allowed value, any other string a random one of the task's own values.

Every call is retried once when it raises (whatever the error: the policy does not judge
errors). The policy holds no learning: no mapping of remembered calls onto the task, no
evidence counting, no ranking.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from _selflearn.world import Task, World

FOLLOW_AT = 0.5
"""The agent follows DeltaCore's best plan when its probability is at least this."""
EXPLORE_INCLUDE = 0.5
"""Chance an exploring agent calls a given non-goal tool."""
STATUS_TOOL = "check_status"
"""A read-only status check the exploring agent runs after acting, when the world has it."""


@dataclass(frozen=True)
class Step:
    tool: str
    args: dict[str, Any]


@dataclass
class Advice:
    steps: list[Step]
    probability: float | None = None
    credit: list[float] | None = None
    """Per step, how much it mattered (DeltaCore's ``PlanStep.credit``)."""


@dataclass
class Call:
    step_index: int
    call_id: str
    step: Step
    output: str
    error: BaseException | None


@dataclass
class Episode:
    episode_id: str
    task: Task
    steps: list[Step]
    followed: bool
    advice: Advice | None
    calls: list[Call] = field(default_factory=list)
    success: bool = False
    needed_steps: set[int] = field(default_factory=set)
    """Indices of the plan's steps the world's rules required (ground truth)."""


def explore(
    task: Task, specs: list[dict[str, Any]], goal: str, rng: random.Random
) -> list[Step]:
    names = [spec["name"] for spec in specs]
    by_name = {spec["name"]: spec for spec in specs}
    before = [
        n
        for n in names
        if n not in (goal, STATUS_TOOL) and rng.random() < EXPLORE_INCLUDE
    ]
    rng.shuffle(before)
    plan = [Step(n, fill_args(by_name[n], task, rng)) for n in before]
    if goal in by_name:
        plan.append(Step(goal, fill_args(by_name[goal], task, rng)))
    if STATUS_TOOL in by_name:
        plan.append(Step(STATUS_TOOL, fill_args(by_name[STATUS_TOOL], task, rng)))
    return plan


def fill_args(spec: dict[str, Any], task: Task, rng: random.Random) -> dict[str, Any]:
    params = spec["parameters"]
    required = set(params.get("required", ()))
    values = [v for v in task.fields.values() if isinstance(v, str)]
    args: dict[str, Any] = {}
    for name, prop in params.get("properties", {}).items():
        if name not in required:
            continue  # an optional parameter keeps its default
        if name in task.fields:
            args[name] = task.fields[name]
        elif "enum" in prop:
            args[name] = rng.choice(prop["enum"])
        elif prop.get("type") == "integer":
            args[name] = rng.randint(1, 48)
        else:
            args[name] = rng.choice(values)
    return args


def run_episode(
    world: World, task: Task, system: Any, rng: random.Random, ids: random.Random
) -> Episode:
    """One episode of the fixed policy with ``system`` as its memory."""
    specs = world.tool_specs()
    episode_id = str(uuid.UUID(int=ids.getrandbits(128), version=4))
    system.start(task, specs, episode_id)
    advice = system.advise(task, specs)
    # The exploration draw happens every episode so that every system sees the same policy
    # stream whatever its advice.
    explored = explore(task, specs, world.GOALS[task.kind], rng)
    followed = advice is not None and bool(advice.steps)
    steps = list(advice.steps) if followed else explored
    episode = Episode(episode_id, task, steps, followed, advice if followed else None)
    for index, step in enumerate(steps):
        for attempt in (0, 1):
            call_id = f"{episode_id[:8]}-s{index:02d}a{attempt}"
            needed_before = len(world.state.needed)
            try:
                output, error = world.call(step.tool, step.args, call_id), None
            except Exception as exc:  # noqa: BLE001 - a tool error is an outcome the agent sees
                output, error = f"{type(exc).__name__}: {exc}", exc
            if len(world.state.needed) > needed_before:
                episode.needed_steps.add(index)
            call = Call(index, call_id, step, output, error)
            episode.calls.append(call)
            system.step(episode, call)
            if error is None:
                break
    episode.success = world.success()
    system.finish(episode)
    return episode
