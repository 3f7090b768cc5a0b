"""The memories the same fixed agent runs with (same seeds, same worlds).

* :class:`NoMemory` — nothing remembered: the agent explores every time.
* :class:`NaiveVectorMemory` — a plain Chroma collection on the same vectors: each successful
  episode is stored under its task text with its calls; advice = the calls of the single most
  similar past success, with the values of that task's fields replaced by this task's (what
  a few-shot "similar example" memory does). It never learns from failures and knows no drift.
* :class:`PlanTable` — drift-blind: the last successful plan per (task kind, entity), values
  of the task's fields substituted; a plan that fails is dropped (the agent explores again).
  It knows nothing of schema changes beyond that failure.
* :class:`DriftAwareTable` — a reference: the same table, its remembered calls migrated to the
  tools on offer (renamed and dropped parameters), as if told about each schema change.
* :class:`DeltaCoreMemory` — DeltaCore through its public API only, the way a framework user
  (or an adapter) wires it: ``observe_tools`` with the tools on offer, the user's task message
  ingested on the user channel with ``meta["task"]``, ``recall_plans(task, tools)``, each
  tool call and its result ingested as events (``meta["error"]`` carrying the exception type
  and message on failure, ``kind`` left to the engine), and ``record_outcome``. The agent
  follows the best plan when ``probability >= FOLLOW_AT``.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _selflearn.policy import FOLLOW_AT, Advice, Call, Episode, Step
from _selflearn.world import Task

AGENT_ID = "bench-agent"


def _stored(result: Any) -> None:
    """A rejected event would silently change what the engine learns from: fail loudly."""
    if result.rejected:
        raise RuntimeError(f"DeltaCore rejected benchmark events: {result.rejected}")


class NoMemory:
    name = "none"

    def start(self, task: Task, specs: list[dict[str, Any]], episode_id: str) -> None:
        pass

    def advise(self, task: Task, specs: list[dict[str, Any]]) -> Advice | None:
        return None

    def step(self, episode: Episode, call: Call) -> None:
        pass

    def finish(self, episode: Episode) -> None:
        pass

    def close(self) -> None:
        pass


def _substitute(
    calls: list[dict[str, Any]], past_fields: dict[str, Any], task: Task
) -> list[Step]:
    swap = {
        v: task.fields[k]
        for k, v in past_fields.items()
        if k in task.fields and isinstance(v, str)
    }
    return [
        Step(
            c["tool"],
            {
                k: swap.get(v, v) if isinstance(v, str) else v
                for k, v in c["args"].items()
            },
        )
        for c in calls
    ]


def _executed(episode: Episode) -> list[dict[str, Any]]:
    """The plan's steps that went through (one per step index)."""
    seen, out = set(), []
    for call in episode.calls:
        if call.error is None and call.step_index not in seen:
            seen.add(call.step_index)
            out.append({"tool": call.step.tool, "args": call.step.args})
    return out


class NaiveVectorMemory(NoMemory):
    name = "naive"

    def __init__(self, embedder: Any) -> None:
        import chromadb

        self.embedder = embedder
        self.client = chromadb.EphemeralClient()
        self.collection = self.client.create_collection(
            f"naive-{uuid.uuid4().hex}", metadata={"hnsw:space": "cosine"}
        )

    def advise(self, task: Task, specs: list[dict[str, Any]]) -> Advice | None:
        if self.collection.count() == 0:
            return None
        vector = [float(x) for x in self.embedder([task.text])[0]]
        hit = self.collection.query(
            query_embeddings=[vector], n_results=1, include=["metadatas"]
        )
        meta = hit["metadatas"][0][0]
        return Advice(
            _substitute(json.loads(meta["calls"]), json.loads(meta["fields"]), task)
        )

    def finish(self, episode: Episode) -> None:
        if not episode.success:
            return
        vector = [float(x) for x in self.embedder([episode.task.text])[0]]
        meta = {
            "calls": json.dumps(_executed(episode)),
            "fields": json.dumps(episode.task.fields),
        }
        self.collection.add(
            ids=[episode.episode_id],
            embeddings=[vector],
            documents=[episode.task.text],
            metadatas=[meta],
        )

    def close(self) -> None:
        self.client.delete_collection(self.collection.name)


class PlanTable(NoMemory):
    name = "table"

    def __init__(self) -> None:
        self.table: dict[
            tuple[str, str], tuple[list[dict[str, Any]], dict[str, Any]]
        ] = {}

    def advise(self, task: Task, specs: list[dict[str, Any]]) -> Advice | None:
        entry = self.table.get((task.kind, task.entity))
        return None if entry is None else Advice(_substitute(entry[0], entry[1], task))

    def finish(self, episode: Episode) -> None:
        key = (episode.task.kind, episode.task.entity)
        if episode.success:
            self.table[key] = (_executed(episode), dict(episode.task.fields))
        elif episode.followed:
            self.table.pop(key, None)


class DriftAwareTable(PlanTable):
    """Reference: :class:`PlanTable` whose remembered calls are migrated to the tools on offer
    (an argument the tool no longer takes is renamed to the one required parameter the call
    lacks, or dropped when there is none), as a memory told about each schema change would."""

    name = "reference"

    def advise(self, task: Task, specs: list[dict[str, Any]]) -> Advice | None:
        advice = super().advise(task, specs)
        if advice is None:
            return None
        by_name = {spec["name"]: spec["parameters"] for spec in specs}
        steps = []
        for step in advice.steps:
            params = by_name.get(step.tool)
            if params is None:
                continue
            args = {k: v for k, v in step.args.items() if k in params["properties"]}
            missing = [p for p in params.get("required", ()) if p not in args]
            stale = [k for k in step.args if k not in params["properties"]]
            if len(missing) == 1 and len(stale) == 1:
                args[missing[0]] = step.args[stale[0]]
            steps.append(Step(step.tool, args))
        return Advice(steps)


class DeltaCoreMemory(NoMemory):
    name = "deltacore"

    def __init__(self, embedder: Any, folder: Path, writes: str = "step", consolidate_every: int = 0) -> None:
        from deltacore import DeltaCore

        self.memory = DeltaCore.open(folder, embedder=embedder)
        self.consolidate_every = consolidate_every
        """``N > 0``: the store runs ``consolidate()`` after every N-th episode (the "with
        schemas" mode; the policy is the same, only the store sleeps)."""
        self.finished = 0
        self.cycles: list[dict[str, Any]] = []
        self.writes = writes
        """``"step"``: each call and each result ingested as it happens (an adapter's hooks);
        ``"episode"``: the episode's steps buffered and ingested in one batch before the outcome."""
        self.pending: list[tuple[list[dict[str, Any]], str]] = []
        self.specs: dict[str, dict[str, Any]] = {}
        self.last_plans: list[Any] = []

    def start(self, task: Task, specs: list[dict[str, Any]], episode_id: str) -> None:
        self.episode_id = episode_id
        self.specs = {spec["name"]: spec for spec in specs}
        self.memory.observe_tools(specs, source="bench:agent")
        _stored(
            self.memory.ingest(
                [
                    {
                        "id": f"{episode_id}:task",
                        "kind": "message",
                        "role": "user",
                        "text": task.text,
                        "source": "user:bench",
                        "agent_id": AGENT_ID,
                        "episode_id": episode_id,
                        "meta": {"task": task.meta()},
                    }
                ],
                channel="user",
            )
        )

    def advise(self, task: Task, specs: list[dict[str, Any]]) -> Advice | None:
        plans = self.memory.recall_plans(
            task.query(), specs, agent_id=AGENT_ID, top_k=3
        )
        self.last_plans = plans
        if not plans or plans[0].probability < FOLLOW_AT:
            return None
        best = plans[0]
        return Advice(
            [Step(s.tool, dict(s.args)) for s in best.steps],
            probability=float(best.probability),
            credit=[float(s.credit) for s in best.steps],
        )

    def step(self, episode: Episode, call: Call) -> None:
        # As the framework adapters write a step: the call on the agent channel when it is made,
        # its result (or error) on the tool channel when it returns; the result's parent is the call.
        call_event = f"{self.episode_id}:{call.call_id}:call"
        now = datetime.now(
            UTC
        )  # when it happened, also when the write is buffered to the episode's end
        spec = self.specs.get(call.step.tool)
        args = dict(call.step.args)
        self._write(
            [
                {
                    "id": call_event,
                    "kind": "tool_call",
                    "ts": now,
                    "tool_name": call.step.tool,
                    "tool_args": args,
                    "tool_schema": spec["parameters"] if spec else None,
                    "text": f"{call.step.tool}({json.dumps(args, sort_keys=True)})",
                    "role": "assistant",
                    "source": "agent:bench",
                    "agent_id": AGENT_ID,
                    "episode_id": self.episode_id,
                    "parent_ids": [f"{self.episode_id}:task"],
                }
            ],
            "agent",
        )
        result: dict[str, Any] = {
            "id": f"{self.episode_id}:{call.call_id}:result",
            "kind": "tool_result",
            "ts": now,
            "tool_name": call.step.tool,
            "text": call.output,
            "role": "tool",
            "source": f"tool:{call.step.tool}",
            "agent_id": AGENT_ID,
            "episode_id": self.episode_id,
            "parent_ids": [call_event],
        }
        if call.error is not None:
            result["meta"] = {
                "error": {
                    "kind": None,
                    "type": type(call.error).__name__,
                    "message": str(call.error),
                }
            }
        self._write([result], "tool")

    def _write(self, events: list[dict[str, Any]], channel: str) -> None:
        if self.writes == "step":
            _stored(self.memory.ingest(events, channel=channel))
        else:
            self.pending.append((events, channel))

    def finish(self, episode: Episode) -> None:
        by_channel: dict[str, list[dict[str, Any]]] = {}
        for events, channel in self.pending:
            by_channel.setdefault(channel, []).extend(events)
        for channel, events in by_channel.items():
            _stored(self.memory.ingest(events, channel=channel))
        self.pending = []
        self.memory.record_outcome(self.episode_id, 1.0 if episode.success else -1.0)
        self.finished += 1
        if self.consolidate_every and self.finished % self.consolidate_every == 0:
            report = self.memory.consolidate()
            self.cycles.append(
                {
                    "episode": self.finished,
                    "merged": report.merged,
                    "hidden": report.originals_hidden,
                    "pruned": report.pruned,
                    "schemas_created": report.schemas_created,
                    "schemas_updated": report.schemas_updated,
                    "schemas_merged": report.schemas_merged,
                    "low_fidelity": len(report.low_fidelity_schemas),
                    "rolled_back": report.rolled_back,
                }
            )

    def close(self) -> None:
        self.memory.close()
