"""The HELD-OUT world ("data") of ``benchmarks/self_learning.py``: different tools, task kinds,
entities and hidden rules, never used to tune the engine.

A data platform. Three task kinds over 12 connectors, 10 tables and 10 datasets:

* "sync connector C" -> ``sync_connector(connector, mode, region)``. **Entity-specific rule**:
  Postgres connectors need ``refresh_credentials(connector)`` first (no other engine does);
  the ``mode`` that works follows the connector's engine (incremental for postgres / kafka,
  full for mysql / s3). The connector's engine is in the task's attributes.
* "backfill table T from A to B" -> ``run_backfill(table, start, end, chunk)`` with random
  dates (A, B in the task's fields): gold-tier tables need ``snapshot_table(table)`` first;
  ``chunk`` must be "day" for gold tables and "week" otherwise.
* "grant P R access to dataset D" -> ``grant_access(principal, role, dataset)``: datasets
  tagged ``pii`` need ``request_review(dataset, principal)`` first; after the **hidden-rule
  change** every "writer" grant needs a review too.

Every task ends with a read-only ``check_status(target)`` (``readOnlyHint``) that an agent
typically calls after acting: it always succeeds and never matters (credit must not go to it
for being last). Distractors: ``describe_table``, ``list_datasets`` (read-only) and
``notify_channel`` (a write that never matters). ``refresh_credentials``, ``snapshot_table``
and ``request_review`` fail transiently (timeouts, 429 rate limits, 15 % in all).

**Tool-schema changes mid-run:** at 30 % ``grant_access``'s ``principal`` is renamed
``member``; at 45 % ``run_backfill`` gains ``priority`` (added, with a default "normal"); at
55 % ``sync_connector`` drops ``region`` (a call that still passes it is rejected). At 70 %
the hidden rule changes (above).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, ClassVar

from _selflearn.world import Param, Task, Tool, World

CONNECTORS = [
    ("orders-pg", "postgres"), ("crm-mysql", "mysql"), ("events-kafka", "kafka"), ("logs-s3", "s3"),
    ("billing-pg", "postgres"), ("catalog-mysql", "mysql"), ("clicks-kafka", "kafka"), ("archive-s3", "s3"),
    ("users-pg", "postgres"), ("support-mysql", "mysql"), ("metrics-kafka", "kafka"), ("exports-s3", "s3"),
]  # fmt: skip
TABLES = [
    "orders_daily",
    "sessions",
    "invoices",
    "inventory_snap",
    "page_views",
    "refunds",
    "shipments",
    "ad_spend",
    "churn_scores",
    "payouts",
]
DATASETS = [
    "customer_profiles",
    "web_analytics",
    "finance_ledger",
    "marketing_leads",
    "product_catalog",
    "support_tickets",
    "hr_records",
    "search_logs",
    "partner_feeds",
    "fraud_signals",
]
PRINCIPALS = ["alice@corp", "bob@corp", "svc-etl", "carol@corp", "svc-bi", "dave@corp"]
ROLES = ("reader", "writer")
CHANNELS = ("#data-ops", "#alerts", "#general")


@dataclass(frozen=True)
class Truth:
    tier: dict[str, str]
    pii: dict[str, bool]


class DataWorld(World):
    """The held-out world (see the module docstring)."""

    name = "heldout"
    CHANGES: ClassVar[dict[str, tuple[str, float]]] = {
        "schema: grant_access.principal renamed member": ("schema", 0.30),
        "schema: run_backfill gained priority (default)": ("schema", 0.45),
        "schema: sync_connector dropped region": ("schema", 0.55),
        "rule: writer grants need a review": ("rule", 0.70),
    }
    GOALS: ClassVar[dict[str, str]] = {
        "sync": "sync_connector",
        "backfill": "run_backfill",
        "grant": "grant_access",
    }
    RENAME, ADDED, DROPPED, RULE = CHANGES

    def _setup(self) -> None:
        rng = self.rng
        n = max(3, self.config.entities * 3 // 4)
        self.connectors = dict(CONNECTORS[:n])
        self.tables = TABLES[: max(2, n * 10 // 12)]
        self.datasets = DATASETS[: max(2, n * 10 // 12)]
        self.truth = Truth(
            tier={t: "gold" if rng.random() < 0.4 else "silver" for t in self.tables},
            pii={d: rng.random() < 0.4 for d in self.datasets},
        )

    def tasks(self) -> list[Task]:
        rng, out = self._task_rng, []
        start0 = dt.date(2026, 1, 1)
        for _ in range(self.config.episodes):
            roll = rng.random()
            if roll < 0.35:
                c = rng.choice(list(self.connectors))
                engine = self.connectors[c]
                out.append(
                    Task(
                        "sync",
                        c,
                        f"sync connector {c}",
                        {"connector": c},
                        (engine,),
                        {"engine": engine},
                    )
                )
            elif roll < 0.65:
                t = rng.choice(self.tables)
                start = start0 + dt.timedelta(days=rng.randrange(300))
                end = start + dt.timedelta(days=rng.randrange(1, 30))
                tier = self.truth.tier[t]
                fields = {
                    "table": t,
                    "start": start.isoformat(),
                    "end": end.isoformat(),
                }
                out.append(
                    Task(
                        "backfill",
                        t,
                        f"backfill table {t} from {start} to {end}",
                        fields,
                        (tier,),
                        {"tier": tier},
                    )
                )
            else:
                d, p, r = (
                    rng.choice(self.datasets),
                    rng.choice(PRINCIPALS),
                    rng.choice(ROLES),
                )
                tags = ("pii",) if self.truth.pii[d] else ()
                out.append(
                    Task(
                        "grant",
                        d,
                        f"grant {p} {r} access to dataset {d}",
                        {"principal": p, "role": r, "dataset": d},
                        tags,
                        {"pii": self.truth.pii[d]},
                    )
                )
        return out

    def current_tools(self) -> list[Tool]:
        who = "member" if self.changed(self.RENAME) else "principal"
        backfill = [
            Param("table"),
            Param("start"),
            Param("end"),
            Param("chunk", enum=("day", "week")),
        ]
        if self.changed(self.ADDED):
            backfill.append(
                Param(
                    "priority",
                    enum=("low", "normal", "high"),
                    default="normal",
                    required=False,
                )
            )
        sync = [Param("connector"), Param("mode", enum=("full", "incremental"))]
        if not self.changed(self.DROPPED):
            sync.append(Param("region", enum=("eu", "us")))
        return [
            Tool(
                "refresh_credentials",
                "Rotate and refresh a connector's source credentials.",
                (Param("connector"),),
            ),
            Tool(
                "snapshot_table",
                "Take a restorable snapshot of a table.",
                (Param("table"),),
            ),
            Tool(
                "request_review",
                "Ask the data steward to review an access request.",
                (Param("dataset"), Param("principal")),
            ),
            Tool(
                "notify_channel",
                "Post a note to a chat channel.",
                (Param("channel", enum=CHANNELS),),
            ),
            Tool(
                "describe_table",
                "Columns and partitions of a table.",
                (Param("table"),),
                read_only=True,
            ),
            Tool(
                "list_datasets", "Datasets visible to the platform.", (), read_only=True
            ),
            Tool("sync_connector", "Run a connector's sync now.", tuple(sync)),
            Tool(
                "run_backfill", "Recompute a table over a date range.", tuple(backfill)
            ),
            Tool(
                "grant_access",
                "Grant a principal a role on a dataset.",
                (Param(who), Param("role", enum=ROLES), Param("dataset")),
            ),
            Tool(
                "check_status",
                "Status of the platform's latest operation on a target.",
                (Param("target"),),
                read_only=True,
            ),
        ]

    def _review_required(self, task: Task) -> bool:
        return self.truth.pii[task.entity] or (
            self.changed(self.RULE) and task.fields["role"] == "writer"
        )

    def _run(self, tool: str, args: dict[str, Any], call_id: str) -> str:
        task, done = self.state.task, self.state.done
        if tool == "refresh_credentials":
            self._flake("credential vault")
            if task.kind == "sync" and args["connector"] == task.entity:
                self._precondition(
                    "refreshed", call_id, self.connectors[task.entity] == "postgres"
                )
            return f"credentials of {args['connector']} refreshed"
        if tool == "snapshot_table":
            self._flake("snapshot service")
            if task.kind == "backfill" and args["table"] == task.entity:
                self._precondition(
                    "snapshot", call_id, self.truth.tier[task.entity] == "gold"
                )
            return f"snapshot of {args['table']} taken"
        if tool == "request_review":
            self._flake("steward queue")
            if (
                task.kind == "grant"
                and args["dataset"] == task.entity
                and args["principal"] == task.fields["principal"]
            ):
                self._precondition("reviewed", call_id, self._review_required(task))
            return f"review of {args['principal']} on {args['dataset']} approved"
        if tool == "sync_connector":
            engine = self.connectors.get(args["connector"])
            ok = (
                task.kind == "sync"
                and args["connector"] == task.entity
                and (engine != "postgres" or "refreshed" in done)
                and args["mode"]
                == ("incremental" if engine in ("postgres", "kafka") else "full")
            )
            self._goal(
                ok,
                call_id,
                f"sync of {args['connector']} failed: source rejected the session",
            )
            return f"sync of {args['connector']} started"
        if tool == "run_backfill":
            gold = (
                task.kind == "backfill" and self.truth.tier.get(args["table"]) == "gold"
            )
            ok = (
                task.kind == "backfill"
                and args["table"] == task.entity
                and args["start"] == task.fields["start"]
                and args["end"] == task.fields["end"]
                and (not gold or "snapshot" in done)
                and args["chunk"] == ("day" if gold else "week")
            )
            self._goal(
                ok,
                call_id,
                f"backfill of {args['table']} aborted: job failed validation",
            )
            return f"backfill of {args['table']} queued"
        if tool == "grant_access":
            who = args.get("member", args.get("principal"))
            ok = (
                task.kind == "grant"
                and args["dataset"] == task.entity
                and who == task.fields["principal"]
                and args["role"] == task.fields["role"]
                and ("reviewed" in done or not self._review_required(task))
            )
            self._goal(ok, call_id, f"grant on {args['dataset']} refused by policy")
            return f"{who} is now {args['role']} on {args['dataset']}"
        if tool == "check_status":
            return f"latest operation on {args['target']}: " + (
                "succeeded" if self.state.goal_ok else "failed"
            )
        if tool == "list_datasets":
            return ", ".join(self.datasets)
        return f"{tool}: ok"
