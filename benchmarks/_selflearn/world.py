"""The seeded, LLM-free tool worlds of ``benchmarks/self_learning.py``: shared machinery and the
TUNING world ("ops").

A world hands out a task stream, the tools currently on offer (MCP-style specs: ``name``,
JSON-schema ``parameters``, optional ``annotations.readOnlyHint``) and executes calls. A call
whose arguments do not fit the current schema raises ``TypeError`` / ``ValueError`` (what a
framework's argument validation raises); a tool failure raises :class:`ToolError` with an
uninformative message; flaky tools raise ``TimeoutError`` or :class:`RateLimitError`. The
agent is never told the hidden rules: only the goal call's outcome says anything.

The world also knows, as ground truth for credit accuracy, which calls its hidden rules
required (:attr:`World.needed`): the goal call and each precondition the rules demanded.

**Ops world (tuning).** "deploy <service> to <env>" (70 %) and "recover the <job> job of
<service>" over 16 services, each with hidden rules: services with a pending migration need
``run_migration`` before ``deploy``; production needs ``request_approval`` (after the **rule
change** — a change freeze — staging needs one too); each service has the one rollout
``strategy`` that works (canary / rolling); queue-backed services need ``drain_queue`` before
``restart_job``, which needs the service's ``mode`` (graceful for stateful services, immediate
for the rest). Irrelevant tools (``read_logs``, ``check_oncall``, ``list_incidents``,
``get_metric``) are mixed in; ``run_migration`` and ``request_approval`` time out at random
(15 %); at the **schema change** ``deploy``'s parameter ``env`` is renamed ``environment``.
Entities carry attributes (``stateful``, ``queue``, ``team``) a memory may generalise over.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar


class ToolError(RuntimeError):
    """A tool reports failure (permanent: retrying the same call does not help)."""


class RateLimitError(RuntimeError):
    """429: too many requests (transient)."""


@dataclass(frozen=True)
class Task:
    kind: str
    entity: str
    text: str
    fields: dict[str, Any]
    tags: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        """The structured task as a framework would attach it to the user message."""
        return {
            "kind": self.kind,
            "fields": dict(self.fields),
            "entity": self.entity,
            "tags": list(self.tags),
            "attributes": dict(self.attributes),
        }

    def query(self) -> dict[str, Any]:
        return {"text": self.text, **self.meta()}


@dataclass(frozen=True)
class Param:
    name: str
    type: str = "string"  # "string" | "integer"
    enum: tuple[Any, ...] | None = None
    default: Any = None
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    read_only: bool = False

    def spec(self) -> dict[str, Any]:
        """An MCP-style tool spec (what ``observe_tools`` / ``recall_plans`` are given)."""
        properties: dict[str, Any] = {}
        for p in self.params:
            prop: dict[str, Any] = {"type": p.type}
            if p.enum is not None:
                prop["enum"] = list(p.enum)
            if not p.required:
                prop["default"] = p.default
            if p.description:
                prop["description"] = p.description
            properties[p.name] = prop
        spec: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [p.name for p in self.params if p.required],
            },
        }
        if self.read_only:
            spec["annotations"] = {"readOnlyHint": True}
        return spec

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments with defaults filled, or the error argument validation raises."""
        known = {p.name: p for p in self.params}
        for name in args:
            if name not in known:
                raise TypeError(
                    f"{self.name}() got an unexpected keyword argument '{name}'"
                )
        out = {}
        for p in self.params:
            if p.name not in args:
                if p.required:
                    raise TypeError(
                        f"{self.name}() missing required argument '{p.name}'"
                    )
                out[p.name] = p.default
                continue
            value = args[p.name]
            if p.enum is not None and value not in p.enum:
                raise ValueError(
                    f"{self.name}: invalid value {value!r} for '{p.name}' (allowed: {list(p.enum)})"
                )
            out[p.name] = value
        return out


@dataclass
class EpisodeState:
    task: Task
    done: set[str] = field(default_factory=set)
    """Preconditions satisfied so far this episode."""
    goal_ok: bool = False
    needed: list[str] = field(default_factory=list)
    """Call ids the hidden rules required (ground truth for credit accuracy)."""


@dataclass
class WorldConfig:
    episodes: int = 300
    flaky_rate: float = 0.15
    entities: int = 16
    changes: dict[str, int] = field(default_factory=dict)
    """Change name -> episode from which it holds (filled by the world from ``fractions``)."""


class World:
    """Base: task stream, tools on offer, call execution and ground truth. Subclasses define
    the entities, the tools per episode and the hidden rules (:meth:`_run`)."""

    name = "base"
    CHANGES: ClassVar[dict[str, tuple[str, float]]] = {}
    """Change name -> (kind: "schema" | "rule", fraction of the run at which it happens)."""
    GOALS: ClassVar[dict[str, str]] = {}
    """Task kind -> the tool that accomplishes it (what an LLM reading the task would pick)."""

    def __init__(self, seed: int, config: WorldConfig) -> None:
        self.config = config
        self.seed = seed
        if not config.changes:
            config.changes = {
                name: int(config.episodes * frac)
                for name, (_, frac) in self.CHANGES.items()
            }
        self._flaky = random.Random(f"flaky-{self.name}-{seed}")
        self._task_rng = random.Random(f"tasks-{self.name}-{seed}")
        self.rng = random.Random(f"world-{self.name}-{seed}")
        self.episode = 0
        self.state: EpisodeState | None = None
        self._setup()

    def _setup(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def tasks(self) -> list[Task]:  # pragma: no cover - abstract
        raise NotImplementedError

    def current_tools(self) -> list[Tool]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _run(
        self, tool: str, args: dict[str, Any], call_id: str
    ) -> str:  # pragma: no cover
        raise NotImplementedError

    def changed(self, name: str) -> bool:
        return self.episode >= self.config.changes[name]

    def tool_specs(self) -> list[dict[str, Any]]:
        return [tool.spec() for tool in self.current_tools()]

    def begin(self, episode: int, task: Task) -> None:
        self.episode = episode
        self.state = EpisodeState(task)

    def call(self, name: str, args: dict[str, Any], call_id: str) -> str:
        """Execute one call; raises what the tool (or argument validation) raises."""
        tools = {tool.name: tool for tool in self.current_tools()}
        if name not in tools:
            raise KeyError(f"unknown tool '{name}'")
        return self._run(name, tools[name].validate(dict(args)), call_id)

    def success(self) -> bool:
        return bool(self.state and self.state.goal_ok)

    # helpers for subclasses -------------------------------------------------------------------

    def _flake(self, what: str) -> None:
        roll = self._flaky.random()
        if roll < self.config.flaky_rate / 2:
            raise TimeoutError(f"{what} timed out after 30 s")
        if roll < self.config.flaky_rate:
            raise RateLimitError(
                f"{what}: 429 Too Many Requests, rate limit exceeded, retry later"
            )

    def _precondition(self, name: str, call_id: str, required: bool) -> None:
        """Mark a precondition done (once); a call the rules required counts as needed."""
        if name in self.state.done:
            return
        self.state.done.add(name)
        if required:
            self.state.needed.append(call_id)

    def _goal(self, ok: bool, call_id: str, error: str) -> None:
        if not ok:
            raise ToolError(error)
        self.state.goal_ok = True
        self.state.needed.append(call_id)


# ---- the ops world (tuning) ------------------------------------------------------------------------

SERVICES = [
    "billing-api", "auth-service", "search-indexer", "payments-gateway", "user-profile", "notification-worker",
    "inventory-db", "checkout-web", "recommendation-engine", "email-sender", "report-generator", "image-resizer",
    "session-cache", "audit-logger", "feature-flags", "order-router", "pricing-engine", "shipping-tracker",
    "fraud-detector", "analytics-pipeline", "ledger-service", "media-cdn", "chat-backend", "geo-locator",
]  # fmt: skip
ENVS = ("staging", "production")
JOBS = ("nightly-export", "reindex", "cleanup", "sync")
TEAMS = ("platform", "payments", "growth", "data")
METRICS = ("p99 latency", "error rate", "cpu usage")


@dataclass(frozen=True)
class ServiceRules:
    pending_migration: bool
    strategy: str
    queue_backed: bool
    restart_mode: str
    team: str


class OpsWorld(World):
    """The tuning world (see the module docstring)."""

    name = "ops"
    CHANGES: ClassVar[dict[str, tuple[str, float]]] = {
        "schema: deploy.env renamed environment": ("schema", 0.4),
        "rule: change freeze": ("rule", 2 / 3),
    }
    GOALS: ClassVar[dict[str, str]] = {"deploy": "deploy", "recover": "restart_job"}
    RENAME, FREEZE = CHANGES

    def _setup(self) -> None:
        rng = self.rng
        self.services = SERVICES[: self.config.entities]
        self.rules = {
            s: ServiceRules(
                pending_migration=rng.random() < 0.45,
                strategy="canary" if rng.random() < 0.4 else "rolling",
                queue_backed=rng.random() < 0.5,
                restart_mode="graceful" if rng.random() < 0.5 else "immediate",
                team=rng.choice(TEAMS),
            )
            for s in self.services
        }

    def tasks(self) -> list[Task]:
        rng, out = self._task_rng, []
        for _ in range(self.config.episodes):
            service = rng.choice(self.services)
            r = self.rules[service]
            attributes = {
                "stateful": r.restart_mode == "graceful",
                "queue": r.queue_backed,
                "team": r.team,
            }
            if rng.random() < 0.7:
                env = rng.choice(ENVS)
                out.append(
                    Task(
                        "deploy",
                        service,
                        f"deploy {service} to {env}",
                        {"service": service, "env": env},
                        (r.team,),
                        attributes,
                    )
                )
            else:
                job = rng.choice(JOBS)
                out.append(
                    Task(
                        "recover",
                        service,
                        f"recover the {job} job of {service}",
                        {"service": service, "job": job},
                        (r.team,),
                        attributes,
                    )
                )
        return out

    def current_tools(self) -> list[Tool]:
        svc = Param("service", description="service name")
        env_name = "environment" if self.changed(self.RENAME) else "env"
        return [
            Tool(
                "run_migration",
                "Apply the service's pending database migrations.",
                (svc,),
            ),
            Tool(
                "request_approval",
                "Ask the change board to approve a release.",
                (svc, Param("env")),
            ),
            Tool("drain_queue", "Drain the service's work queue.", (svc,)),
            Tool(
                "read_logs",
                "Read the service's latest log lines.",
                (svc,),
                read_only=True,
            ),
            Tool(
                "check_oncall",
                "Who is on call for a team.",
                (Param("team", enum=TEAMS),),
                read_only=True,
            ),
            Tool(
                "list_incidents",
                "Open incidents in a time window.",
                (Param("hours", "integer", enum=(6, 24, 48)),),
                read_only=True,
            ),
            Tool(
                "get_metric",
                "Read one metric of a service.",
                (svc, Param("metric", enum=METRICS)),
                read_only=True,
            ),
            Tool(
                "deploy",
                "Deploy a service to an environment.",
                (svc, Param(env_name), Param("strategy", enum=("rolling", "canary"))),
            ),
            Tool(
                "restart_job",
                "Restart a batch job.",
                (svc, Param("job"), Param("mode", enum=("graceful", "immediate"))),
            ),
        ]

    def _approval_required(self, task: Task) -> bool:
        return task.fields.get("env") == "production" or (
            self.changed(self.FREEZE) and task.fields.get("env") == "staging"
        )

    def _run(self, tool: str, args: dict[str, Any], call_id: str) -> str:
        task = self.state.task
        rules = self.rules.get(args.get("service", ""))
        mine = args.get("service") == task.entity
        if tool == "run_migration":
            self._flake("migration runner")
            if mine:
                self._precondition(
                    "migrated",
                    call_id,
                    task.kind == "deploy" and rules.pending_migration,
                )
            return f"migrations of {args['service']} are up to date"
        if tool == "request_approval":
            self._flake("change board")
            if mine and args["env"] == task.fields.get("env"):
                self._precondition(
                    "approved",
                    call_id,
                    task.kind == "deploy" and self._approval_required(task),
                )
            return f"change approved for {args['service']} in {args['env']}"
        if tool == "drain_queue":
            if mine:
                self._precondition(
                    "drained", call_id, task.kind == "recover" and rules.queue_backed
                )
            return f"drained the work queue of {args['service']}"
        if tool == "deploy":
            env = args.get("environment", args.get("env"))
            done = self.state.done
            ok = (
                task.kind == "deploy"
                and mine
                and env == task.fields["env"]
                and ("migrated" in done or not rules.pending_migration)
                and ("approved" in done or not self._approval_required(task))
                and args["strategy"] == rules.strategy
            )
            self._goal(
                ok,
                call_id,
                f"deploy of {args['service']} to {env} failed: health checks did not pass",
            )
            return f"deployed {args['service']} to {env}"
        if tool == "restart_job":
            ok = (
                task.kind == "recover"
                and mine
                and args["job"] == task.fields["job"]
                and ("drained" in self.state.done or not rules.queue_backed)
                and args["mode"] == rules.restart_mode
            )
            self._goal(
                ok, call_id, f"job {args['job']} of {args['service']} did not come back"
            )
            return f"job {args['job']} of {args['service']} is running again"
        return f"{tool}: nothing unusual"
