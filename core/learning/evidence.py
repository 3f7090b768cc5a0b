"""Evidence for a plan pattern in a situation: pooled across entities, weighted by how alike the
situations are, split where the pattern works differently for one kind of entity, and turned
into a calibrated probability (a Beta posterior).

Pure functions (and :class:`FamilyEffects`, fitted lazily per recall). Each episode of the pattern is an observation ``(similarity s, success)``;
transient failures are left out (counted, not held against it). Its weight is ``s²`` times
:data:`RECENCY` to the power of the similarity mass of the pattern's newer episodes, so a world
that changed is relearned in a few episodes while a stationary one keeps its mass. The posterior
is ``Beta(α₀ + Σ w·success, β₀ + Σ w·failure)``; the prior ``α₀, β₀`` is one pseudo-episode at
the base rate of similar situations (:func:`base_rate`, empirical Bayes) plus, for an imported
schema, its own prior; its mean is the probability reported.

**Entities.** When the task names an entity, other entities' episodes do not add up as if
they were this entity's: their similarity-weighted success rate becomes the prior for this one,
worth at most :data:`TRANSFER_STRENGTH` pseudo-episodes (:func:`entity_posterior`), and this
entity's own episodes count in full on top. A pattern that worked on five other entities is
likely, not certain, to work here; one failure here outweighs successes elsewhere; a value that
differs per entity (a constant the task does not carry) is learned per entity instead of being
averaged over all of them.

**Split.** An attribute of the situations (``attr:engine``, a tag, the entity, the kind) splits
the pattern when the success rate of the episodes with one value differs from the rest by more
than :data:`SPLIT_Z` standard errors (both sides with at least :data:`SPLIT_MIN` episodes):
"works for postgres, not for the others". The task's own side of the strongest split is then
the evidence, instead of an average that is wrong for both sides.

>>> post = posterior([(1.0, True, 1.0), (1.0, True, 2.0), (1.0, False, 3.0)], (1.0, 1.0))
>>> round(post.probability, 3), post.successes, post.failures
(0.55, 2, 1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deltacore.delta.credit import step_effects

RECENCY = 0.8
"""Weight factor per unit of newer evidence (similarity² mass) of the same pattern."""
MIN_SIMILARITY = 0.2
"""Episodes less similar than this to the task say nothing about it."""
MIGRATED_WEIGHT = 0.8
"""Weight of an episode run under a tool's earlier schema in the evidence for the plan migrated
to its current one (as a migrated delta's utility is demoted × 0.8)."""
TRANSFER_STRENGTH = 1.5
"""At most this many pseudo-episodes of other entities' evidence in an entity's prior."""
NEVER_WORKED_FACTOR = 0.5
"""A pattern whose every counted episode failed has its probability cut to this share: its prior
is the base rate of situations like the task, high once the agent follows plans that work, and
one failure in a less similar situation weighs too little to pull it under even odds."""
SPLIT_Z = 2.0
SPLIT_MIN = 2


@dataclass(frozen=True)
class Posterior:
    alpha: float
    beta: float
    successes: int
    failures: int
    weighted_successes: float
    weighted_failures: float
    similarity: float
    """Weight-averaged similarity of the evidence (0 without evidence)."""

    @property
    def probability(self) -> float:
        return self.alpha / (self.alpha + self.beta)


PRIOR_STRENGTH = 1.0
"""Pseudo-episodes of the base rate every pattern starts from (empirical Bayes)."""


def base_rate(observations: Sequence[tuple[float, bool]]) -> float:
    """How often an episode in situations like this one succeeds, whatever it did: the
    similarity²-weighted success rate, Laplace-smoothed (0.5 with no evidence). A plan seen to
    work once elsewhere starts from here, not from even odds: in a world where little works,
    one success is weak evidence, and the probability says so."""
    return base_rate_without(base_mass(observations), ())


def base_mass(observations: Sequence[tuple[float, bool]]) -> tuple[float, float]:
    """``(Σ s²·success, Σ s²)``: what :func:`base_rate` is made of."""
    return sum(s * s for s, ok in observations if ok), sum(s * s for s, _ in observations)


def base_rate_without(
    mass: tuple[float, float], left_out: Sequence[tuple[float, bool]]
) -> float:
    """:func:`base_rate` of the observations whose :func:`base_mass` is ``mass``, without
    ``left_out`` (some of them): a plan's own runs from before a change that broke it are
    most of what made its situations look like ones where things work."""
    wins = mass[0] - sum(s * s for s, ok in left_out if ok)
    total = mass[1] - sum(s * s for s, _ in left_out)
    return (1.0 + max(wins, 0.0)) / (2.0 + max(total, 0.0))


def prior_of(
    utility: float,
    confidence: float,
    *,
    base: float = 0.5,
    strength: float = PRIOR_STRENGTH,
) -> tuple[float, float]:
    """``(α₀, β₀)``: ``strength`` pseudo-episodes at the base rate, plus ``c / (1 − c)``
    pseudo-episodes at the schema's utility (its confidence ``c``: 0.3 for a cold-start prior)."""
    confidence = min(max(float(confidence), 0.0), 0.95)
    mass = confidence / (1.0 - confidence)
    utility = min(max(float(utility), 0.0), 1.0)
    base = min(max(float(base), 0.01), 0.99)
    return strength * base + mass * utility, strength * (1.0 - base) + mass * (
        1.0 - utility
    )


def posterior(
    observations: Sequence[
        tuple[float, bool, float] | tuple[float, bool, float, float]
    ],
    prior: tuple[float, float] = (0.5, 0.5),
) -> Posterior:
    """The Beta posterior of ``(similarity, success, ts[, weight])`` observations (transient
    failures already out; ``weight``, default 1, scales an observation that says less, such
    as one made under a tool's earlier schema)."""
    a0, b0 = prior
    kept = sorted(
        (o for o in observations if o[0] >= MIN_SIMILARITY), key=lambda o: o[2]
    )
    ws = wf = mass = sim_mass = weight_total = 0.0
    successes = failures = 0
    for observation in reversed(
        kept
    ):  # newest first: the mass of newer evidence discounts older
        similarity, ok = observation[0], observation[1]
        factor = observation[3] if len(observation) > 3 else 1.0
        weight = factor * similarity * similarity * RECENCY**mass
        mass += factor * similarity * similarity
        weight_total += weight
        sim_mass += weight * similarity
        if ok:
            ws += weight
            successes += 1
        else:
            wf += weight
            failures += 1
    return Posterior(
        alpha=a0 + ws,
        beta=b0 + wf,
        successes=successes,
        failures=failures,
        weighted_successes=ws,
        weighted_failures=wf,
        similarity=sim_mass / weight_total if weight_total else 0.0,
    )


def scaled(post: Posterior, factor: float) -> Posterior:
    """``post`` with its probability times ``factor`` and its mass kept (what is known about
    the plan stays as much; it is now less likely to work)."""
    mass = post.alpha + post.beta
    alpha = post.probability * factor * mass
    return Posterior(
        alpha=alpha,
        beta=mass - alpha,
        successes=post.successes,
        failures=post.failures,
        weighted_successes=post.weighted_successes,
        weighted_failures=post.weighted_failures,
        similarity=post.similarity,
    )


def entity_posterior(
    own: Sequence[tuple[float, bool, float]],
    others: Sequence[tuple[float, bool, float]],
    prior: tuple[float, float] = (0.5, 0.5),
    *,
    transfer: float = TRANSFER_STRENGTH,
) -> Posterior:
    """The posterior for one entity: ``others`` (episodes of other entities) give a prior at
    their posterior mean worth at most ``transfer`` pseudo-episodes; ``own`` (this entity's
    episodes) are counted on top. Counts and similarity cover both."""
    elsewhere = posterior(others, prior)
    mass = min(transfer, elsewhere.alpha + elsewhere.beta)
    mean = elsewhere.probability
    here = posterior(own, (mass * mean, mass * (1.0 - mean)))
    scale = mass / (elsewhere.alpha + elsewhere.beta) if mass else 0.0
    carried = (
        elsewhere.weighted_successes * scale,
        elsewhere.weighted_failures * scale,
    )
    weights = (sum(carried), here.weighted_successes + here.weighted_failures)
    total = sum(weights)
    similarity = (
        (elsewhere.similarity * weights[0] + here.similarity * weights[1]) / total
        if total
        else 0.0
    )
    return Posterior(
        alpha=here.alpha,
        beta=here.beta,
        successes=here.successes + elsewhere.successes,
        failures=here.failures + elsewhere.failures,
        weighted_successes=here.weighted_successes + carried[0],
        weighted_failures=here.weighted_failures + carried[1],
        similarity=similarity,
    )


def find_split(
    observations: Sequence[tuple[Mapping[str, str], bool]], task: Mapping[str, str]
) -> tuple[str, str, str, float] | None:
    """The strongest significant split ``(key, value, side, z)``: ``side`` is ``"in"`` when the
    task has ``value`` (use only those episodes), ``"out"`` when it does not (leave them out)."""
    keys = sorted({key for values, _ in observations for key in values})
    best: tuple[str, str, str, float] | None = None
    for key in keys:
        groups: dict[str, list[bool]] = {}
        for values, ok in observations:
            groups.setdefault(values.get(key, ""), []).append(ok)
        if len(groups) < 2:
            continue
        for value, inside in groups.items():
            if not value:
                continue
            outside = [
                ok for other, oks in groups.items() if other != value for ok in oks
            ]
            if len(inside) < SPLIT_MIN or len(outside) < SPLIT_MIN:
                continue
            z = _z(inside, outside)
            if z < SPLIT_Z:
                continue
            side = "in" if task.get(key) == value else "out"
            if best is None or z > best[3]:
                best = (key, value, side, z)
    return best


def _z(a: Sequence[bool], b: Sequence[bool]) -> float:
    def moments(xs: Sequence[bool]) -> tuple[float, float]:
        alpha, beta = 1 + sum(xs), 1 + len(xs) - sum(xs)
        mean = alpha / (alpha + beta)
        return mean, alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1))

    (ma, va), (mb, vb) = moments(a), moments(b)
    return abs(ma - mb) / math.sqrt(va + vb)


def oscillates(outcomes: Sequence[bool], *, window: int = 6, flips: int = 3) -> bool:
    """The last ``window`` outcomes (oldest first) change at least ``flips`` times."""
    last = list(outcomes)[-window:]
    return sum(1 for a, b in itertools.pairwise(last) if a != b) >= flips


def step_credit(
    steps: Sequence[tuple[Any, bool]],
    effects: Mapping[Any, float],
    *,
    lam: float = 0.35,
    read_only_factor: float = 0.15,
) -> list[float]:
    """Credit of each step in [0, 1]: its contrastive effect where episodes of the same family
    differ in making it (present in successes, absent in failures), else TAR²-style decay from
    the last step that changes something; read-only steps get ``read_only_factor`` of it."""
    if not steps:
        return []
    writes = [i for i, (_, read_only) in enumerate(steps) if not read_only]
    terminal = writes[-1] if writes else len(steps) - 1
    credits: list[float] = []
    for index, (key, read_only) in enumerate(steps):
        base = math.exp(-lam * abs(terminal - index))
        effect = effects.get(key)
        value = (
            base
            if effect is None
            else 0.25 * base + 0.75 * min(1.0, max(0.0, effect / 0.5))
        )
        credits.append(
            round(min(1.0, value * (read_only_factor if read_only else 1.0)), 6)
        )
    return credits


class FamilyEffects:
    """Per terminal step (the last call that changes something): how much each step of the
    plans ending in it raised the chance of success (:func:`~deltacore.delta.credit.step_effects`
    over the similar episodes; a step present in successes and absent in failures gains).
    Fitted on first use: only the families of the plans offered are."""

    def __init__(self, traces: Sequence[Any], sims: Mapping[str, float]) -> None:
        self._histories: dict[Any, list[tuple[Any, set[Any], bool]]] = {}
        self._fitted: dict[Any, dict[Any, float]] = {}
        for trace in traces:
            if (
                trace.status == "transient"
                or not trace.plan
                or sims[trace.episode_id] < MIN_SIMILARITY
            ):
                continue
            self._histories.setdefault(trace.terminal, []).append(
                (trace.terminal, set(trace.step_keys), trace.status == "success")
            )

    def get(
        self, terminal: Any, default: dict[Any, float] | None = None
    ) -> dict[Any, float]:
        if terminal not in self._fitted:
            history = self._histories.get(terminal, [])
            self._fitted[terminal] = step_effects(history) if len(history) >= 2 else {}
        return self._fitted[terminal]
