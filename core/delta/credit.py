"""Temporal credit assignment: how much of an episode's outcome each step earned.

Pure functions, no storage. The seed's rule is ``credit(t) = reward · exp(−λ (T − t))``: steps
closer to the outcome earn more. Here ``t`` is the **step index** in the episode (0 for the
first step, ``T`` for the last, the terminal step the outcome is attributed to), not wall-clock
time: agents' steps are unevenly spaced, and an index keeps ``λ`` unitless.

On top of the temporal rule (the seed's TAR² redistribution along the causal chain):

1. **Causal path.** Walking the causal edges back from the terminal step (delta links and
   data-dependency edges, see :func:`causal_parents`) gives the steps the outcome depended on,
   each with its hop count ``h``. A step on that path is discounted by its *causal* distance,
   ``exp(−λ h)``, instead of its temporal one (the seed's "artificial temporal discount": a
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
causal information beyond a plain chain of steps, ``weight = exp(−λ (T − t))`` exactly — the
seed's formula.

>>> [round(c.weight, 3) for c in assign_credit([Step("a"), Step("b", ("a",)), Step("c", ("b",))], 1.0, lam=math.log(2))]
[0.25, 0.5, 1.0]
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_LAMBDA = 0.1
"""Per-step temporal discount λ."""
CAUSAL_BOOST = 2.0
NECESSARY_FLOOR = 0.5
MIN_WEIGHT = 0.01


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an episode, in time order; ``parents`` are its causal parents (step ids)."""

    id: str
    parents: tuple[str, ...] = ()
    necessary: bool = False
    relevance: float | None = None
    """Off the causal path, the factor in [0, 1] its temporal weight is multiplied by: how much
    such outcomes were seen to depend on this step (:func:`dependence`); None: not known."""


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
    total = sum(weights)
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


MIN_CONTRAST = 1
"""Episodes needed on each side (with the step, without it) before a dependence is estimated."""


def dependence(step: Any, history: Sequence[tuple[Collection[Any], bool]]) -> float | None:
    """How much success depended on making ``step``, from comparable episodes (those that made
    the same terminal call): ``P(success | step made) − P(success | not made)``, each Laplace
    smoothed ``(s + 1) / (n + 2)``; in [−1, 1]. None while either side has fewer than
    :data:`MIN_CONTRAST` episodes. A step an agent adds at random (reading logs) succeeds about
    as often without it (≈ 0); a step the outcome needs (a pending migration) does not.

    >>> dependence("migrate", [({"migrate"}, True), ({"migrate"}, True), (set(), False)])
    0.4166666666666667
    """
    made = [ok for calls, ok in history if step in calls]
    skipped = [ok for calls, ok in history if step not in calls]
    if len(made) < MIN_CONTRAST or len(skipped) < MIN_CONTRAST:
        return None
    return (sum(made) + 1) / (len(made) + 2) - (sum(skipped) + 1) / (len(skipped) + 2)
