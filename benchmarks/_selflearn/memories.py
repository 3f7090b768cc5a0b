"""The three memories the same agent is run with.

* :class:`NoMemory` — nothing is remembered: the agent explores every time.
* :class:`NaiveMemory` — a plain vector memory: every episode is stored as one document (task,
  calls with their outputs, how it ended), embedded with the same embedder; recall is the single
  most similar document. It keeps what happened (the agent can read whether that episode
  worked) but ranks by similarity only and never learns from outcomes.
* :class:`DeltaCoreMemory` — DeltaCore through its LangChain callback handler: the handler
  records every call (with the tool's argument schema) as the run happens, the agent asks
  :meth:`DeltaCore.recall_decisions` what worked and what failed for similar tasks, tells the engine which
  remembered decisions it reused (:meth:`DeltaCore.record_retrieval`) and reports the terminal
  reward with :meth:`DeltaCore.record_outcome`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from _selflearn.policy import Advice, Choice, Executed, Step
from _selflearn.world import Task, World, parse_task


class NoMemory:
    name = "no memory"

    def callbacks(self, world: World) -> list[Any]:
        return []

    def advise(self, task: Task, world: World) -> list[Advice]:
        return []

    def reused(self, choice: Choice, run_id: str, task: Task) -> None:
        pass

    def learn(self, executed: Executed) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        pass


class NaiveMemory(NoMemory):
    name = "naive memory"

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.vectors: list[np.ndarray] = []
        self.episodes: list[tuple[Task, tuple[Step, ...], bool]] = []

    def advise(self, task: Task, world: World) -> list[Advice]:
        if not self.vectors:
            return []
        query = np.asarray(self.embedder([task.text])[0], dtype=np.float32)
        matrix = np.vstack(self.vectors)
        similarity = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query) + 1e-12)
        best = len(similarity) - 1 - int(np.argmax(similarity[::-1]))  # ties: the most recent
        past, steps, success = self.episodes[best]
        # The agent reads the episode: each of its calls, and how the episode ended.
        return [Advice(past, step, 1.0 if success else -1.0, float(similarity[best])) for step in steps]

    def learn(self, executed: Executed) -> dict[str, Any]:
        lines = [f"task: {executed.task.text}"]
        for _, step, output, errored in executed.calls:
            lines.append(f"{step.tool}({json.dumps(step.args, sort_keys=True)}) -> {'error: ' if errored else ''}{output}")
        lines.append("outcome: " + ("succeeded" if executed.success else "failed"))
        self.vectors.append(np.asarray(self.embedder(["\n".join(lines)])[0], dtype=np.float32))
        self.episodes.append((executed.task, tuple(step for _, step, _, _ in executed.calls), executed.success))
        return {}


class DeltaCoreMemory(NoMemory):
    name = "DeltaCore"

    TOP_K = 100
    """Decisions asked for per task (that worked, and as many that failed)."""

    def __init__(self, embedder: Any, folder: Path) -> None:
        from deltacore import DeltaCore

        self.memory = DeltaCore.open(folder, embedder=embedder)
        self.agent_id = "ops-agent"

    def callbacks(self, world: World) -> list[Any]:
        from deltacore.adapters.langchain import DeltaCoreCallbackHandler

        tools = world.tools()
        # The tools on offer this episode: where the engine notices a changed schema.
        self.memory.observe_tools(tools, source="langchain:ops-agent")
        return [DeltaCoreCallbackHandler(self.memory, tools=tools, agent_id=self.agent_id)]

    def advise(self, task: Task, world: World) -> list[Advice]:
        decisions = self.memory.recall_decisions(task.text, agent_id=self.agent_id, top_k=self.TOP_K)
        advice = []
        for decision in decisions:
            past = parse_task(decision.trigger or "")
            if past is None or not decision.tool:
                continue
            stale = decision.schema_current is False and not decision.migrated
            advice.append(
                Advice(
                    past,
                    Step(decision.tool, dict(decision.args or {})),
                    float(decision.expected_reward),
                    float(decision.similarity),
                    confidence=float(decision.confidence),
                    schema_ok=False if stale else None,
                    evidence_id=decision.event_id,
                )
            )
        return advice

    def reused(self, choice: Choice, run_id: str, task: Task) -> None:
        ids = list(dict.fromkeys(item.evidence_id for item in choice.evidence if item.evidence_id))
        if ids:
            # The remembered decisions the agent acted on learn from this episode's outcome too.
            self.memory.record_retrieval(ids, episode_id=run_id, query=task.text)

    def learn(self, executed: Executed) -> dict[str, Any]:
        report = self.memory.record_outcome(executed.run_id, 1.0 if executed.success else -1.0)
        return {"credit": credit_split(self.memory, executed, report)}

    def close(self) -> None:
        self.memory.close()


def credit_split(memory: Any, executed: Executed, report: Any) -> dict[str, float]:
    """Credit weight the engine gave to needed vs unneeded tool steps (calls and their results).

    Ground truth is the world's: a call is needed when the hidden rules required it (the
    terminal call, a migration the service had pending, a required approval, a required drain);
    a failed attempt, an irrelevant tool or a call nothing required is not.
    """
    events = memory.events(episode_id=executed.run_id, limit=1000)
    call_of: dict[str, str] = {}  # event id -> tool_call_id
    for event in events:
        if event.kind.value == "tool_call":
            call_of[event.id] = str((event.meta or {}).get("tool_call_id") or "")
    for event in events:
        if event.kind.value == "tool_result" and event.parent_ids:
            call_of[event.id] = call_of.get(event.parent_ids[0], "")
    needed = set(executed.needed_calls)
    split = {"needed": 0.0, "unneeded": 0.0}
    for update in report.updates:
        if update.index is None or update.event_id not in call_of:
            continue  # retrieved memories, the task message and the outcome are not tool steps
        split["needed" if call_of[update.event_id] in needed else "unneeded"] += abs(update.weight)
    return split
