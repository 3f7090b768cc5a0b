"""A seeded operations world with hidden rules, served as real LangChain tools.

Tasks are "deploy <service> to <env>" and "recover the <job> job of <service>". Whether the
terminal call (``deploy`` / ``restart_job``) succeeds depends on hidden rules the agent is never
told; tool errors are deliberately uninformative ("health checks did not pass"), so the only way
to learn the rules is from terminal outcomes:

* deploy: services with pending migrations need ``run_migration`` first; production needs
  ``request_approval`` (after the **rule change**, staging needs one too: a change freeze); each
  service has one rollout ``strategy`` that works (canary for some, rolling for the rest);
* recover: queue-backed services need ``drain_queue`` first; ``restart_job`` needs the service's
  ``mode`` (graceful for stateful services, immediate for the rest).

Extra calls never hurt (an approval nobody needs is still granted), so the agent can succeed
while calling irrelevant tools (``read_logs``, ``check_oncall`` …): those are what credit
assignment must tell apart from the needed steps. ``run_migration`` and ``request_approval`` are
**flaky** (a random timeout), and at the **schema change** ``deploy``'s parameter ``env`` is
renamed ``environment`` (same tool name, new argument schema).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

SERVICES = [
    "billing-api", "auth-service", "search-indexer", "payments-gateway", "user-profile", "notification-worker",
    "inventory-db", "checkout-web", "recommendation-engine", "email-sender", "report-generator", "image-resizer",
    "session-cache", "audit-logger", "feature-flags", "order-router", "pricing-engine", "shipping-tracker",
    "fraud-detector", "analytics-pipeline", "ledger-service", "media-cdn", "chat-backend", "geo-locator",
]  # fmt: skip
ENVS = ["staging", "production"]
JOBS = ["nightly-export", "reindex", "cleanup", "sync"]
TEAMS = ["platform", "payments", "growth", "data"]
METRICS = ["p99 latency", "error rate", "cpu usage"]

DEPLOY, RESTART = "deploy", "restart_job"
TERMINAL = {"deploy": DEPLOY, "recover": RESTART}


@dataclass(frozen=True)
class ServiceRules:
    """The hidden truth about one service."""

    pending_migration: bool
    strategy: str  # "canary" | "rolling"
    queue_backed: bool
    restart_mode: str  # "graceful" | "immediate"


@dataclass(frozen=True)
class Task:
    kind: str  # "deploy" | "recover"
    service: str
    env: str | None = None
    job: str | None = None

    @property
    def text(self) -> str:
        if self.kind == "deploy":
            return f"deploy {self.service} to {self.env}"
        return f"recover the {self.job} job of {self.service}"

    def entities(self) -> dict[str, str]:
        """Argument values that name this task's own service / environment / job."""
        values = {"service": self.service, "env": self.env, "job": self.job}
        return {name: value for name, value in values.items() if value}


_DEPLOY_TEXT = re.compile(r"^deploy (?P<service>[\w-]+) to (?P<env>\w+)$")
_RECOVER_TEXT = re.compile(r"^recover the (?P<job>[\w-]+) job of (?P<service>[\w-]+)$")


def parse_task(text: str) -> Task | None:
    """The task a task sentence states (what an agent reads back from a remembered trigger)."""
    text = text.strip()
    if match := _DEPLOY_TEXT.match(text):
        return Task("deploy", match["service"], env=match["env"])
    if match := _RECOVER_TEXT.match(text):
        return Task("recover", match["service"], job=match["job"])
    return None


# ---- argument schemas (what the model / agent is offered) ----------------------------------------


class ServiceArgs(BaseModel):
    service: str = Field(description="service name")


class ApprovalArgs(BaseModel):
    service: str = Field(description="service name")
    env: str = Field(description="target environment")


class DeployArgsV1(BaseModel):
    service: str = Field(description="service name")
    env: str = Field(description="target environment")
    strategy: Literal["rolling", "canary"] = Field(description="rollout strategy")


class DeployArgsV2(BaseModel):
    """After the schema change: ``env`` is now called ``environment``."""

    service: str = Field(description="service name")
    environment: str = Field(description="target environment")
    strategy: Literal["rolling", "canary"] = Field(description="rollout strategy")


class RestartArgs(BaseModel):
    service: str = Field(description="service name")
    job: str = Field(description="job name")
    mode: Literal["graceful", "immediate"] = Field(description="how to stop the running instance")


class TeamArgs(BaseModel):
    team: str = Field(description="team name")


class HoursArgs(BaseModel):
    hours: int = Field(description="look-back window in hours")


class MetricArgs(BaseModel):
    service: str = Field(description="service name")
    metric: str = Field(description="metric name")


# Choices the agent must make for an argument the task does not determine.
ARG_CHOICES: dict[str, list[Any]] = {
    "strategy": ["rolling", "canary"],
    "mode": ["graceful", "immediate"],
    "team": TEAMS,
    "hours": [6, 24, 48],
    "metric": METRICS,
}


@dataclass
class EpisodeState:
    """What the tools did during the current episode (the world's side of the run)."""

    task: Task
    migrated: bool = False
    approved: bool = False
    drained: bool = False
    terminal_ok: bool | None = None
    failure: str | None = None
    """Why the terminal call failed (for diagnostics only; the agent never sees it)."""
    needed_calls: list[str] = field(default_factory=list)
    """Tool-call ids that the hidden rules required (ground truth for credit accuracy)."""


@dataclass
class WorldConfig:
    episodes: int = 300
    schema_change_at: int = 120
    rule_change_at: int = 200
    flaky_rate: float = 0.15
    deploy_share: float = 0.7
    services: int = 16


class World:
    """Hidden rules, task stream and tools of one seeded run."""

    def __init__(self, seed: int, config: WorldConfig) -> None:
        self.config = config
        rng = random.Random(f"world-{seed}")
        self.rules = {
            service: ServiceRules(
                pending_migration=rng.random() < 0.45,
                strategy="canary" if rng.random() < 0.4 else "rolling",
                queue_backed=rng.random() < 0.5,
                restart_mode="graceful" if rng.random() < 0.5 else "immediate",
            )
            for service in SERVICES[: config.services]
        }
        self.services = SERVICES[: config.services]
        self._flaky = random.Random(f"flaky-{seed}")
        self._task_rng = random.Random(f"tasks-{seed}")
        self.episode = 0
        self.state: EpisodeState | None = None
        self._call_id: str | None = None

    # ---- the task stream -------------------------------------------------------------------------

    def tasks(self) -> list[Task]:
        rng, out = self._task_rng, []
        for _ in range(self.config.episodes):
            service = rng.choice(self.services)
            if rng.random() < self.config.deploy_share:
                out.append(Task("deploy", service, env=rng.choice(ENVS)))
            else:
                out.append(Task("recover", service, job=rng.choice(JOBS)))
        return out

    def schema_changed(self) -> bool:
        return self.episode >= self.config.schema_change_at

    def rule_changed(self) -> bool:
        return self.episode >= self.config.rule_change_at

    def approval_required(self, task: Task) -> bool:
        return task.env == "production" or (self.rule_changed() and task.env == "staging")

    def begin(self, episode: int, task: Task) -> None:
        self.episode = episode
        self.state = EpisodeState(task)

    def calling(self, call_id: str) -> None:
        """The id of the call about to run (so the world can say which calls were needed)."""
        self._call_id = call_id

    # ---- tools -----------------------------------------------------------------------------------

    def tools(self) -> list[BaseTool]:
        """The tools as currently offered (``deploy``'s schema depends on the episode)."""
        deploy = self._deploy_v2 if self.schema_changed() else self._deploy_v1
        return [
            _tool(self._run_migration, "run_migration", "Apply the service's pending database migrations.", ServiceArgs),
            _tool(self._request_approval, "request_approval", "Ask the change board to approve a release.", ApprovalArgs),
            _tool(self._drain_queue, "drain_queue", "Drain the service's work queue.", ServiceArgs),
            _tool(self._read_logs, "read_logs", "Read the service's latest log lines.", ServiceArgs),
            _tool(self._check_oncall, "check_oncall", "Who is on call for a team.", TeamArgs),
            _tool(self._list_incidents, "list_incidents", "Open incidents in a time window.", HoursArgs),
            _tool(self._get_metric, "get_metric", "Read one metric of a service.", MetricArgs),
            deploy,
            _tool(self._restart_job, RESTART, "Restart a batch job.", RestartArgs),
        ]

    @property
    def _deploy_v1(self) -> BaseTool:
        return _tool(lambda service, env, strategy: self._deploy(service, env, strategy), DEPLOY,
                     "Deploy a service to an environment.", DeployArgsV1)  # fmt: skip

    @property
    def _deploy_v2(self) -> BaseTool:
        return _tool(lambda service, environment, strategy: self._deploy(service, environment, strategy), DEPLOY,
                     "Deploy a service to an environment.", DeployArgsV2)  # fmt: skip

    def _flake(self, what: str) -> None:
        if self._flaky.random() < self.config.flaky_rate:
            raise ToolException(f"{what} timed out, try again")

    def _needed(self) -> None:
        if self._call_id is not None:
            self.state.needed_calls.append(self._call_id)

    def _run_migration(self, service: str) -> str:
        self._flake("migration runner")
        task = self.state.task
        if service == task.service and not self.state.migrated:
            self.state.migrated = True
            if task.kind == "deploy" and self.rules[service].pending_migration:
                self._needed()
        pending = self.rules.get(service) and self.rules[service].pending_migration
        return f"applied pending migrations of {service}" if pending else f"no pending migrations for {service}"

    def _request_approval(self, service: str, env: str) -> str:
        self._flake("change board")
        task = self.state.task
        if service == task.service and env == task.env and not self.state.approved:
            self.state.approved = True
            if task.kind == "deploy" and self.approval_required(task):
                self._needed()
        return f"change approved for {service} in {env}"

    def _drain_queue(self, service: str) -> str:
        task = self.state.task
        if service == task.service and not self.state.drained:
            self.state.drained = True
            if task.kind == "recover" and self.rules[service].queue_backed:
                self._needed()
        return f"drained the work queue of {service}"

    def _read_logs(self, service: str) -> str:
        return f"last log lines of {service}: nothing unusual"

    def _check_oncall(self, team: str) -> str:
        return f"on call for {team}: alex"

    def _list_incidents(self, hours: int) -> str:
        return f"no open incidents in the last {hours} hours"

    def _get_metric(self, service: str, metric: str) -> str:
        return f"{metric} of {service} is within its usual range"

    def _deploy(self, service: str, env: str, strategy: str) -> str:
        task, state = self.state.task, self.state
        rules = self.rules.get(service)
        ok = (
            task.kind == "deploy"
            and service == task.service
            and env == task.env
            and rules is not None
            and (state.migrated or not rules.pending_migration)
            and (state.approved or not self.approval_required(task))
            and strategy == rules.strategy
        )
        state.terminal_ok = ok
        if not ok:
            state.failure = _why(
                ("wrong target", task.kind != "deploy" or service != task.service or env != task.env or rules is None),
                ("no migration", rules is not None and rules.pending_migration and not state.migrated),
                ("no approval", self.approval_required(task) and not state.approved),
                ("wrong strategy", rules is not None and strategy != rules.strategy),
            )
            raise ToolException(f"deploy of {service} to {env} failed: health checks did not pass")
        self._needed()
        return f"deployed {service} to {env} ({strategy})"

    def _restart_job(self, service: str, job: str, mode: str) -> str:
        task, state = self.state.task, self.state
        name = job
        rules = self.rules.get(service)
        ok = (
            task.kind == "recover"
            and service == task.service
            and name == task.job
            and rules is not None
            and (state.drained or not rules.queue_backed)
            and mode == rules.restart_mode
        )
        state.terminal_ok = ok
        if not ok:
            state.failure = _why(
                ("wrong target", task.kind != "recover" or service != task.service or name != task.job or rules is None),
                ("queue not drained", rules is not None and rules.queue_backed and not state.drained),
                ("wrong mode", rules is not None and mode != rules.restart_mode),
            )
            raise ToolException(f"job {job} of {service} did not come back")
        self._needed()
        return f"job {job} of {service} is running again"


def _why(*reasons: tuple[str, bool]) -> str:
    return ", ".join(name for name, applies in reasons if applies) or "unknown"


def _tool(function: Callable[..., str], name: str, description: str, schema: type[BaseModel]) -> BaseTool:
    tool = StructuredTool.from_function(func=function, name=name, description=description, args_schema=schema)
    # Errors come back to the agent as an error ToolMessage (status="error"), as in an agent loop,
    # instead of aborting the run: both tool errors and arguments that no longer fit the schema.
    tool.handle_tool_error = True
    tool.handle_validation_error = True
    return tool
