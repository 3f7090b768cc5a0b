"""Temporal credit assignment: how much of an episode's outcome each step earned.

Pure functions, no storage. The base rule is ``credit(t) = reward · exp(−λ (T − t))``: steps
closer to the outcome earn more. Here ``t`` is the **step index** in the episode (0 for the
first step, ``T`` for the last, the terminal step the outcome is attributed to), not wall-clock
time: agents' steps are unevenly spaced, and an index keeps ``λ`` unitless.

On top of the temporal rule (a TAR²-style redistribution along the causal chain):

1. **Causal path.** Walking the causal edges back from the terminal step (delta links and
   data-dependency edges, see :func:`causal_parents`) gives the steps the outcome depended on,
   each with its hop count ``h``. A step on that path is discounted by its *causal* distance,
   ``exp(−λ h)``, instead of its temporal one (an "artificial temporal discount": a
   step five hops back in a 50-step episode is not starved because 45 irrelevant steps happened
   in between). A step off the path keeps ``exp(−λ (T − t))`` and is divided by
   ``causal_boost`` (default 2): steps that were merely earlier earn less than steps the
   outcome depended on.
2. **Never vanishing.** In a long episode ``λ`` is lowered to ``ln(1/min_weight) / T`` so that
   even the first step keeps at least ``min_weight`` (default 0.01) of the terminal's weight.
3. **Necessary steps are never starved.** A step tagged necessary (by the caller, by
   ``meta["necessary"] = True`` on its event, or because its output was consumed by a step on
   the causal path) gets a weight of at least ``necessary_floor`` (default 0.5).

The weight of a step is in ``[0, 1]`` (the terminal step has 1) and ``credit = reward ·
weight``; ``share = weight / Σ weight`` is the step's fraction of the episode's credit. With no
causal information beyond a plain chain of steps, ``weight = exp(−λ (T − t))`` exactly: the
base rule.

>>> [round(c.weight, 3) for c in assign_credit([Step("a"), Step("b", ("a",)), Step("c", ("b",))], 1.0, lam=math.log(2))]
[0.25, 0.5, 1.0]
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_LAMBDA = 0.1
"""Per-step temporal discount λ."""
CAUSAL_BOOST = 2.0
NECESSARY_FLOOR = 0.5
MIN_WEIGHT = 0.01
READ_ONLY_FACTOR = 0.15
"""Weight factor of a step of a read-only tool (MCP ``readOnlyHint``) that nothing consumed:
looking at the world rarely is what made an outcome (issue 17)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an episode, in time order; ``parents`` are its causal parents (step ids)."""

    id: str
    parents: tuple[str, ...] = ()
    necessary: bool = False
    relevance: float | None = None
    """Off the causal path, the factor in [0, 1] its temporal weight is multiplied by: how much
    such outcomes were seen to depend on this step (:func:`step_effects`); None: not known."""


@dataclass(frozen=True, slots=True)
class StepCredit:
    id: str
    index: int
    weight: float
    """In [0, 1]: the fraction of the reward this step earns (the terminal step has 1)."""
    credit: float
    """``reward · weight``."""
    share: float
    """``weight / Σ weight``: this step's fraction of the episode's credit."""
    on_path: bool
    """The outcome depended on it (an ancestor of the terminal step through causal edges)."""
    hops: int | None
    """Causal distance to the terminal step (None off the path)."""
    necessary: bool


def assign_credit(
    steps: Sequence[Step],
    reward: float,
    *,
    lam: float = DEFAULT_LAMBDA,
    causal_boost: float = CAUSAL_BOOST,
    necessary_floor: float = NECESSARY_FLOOR,
    min_weight: float = MIN_WEIGHT,
) -> list[StepCredit]:
    """Credit of each step of an episode whose last step is the terminal one (see the module)."""
    if not steps:
        return []
    if lam < 0 or causal_boost < 1 or not 0 <= necessary_floor <= 1 or not 0 <= min_weight < 1:
        raise ValueError("need lam >= 0, causal_boost >= 1, 0 <= necessary_floor <= 1, 0 <= min_weight < 1")
    last = len(steps) - 1
    if last > 0 and min_weight > 0:
        lam = min(lam, math.log(1.0 / min_weight) / last)
    hops = causal_hops(steps)
    raw: list[float] = []
    for index, step in enumerate(steps):
        if step.id in hops:
            raw.append(causal_boost * math.exp(-lam * hops[step.id]))
        else:
            relevance = 1.0 if step.relevance is None else min(1.0, max(0.0, step.relevance))
            raw.append(math.exp(-lam * (last - index)) * relevance)
    top = max(raw) or 1.0
    weights = [
        max(value / top, necessary_floor) if step.necessary else value / top for step, value in zip(steps, raw)
    ]
    return _credits(steps, weights, reward, hops)


def assign_credit_read_only(
    steps: Sequence[Step], reward: float, read_only: Collection[str], *, read_only_factor: float = READ_ONLY_FACTOR, **rules: Any
) -> list[StepCredit]:
    """:func:`assign_credit` with the steps of read-only tools (ids in ``read_only``) demoted:
    the terminal step is the last one that is not read-only (a trailing ``check_status`` does not
    take the outcome's credit), read-only steps earn ``read_only_factor`` of their weight unless
    they are necessary (their output was consumed, or the caller said so).

    >>> steps = [Step("migrate"), Step("deploy", ("migrate",)), Step("status", ("deploy",))]
    >>> [round(c.weight, 2) for c in assign_credit_read_only(steps, 1.0, {"status"}, lam=math.log(2))]
    [0.5, 1.0, 0.07]
    """
    ro = set(read_only)
    last = max((i for i, step in enumerate(steps) if step.id not in ro), default=None)
    if not ro or last is None:
        return assign_credit(steps, reward, **rules)
    head = assign_credit(steps[: last + 1], reward, **rules)
    lam = rules.get("lam", DEFAULT_LAMBDA)
    weights = [c.weight * (read_only_factor if c.id in ro and not c.necessary else 1.0) for c in head]
    weights += [
        (max(rules.get("necessary_floor", NECESSARY_FLOOR), read_only_factor) if step.necessary else read_only_factor)
        * math.exp(-lam * (index - last))
        for index, step in enumerate(steps[last + 1 :], start=last + 1)
    ]
    return _credits(steps, weights, reward, {c.id: c.hops for c in head if c.hops is not None})


def _credits(steps: Sequence[Step], weights: Sequence[float], reward: float, hops: Mapping[str, int]) -> list[StepCredit]:
    total = sum(weights) or 1.0
    return [
        StepCredit(
            id=step.id,
            index=index,
            weight=weight,
            credit=reward * weight,
            share=weight / total,
            on_path=step.id in hops,
            hops=hops.get(step.id),
            necessary=step.necessary,
        )
        for index, (step, weight) in enumerate(zip(steps, weights))
    ]


def causal_hops(steps: Sequence[Step]) -> dict[str, int]:
    """Hop count from the terminal (last) step to each of its causal ancestors, itself included
    at 0. Breadth-first with a visited set: a loop cannot make it run forever (E02)."""
    if not steps:
        return {}
    known = {step.id for step in steps}
    parents = {step.id: [p for p in step.parents if p in known] for step in steps}
    hops = {steps[-1].id: 0}
    frontier = [steps[-1].id]
    while frontier:
        following = []
        for node in frontier:
            for parent in parents[node]:
                if parent not in hops:
                    hops[parent] = hops[node] + 1
                    following.append(parent)
        frontier = following
    return hops


def causal_parents(
    links: Mapping[str, Sequence[tuple[str, str]]], data: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Causal parents of each step from its delta links ``(parent, relation)`` and its data
    dependencies. A ``sequence`` link only says "came after" (the write path links a step with
    no declared cause to the previous one); a data dependency is a declared cause, so a step
    that has one drops its sequence link.

    >>> causal_parents({"c": [("b", "sequence")]}, {"c": ["a"]})
    {'c': ('a',)}
    """
    found: dict[str, tuple[str, ...]] = {}
    for step in set(links) | set(data):
        declared = [p for p, relation in links.get(step, ()) if relation != "sequence"]
        from_data = list(data.get(step, ()))
        chosen = declared + from_data if (declared or from_data) else [p for p, _ in links.get(step, ())]
        found[step] = tuple(dict.fromkeys(chosen))
    return found


_MIN_VALUE_CHARS = 3


def data_dependencies(records: Sequence[Mapping[str, Any]], shared: Sequence[str] = ()) -> dict[str, list[str]]:
    """Which steps consumed which earlier tool result: ``{consumer: [producers]}``.

    ``records`` are the episode's steps in time order, each with ``id``, ``kind``, ``text`` and
    ``tool_args``. A tool call depends on an earlier ``tool_result`` (or ``observation``) when
    one of its argument values (a string of at least 3 characters or a number, at any depth)
    appears as a whole word in that result's text. The latest matching producer wins for each
    value.

    ``shared`` is the context every step was given (the episode's task message): a value that
    already occurs there is not evidence that the call consumed a result — tools commonly echo
    the names they were called with, so "billing-api" in a log tool's output does not make a
    later deploy of billing-api depend on reading the logs.

    >>> data_dependencies([
    ...     {"id": "r", "kind": "tool_result", "text": "logs of billing-api: ok", "tool_args": None},
    ...     {"id": "c", "kind": "tool_call", "text": "", "tool_args": {"service": "billing-api"}},
    ... ], shared=["deploy billing-api to staging"])
    {}

    >>> data_dependencies([
    ...     {"id": "r", "kind": "tool_result", "text": "created job 4711", "tool_args": None},
    ...     {"id": "c", "kind": "tool_call", "text": "", "tool_args": {"job": 4711}},
    ... ])
    {'c': ['r']}
    """
    found: dict[str, list[str]] = {}
    producers: list[tuple[str, str]] = []
    context = [str(text) for text in shared if text]
    for record in records:
        if record.get("kind") == "tool_call" and record.get("tool_args"):
            for value in _leaf_values(record["tool_args"]):
                pattern = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
                if any(pattern.search(text) for text in context):
                    continue  # known before any tool ran: not something a result produced
                for producer_id, text in reversed(producers):
                    if pattern.search(text):
                        found.setdefault(record["id"], [])
                        if producer_id not in found[record["id"]]:
                            found[record["id"]].append(producer_id)
                        break
        if record.get("kind") in ("tool_result", "observation") and record.get("text"):
            producers.append((record["id"], str(record["text"])))
    return found


def _leaf_values(value: Any) -> list[str]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value)]
    if isinstance(value, str):
        value = value.strip()
        return [value] if len(value) >= _MIN_VALUE_CHARS else []
    if isinstance(value, Mapping):
        return [leaf for item in value.values() for leaf in _leaf_values(item)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaf_values(item)]
    return []


def consumed_by_path(data: Mapping[str, Sequence[str]], on_path: set[str]) -> set[str]:
    """Producers whose output a step on the causal path consumed: causally necessary."""
    return {producer for consumer, producers in data.items() if consumer in on_path for producer in producers}


TASK_VALUE = "<task>"
"""What :func:`call_pattern` writes for an argument value that came from the task."""


def call_pattern(tool: str, args: Any, context: Sequence[str] = ()) -> tuple[str, str]:
    """A call with the values it took from its task abstracted: ``read_logs(service=billing-api)``
    for "deploy billing-api to staging" and ``read_logs(service=auth-service)`` for "deploy
    auth-service to production" are the same *pattern*, ``read_logs(service=<task>)``. This is
    what lets one task's episodes say something about another's: whether reading the logs of
    the service at hand ever mattered is a question about the pattern, not about billing-api.

    >>> call_pattern("read_logs", {"service": "billing-api", "lines": 50}, ["deploy billing-api to staging"])
    ('read_logs', '{"lines": 50, "service": "<task>"}')
    """
    texts = [str(text) for text in context if text]

    def abstract(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k): abstract(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [abstract(v) for v in value]
        leaves = _leaf_values(value)
        # The substring test first: this runs for every call of ~100 episodes per outcome.
        if leaves and any(leaves[0] in text and re.search(rf"(?<!\w){re.escape(leaves[0])}(?!\w)", text) for text in texts):
            return TASK_VALUE
        return value

    return tool, json.dumps(abstract(args or {}), sort_keys=True, default=str)


RIDGE = 0.5
"""Ridge penalty of :func:`step_effects`: shrinks effects seen in a handful of episodes toward 0."""


def step_effects(history: Sequence[tuple[Any, Collection[Any], bool]], ridge: float = RIDGE) -> dict[Any, float]:
    """How much each step raised the chance of success, from ``history`` = ``(stratum, steps
    made, succeeded)`` per episode, the stratum being what else decided the outcome (the
    terminal call).

    A linear probability model with one fixed effect per stratum, fitted by ridge regression on
    the within-stratum deviations (numpy least squares): success ≈ Σ effect(step) · made(step).
    Two confounders are controlled for this way:

    * **the terminal call** — only episodes that ended in the same call are compared, so an
      agent that repeats every step of a plan that worked does not make those steps look
      like causes across tasks;
    * **the other steps** — a step that happened to come with a needed one (logs read in the
      runs that also ran the migration) gets its own effect, not the migration's.

    A step's effect is pooled over the strata: what one task's runs teach about reading logs
    holds for the next task's. The price: a step only some tasks need (a migration one service
    has pending) gets its average effect, lower than its effect where it is needed. Only steps
    made in some but not all episodes of at least one stratum have an effect (the others have
    no contrast and are left out). Steps always made together share it.

    >>> e = step_effects([("d", {"m", "l"}, True), ("d", {"l"}, False), ("d", {"m"}, True), ("d", set(), False), ("d", {"m", "l"}, True)])
    >>> round(e["m"], 2), round(e["l"], 1)
    (0.7, 0.0)
    """
    strata: dict[Any, list[tuple[Collection[Any], bool]]] = {}
    for stratum, made, ok in history:
        strata.setdefault(stratum, []).append((made, ok))
    varying = sorted(
        {step for rows in strata.values() for made, _ in rows for step in made if not all(step in m for m, _ in rows)},
        key=repr,
    )
    if not varying:
        return {}
    blocks, targets = [], []
    for rows in strata.values():
        if len(rows) < 2:
            continue
        x = np.array([[1.0 if step in made else 0.0 for step in varying] for made, _ in rows])
        y = np.array([1.0 if ok else 0.0 for _, ok in rows])
        blocks.append(x - x.mean(axis=0))
        targets.append(y - y.mean())
    x, y = np.vstack(blocks), np.concatenate(targets)
    effects = np.linalg.solve(x.T @ x + ridge * np.eye(len(varying)), x.T @ y)
    return {step: float(value) for step, value in zip(varying, effects)}
