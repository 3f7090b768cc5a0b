"""Plans and schemas: what ``recall_plans`` returns and what ``schema_get`` … ``schema_import`` manage.

A :class:`Schema` is a learned (or imported) plan pattern: ordered tool calls whose argument
values that came from the task are **slots** (``"{service}"``), constants kept as they are. A
:class:`Plan` is a schema made ready for one task: its slots filled from that task, its calls
migrated to the tools on offer, with a calibrated probability of success and the evidence
behind it. The contract these records follow is ``PLANS_API.md`` (issue 17).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FailureKind = Literal["transient", "permanent"]
PLAN_FLAGS = frozenset(
    {"failed", "unstable", "drifted", "guessed", "stale", "unrunnable", "prior"}
)
"""Flags a plan may carry: ``failed`` (more likely to fail than to work), ``unstable`` (its
outcomes keep flipping), ``drifted`` (a tool's schema changed since it was learned: see
``migrations``), ``guessed`` (a migration renamed a parameter on the schemas' shape alone,
not yet confirmed by a success: the probability is cut to 0.8 of what the evidence says),
``stale`` (a step cannot run as is: its tool is not offered or its arguments
did not migrate, or its newest evidence is old), ``unrunnable`` (a step's tool is not on offer,
or its arguments did not migrate to the tool's current schema, which would reject the call: the
probability is cut to 0.4 of what the evidence says), ``prior`` (only imported prior knowledge backs it, no outcome
in this store)."""


class Slot(BaseModel):
    """What varies between the tasks a plan serves: a value taken from the task."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The placeholder's name: ``"{name}"`` in the step templates."""
    source: str
    """Where the value comes from: ``"text"`` (a span of the task text), ``"field:<name>"`` (a
    structured task field), ``"entity"`` or ``"date_offset:<field>"`` (a date the task names,
    shifted by ``offset_days``)."""
    value: Any = None
    """The value filled for this task (None when the task does not say it)."""
    offset_days: int | None = None
    """For a ``date_offset`` slot: days added to the task's date."""
    value_type: str | None = None
    """The JSON type the calls used (``"integer"``, ``"string"`` …): a value read from text is cast to it."""


class PlanStep(BaseModel):
    """One call of a plan."""

    model_config = ConfigDict(frozen=True)

    tool: str
    args: dict[str, Any]
    """Ready to call: slots filled from this task, migrations applied."""
    template: dict[str, Any]
    """``args`` with ``"{slot}"`` placeholders for what varies; constants stay."""
    read_only: bool = False
    """The tool only reads (MCP ``readOnlyHint``, tool metadata): it earns little credit."""
    credit: float = 0.0
    """In [0, 1]: how much this step mattered to the plan's successes."""


class Migration(BaseModel):
    """How one tool's calls were carried over to its current schema (one structure for all drift)."""

    model_config = ConfigDict(frozen=True)

    tool: str
    renamed_from: str | None = None
    """The tool's earlier name, when the tool itself was renamed."""
    renamed: dict[str, str] = Field(default_factory=dict)
    """Old parameter name -> new one."""
    guessed: tuple[str, ...] = ()
    """Old parameter names in ``renamed`` read from the schemas' shape alone (the one parameter
    gone and the one new required parameter at its position, of its type) and not yet
    confirmed by a success under the new name: the plan is flagged ``guessed``."""
    added_defaults: dict[str, Any] = Field(default_factory=dict)
    """New required parameters filled from their default."""
    dropped: tuple[str, ...] = ()
    """Parameters the new schema no longer has (left out of the call)."""
    ok: bool = True
    """False when the arguments could not be migrated (the plan is flagged ``stale``)."""
    reason: str | None = None


class PlanEvidence(BaseModel):
    """The outcomes behind a plan (after a split, the episodes of this task's side of it)."""

    model_config = ConfigDict(frozen=True)

    episodes: int = 0
    successes: int = 0
    failures: int = 0
    """Failures that count against the plan (permanent or unexplained)."""
    transient_failures: int = 0
    """Failures caused by a transient error (timeout, rate limit …): not counted against it."""
    weighted_successes: float = 0.0
    """Similarity- and recency-weighted successes the posterior is built from."""
    weighted_failures: float = 0.0


class Plan(BaseModel):
    """A schema made ready for one task (``recall_plans``)."""

    model_config = ConfigDict(frozen=True)

    schema_id: str
    version: int
    steps: tuple[PlanStep, ...]
    slots: tuple[Slot, ...]
    probability: float
    """Calibrated P(success) for this task: the mean of a Beta posterior over the pattern's
    outcomes in similar situations (prior Beta(1, 1), or the schema's prior)."""
    evidence: PlanEvidence
    migrations: tuple[Migration, ...] = ()
    flags: frozenset[str] = frozenset()
    provenance: Literal["LEARNED", "PRIOR"] = "LEARNED"
    similarity: float = 0.0
    """In [0, 1]: how similar the situations behind the evidence are to this task."""
    alpha: float = 1.0
    """The posterior's Beta parameters (``probability = alpha / (alpha + beta)``)."""
    beta: float = 1.0
    complete: bool = True
    """Every slot was filled from this task."""
    split: dict[str, Any] | None = None
    """The situation attribute the evidence was split on (``{"key": "attr:engine", "value":
    "postgres", "side": "in"}``) when the pattern works differently for it."""

    def as_text(self) -> str:
        """This plan as a model reads it (:func:`plan_text`)."""
        return plan_text(self)


class SchemaStep(BaseModel):
    """One call of a schema's pattern."""

    model_config = ConfigDict(frozen=True)

    tool: str
    template: dict[str, Any]
    read_only: bool = False


class Schema(BaseModel):
    """A plan pattern as stored: versioned; ``schema_update`` / ``schema_rollback`` add versions."""

    model_config = ConfigDict(frozen=True)

    schema_id: str
    tenant: str
    version: int
    steps: tuple[SchemaStep, ...]
    slots: tuple[Slot, ...]
    utility: float = 0.5
    """The prior mean success rate this schema starts from (exported: the rate it earned)."""
    confidence: float = 0.0
    """How much the prior counts, in [0, 1): a pseudo-count of ``c / (1 − c)`` episodes on top
    of Beta(1, 1); 0 for a learned schema, 0.3 for an imported cold-start prior."""
    provenance: Literal["LEARNED", "PRIOR"] = "LEARNED"
    reliability: dict[str, float] = Field(default_factory=dict)
    """What its outcomes say (``successes``, ``failures``, ``transient_failures``, ``alpha``,
    ``beta``, ``probability``), read live from this store's episodes."""
    kind: str | None = None
    """The task kind it was learned for."""
    text_templates: tuple[str, ...] = ()
    """Task texts with the slot values replaced by ``{slot}``: how a new task's text fills them."""
    situations: tuple[dict[str, Any], ...] = ()
    """Up to a few tasks it served (text, kind, tags, attributes): what similarity is judged on
    when no episode of this store backs it."""
    disabled: bool = False
    """A person turned it off: ``recall_plans`` never offers it."""
    note: str | None = None
    created: float = 0.0
    """Unix seconds the version was written."""
    support: dict[str, Any] | None = None
    """What the episodes behind it showed when consolidation last looked (``episodes``,
    ``successes``, ``failures``, ``transient``, ``success_rate``, ``episode_ids``, ``cycle_id``);
    None until a consolidation cycle has seen it."""
    merged_from: tuple[dict[str, Any], ...] = ()
    """Near-duplicate schemas merged into this one (``schema_id``, the ``version`` merged, ``cycle_id``)."""
    merged_into: str | None = None
    """The schema this one was merged into (it is disabled; its episodes count for that one)."""


def plan_text(plan: Plan) -> str:
    """A plan as a model reads it: its probability of success, its evidence, its flags and its
    calls with the arguments ready for this task (what the framework adapters put in context)."""
    evidence = plan.evidence
    flags = f"; flags: {', '.join(sorted(plan.flags))}" if plan.flags else ""
    head = (
        f"probability of success {plan.probability:.2f} "
        f"({evidence.successes} of {evidence.episodes} similar episodes succeeded, "
        f"{evidence.failures} failed{flags})"
    )
    calls = [
        f"{i}. {step.tool}({json.dumps(step.args, sort_keys=True, default=str)})"
        for i, step in enumerate(plan.steps, 1)
    ]
    return "\n".join([head, *calls])
