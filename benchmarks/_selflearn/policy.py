"""The agent: one deterministic, seeded policy shared by every memory system.

Before each task the agent asks its memory for advice (:class:`Advice`: remembered tool calls,
the task each was made for, how similar that task is, and what the memory says came of the
call). Each remembered call is adapted to the current task (the remembered task's service /
environment / job replaced by the current ones, as an agent copying a past call would) and the
evidence per call pattern is summed, weighted by similarity. The agent then reuses, per tool, the
pattern with positive evidence; a terminal call (``deploy`` / ``restart_job``) it cannot reuse
is explored with random allowed arguments, avoiding patterns with negative evidence. Each other
tool is tried with probability ``EXPLORE_INCLUDE`` while exploring, and with a probability that
shrinks as the evidence for a reused terminal call grows (so a plan that stopped working gets
varied). Only the memory differs between systems.

The plan is then executed through LangChain's tool interface (``BaseTool.invoke`` with a
``ToolCall``), inside one ``@chain`` run, so that LangChain's callbacks — and DeltaCore's
callback handler, when attached — see every call, its arguments, result or error.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig, chain

from _selflearn.world import ARG_CHOICES, TERMINAL, Task, World

SIMILARITY_SCALE = 0.05
"""Evidence weight ``exp((similarity − 1) / scale)``: a memory of the very same task counts
about 20× one whose trigger is 0.15 less similar."""

EXPLORE_INCLUDE = 0.5
"""Chance that an exploring agent calls a given non-terminal tool (needed or not)."""


@dataclass(frozen=True)
class Step:
    tool: str
    args: dict[str, Any]

    def key(self) -> tuple[str, str]:
        return self.tool, json.dumps(self.args, sort_keys=True)


@dataclass(frozen=True)
class Plan:
    """Non-terminal steps in order, then the terminal call."""

    steps: tuple[Step, ...]

    def key(self) -> tuple[tuple[str, str], ...]:
        *before, terminal = self.steps
        return (*sorted({s.key() for s in before}), terminal.key())


@dataclass(frozen=True)
class Advice:
    """One remembered tool call (or call pattern) and what the memory says came of it."""

    task: Task
    """The task it was done for (read back from the remembered trigger)."""
    step: Step
    score: float
    """What the memory says came of it, in [-1, 1]: > 0 worked, < 0 failed."""
    similarity: float
    """How similar the remembered task is to the current one (cosine)."""
    confidence: float = 1.0
    schema_ok: bool | None = None
    """False when the memory knows these arguments no longer fit the tool's current schema."""
    evidence_id: str | None = None
    """The memory id behind it (recorded as retrieved when the agent acts on it)."""


@dataclass
class Choice:
    plan: Plan
    reused: bool
    """The terminal call was copied from memory (not explored)."""
    evidence: list[Advice] = field(default_factory=list)


def adapt(advice: Advice, task: Task) -> Step | None:
    """The remembered call rewritten for ``task`` (the remembered task's service / environment /
    job replaced by the current ones), or None when it belongs to another kind of task."""
    if advice.task.kind != task.kind:
        return None
    old, new = advice.task.entities(), task.entities()
    swap = {value: new[name] for name, value in old.items() if name in new}
    args = {name: swap.get(value, value) if isinstance(value, str) else value for name, value in advice.step.args.items()}
    return Step(advice.step.tool, args)


def weigh(advice: Sequence[Advice], task: Task) -> dict[tuple, tuple[Step, float, list[Advice]]]:
    """Each adapted call pattern with its evidence: Σ weight·confidence·score over the advice
    proposing it, weight ``exp((similarity − 1) / SIMILARITY_SCALE)``."""
    patterns: dict[tuple, tuple[Step, float, list[Advice]]] = {}
    for item in advice:
        if item.schema_ok is False:
            continue  # the memory itself says these arguments no longer fit the tool
        step = adapt(item, task)
        if step is None:
            continue
        weight = math.exp((min(item.similarity, 1.0) - 1.0) / SIMILARITY_SCALE)
        key = step.key()
        _, total, evidence = patterns.get(key, (step, 0.0, []))
        patterns[key] = (step, total + weight * item.confidence * item.score, [*evidence, item])
    return patterns


def choose(task: Task, advice: Sequence[Advice], tools: dict[str, Any], rng: random.Random) -> Choice:
    """The plan for ``task``: per tool, the remembered call pattern with the most evidence of
    success; exploration where memory has nothing good to say."""
    patterns = weigh(advice, task)
    terminal_name = TERMINAL[task.kind]
    best: dict[str, tuple[Step, float, list[Advice]]] = {}
    failed: set[tuple] = set()
    for key, (step, total, evidence) in patterns.items():
        if step.tool not in tools:
            continue
        if total <= 0:
            failed.add(key)
        elif step.tool not in best or total > best[step.tool][1]:
            best[step.tool] = (step, total, evidence)
    reused = terminal_name in best
    # How much to try other tools besides the remembered ones: fully while exploring, less the
    # stronger the evidence for the reused terminal call (weak or recently contradicted evidence
    # leaves room to discover a step that became necessary).
    try_others = EXPLORE_INCLUDE
    if reused:
        terminal = best[terminal_name][0]
        try_others *= 1.0 - min(1.0, best[terminal_name][1])
    else:  # explore the terminal call, avoiding argument patterns memory says failed
        terminal = Step(terminal_name, fill_args(tools[terminal_name], task, rng))
        for _ in range(20):
            if terminal.key() not in failed:
                break
            terminal = Step(terminal_name, fill_args(tools[terminal_name], task, rng))
    steps: list[Step] = []
    for name in tools:
        if name in TERMINAL.values():
            continue
        if name in best:
            steps.append(best[name][0])  # it worked for tasks like this one: do it again
        elif rng.random() < try_others:
            # A step of a failed episode is not known to be at fault (the terminal call may have
            # been), so negative evidence does not stop the agent from trying it again.
            steps.append(Step(name, fill_args(tools[name], task, rng)))
    rng.shuffle(steps)
    evidence = [item for step in [*steps, terminal] for item in patterns.get(step.key(), (None, 0, []))[2]]
    return Choice(Plan((*steps, terminal)), reused, evidence)


def fill_args(tool: Any, task: Task, rng: random.Random) -> dict[str, Any]:
    """Arguments from the tool's *current* schema: the task's own values where a parameter names
    them, a random allowed value otherwise (what an agent reading the schema would do)."""
    entities = task.entities()
    args: dict[str, Any] = {}
    for name in tool.args_schema.model_fields:
        canonical = "env" if name in ("env", "environment") else name
        if canonical in entities:
            args[name] = entities[canonical]
        elif canonical == "env":
            args[name] = rng.choice(["staging", "production"])
        elif name in ARG_CHOICES:
            args[name] = rng.choice(ARG_CHOICES[name])
        else:
            args[name] = task.service
    return args


@dataclass
class Executed:
    """What happened in one episode, from the agent's and the world's side."""

    run_id: str
    task: Task
    plan: Plan
    reused: bool
    success: bool
    calls: list[tuple[str, Step, str, bool]]
    """(tool_call_id, step, output text, errored) in order."""
    needed_calls: list[str]


class TaskFailed(RuntimeError):
    """The terminal call did not succeed: the run ends in error, as an agent run would."""


def execute(world: World, task: Task, plan: Plan, run_id: str, callbacks: list[Any]) -> Executed:
    """Run the plan as one LangChain run: every step through ``BaseTool.invoke``."""
    tools = {tool.name: tool for tool in world.tools()}
    calls: list[tuple[str, Step, str, bool]] = []

    def call(index: int, step: Step, config: RunnableConfig, attempt: int) -> bool:
        call_id = f"s{index:02d}a{attempt}-{step.tool}"
        world.calling(call_id)
        message = tools[step.tool].invoke(
            {"name": step.tool, "args": dict(step.args), "id": call_id, "type": "tool_call"}, config=config
        )
        errored = isinstance(message, ToolMessage) and message.status == "error"
        calls.append((call_id, step, str(getattr(message, "content", message)), errored))
        return not errored

    @chain
    def agent(question: str, config: RunnableConfig) -> str:
        *before, terminal = plan.steps
        for index, step in enumerate(before):
            if step.tool in tools and not call(index, step, config, 0):
                call(index, step, config, 1)  # one retry: tool errors may be transient
        if terminal.tool not in tools or not call(len(before), terminal, config, 0):
            raise TaskFailed(calls[-1][2] if calls else "no such tool")
        return calls[-1][2]

    try:
        agent.invoke(task.text, config={"callbacks": callbacks, "run_id": run_id, "run_name": "ops-agent"})
        success = True
    except TaskFailed:
        success = False
    success = success and bool(world.state.terminal_ok)
    return Executed(run_id, task, plan, False, success, calls, list(world.state.needed_calls))
