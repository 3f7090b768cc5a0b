"""Memory tools an agent calls itself, shared by every framework's tool wrappers.

Modelled on LangMem's ``manage_memory`` (``content``, ``action``: create / update / delete,
``id``) and ``search_memory`` (``query``, ``limit``), with ``recall_plans`` (``task``, ``limit``):
the plans the engine learned for tasks like this one. Each framework module wraps the two calls
below in its own tool class (LangChain ``StructuredTool``, AutoGen ``FunctionTool``, CrewAI
``BaseTool``, LlamaIndex ``FunctionTool``) and gets its ``memory_tools(store, ...)`` from
:func:`memory_tools_for`, so the signature and the toolbox are built in one place; the engine
does the work: ``add``, ``update`` (a new
version, the old one kept), ``delete`` and ``query``, in the toolbox's scope. Writes come in on
the ``agent`` channel, so the trust gateway screens them like any agent write.

A mistake of the model (no content, an unknown id, an id outside the toolbox's scope) is
answered as text the model reads and can act on, not raised: a raised error would end the run
in some frameworks and be swallowed in others.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._shared import ScopedAdapter, adapter_scope, renamed_store
from deltacore.errors import InvalidEventError, NotFoundError
from deltacore.model import Channel, EventKind, Scope

ACTIONS = ("create", "update", "delete")

MANAGE_DESCRIPTION = """Create, update or delete a persistent memory that carries over between conversations.
Proactively call this tool when you:
1. Identify a new USER preference.
2. Receive an explicit USER request to remember something or otherwise alter your behavior.
3. Are working and want to record important context.
4. Identify that an existing MEMORY is incorrect or outdated (update it with its id, or delete it).
Arguments: content (the memory, for create and update), action (create, update or delete), id (for update and delete)."""

SEARCH_DESCRIPTION = """Search your long-term memory for what you stored earlier (and what the conversation and tools recorded).
Arguments: query (what to look for), limit (how many memories, default 5).
Returns a JSON list of memories with their id (pass it to manage_memory to update or delete one)."""


PLANS_DESCRIPTION = """Recall the plans that worked (or failed) for tasks like this one, learned from earlier episodes.
Arguments: task (the task, in your words or the user's), limit (how many plans, default 3).
Returns a JSON list of plans, best first: the tool calls in order with their arguments filled for this task,
the probability that the plan succeeds, its evidence and its flags (failed, unstable, drifted, stale, prior)."""


# The tools' argument schemas, for the frameworks whose tools take a pydantic model (LangChain, CrewAI).
class ManageMemoryArgs(BaseModel):
    content: str | None = Field(default=None, description="the memory (for create and update)")
    action: Literal["create", "update", "delete"] = Field(default="create", description="what to do")
    id: str | None = Field(default=None, description="the memory's id (for update and delete)")


class SearchMemoryArgs(BaseModel):
    query: str = Field(description="what to look for")
    limit: int = Field(default=5, ge=1, le=50, description="how many memories")


class RecallPlansArgs(BaseModel):
    task: str = Field(description="the task to plan for")
    limit: int = Field(default=3, ge=1, le=10, description="how many plans")


class MemoryToolbox(ScopedAdapter):
    """The two tool calls over one store and scope; framework modules wrap them as tools.

    Args:
        store: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        scope: where memories are written and searched (tenant, agent, user; a session too if set).
        framework: names the writer in each memory's ``source`` (``"<framework>:manage_memory"``).
        actions: the ``manage_memory`` actions the agent may take.
    """

    def __init__(
        self, store: DeltaCore | AsyncDeltaCore, scope: Scope, framework: str, actions: Sequence[str] = ACTIONS
    ) -> None:
        self.store = store.sync if isinstance(store, AsyncDeltaCore) else store
        self.scope = scope
        self.framework = framework
        unknown = sorted(set(actions) - set(ACTIONS))
        if unknown:
            raise ValueError(f"actions: {unknown[0]!r} is not one of {', '.join(ACTIONS)}")
        self.actions = tuple(actions)

    def manage(self, content: str | None = None, action: str = "create", id: str | None = None) -> str:
        """``manage_memory``: what was done, as a sentence for the model."""
        if action not in self.actions:
            return f"error: action must be one of {', '.join(self.actions)}, got {action!r}"
        if action in ("create", "update") and not (content or "").strip():
            return f"error: {action} needs the memory's content"
        if action in ("update", "delete") and not id:
            return f"error: {action} needs the id of the memory (search_memory returns ids)"
        try:
            if action == "create":
                memory_id = self.store.add(
                    content or "", kind=EventKind.FACT, channel=Channel.AGENT, source=self._source(), **self.scope.fields()
                )
                return f"created memory {memory_id}"
            if not self._in_scope(id or ""):
                return f"error: no memory with id {id!r}"
            if action == "update":
                result = self.store.update(id or "", text=content, channel=Channel.AGENT, tenant=self.tenant)
                return f"updated memory {id}; its id is now {result.memory_id}"
            self.store.delete([id or ""], tenant=self.tenant)
            return f"deleted memory {id}"
        except InvalidEventError as exc:
            return f"error: {exc}"

    def search(self, query: str, limit: int = 5) -> str:
        """``search_memory``: a JSON list of memories, best first."""
        if not (query or "").strip():
            return "error: give a query"
        limit = min(max(int(limit), 1), 50)
        fields = {name: value for name, value in self.scope.fields().items() if name != "session_id"}
        packets = self.store.query(query, top_k=limit, **fields)
        return json.dumps(
            [
                {"id": p.id, "content": p.text, "kind": p.kind.value, "score": round(p.score, 4), "updated_at": p.ts.isoformat()}
                for p in packets
            ],
            ensure_ascii=False,
        )

    def recall_plans(self, task: str, limit: int = 3) -> str:
        """``recall_plans``: a JSON list of plans, best first (the engine's ``recall_plans``)."""
        if not (task or "").strip():
            return "error: give the task"
        limit = min(max(int(limit), 1), 10)
        plans = self.store.recall_plans(task, tenant=self.tenant, agent_id=self.agent_id, top_k=limit)
        return json.dumps(
            [
                {
                    "schema_id": plan.schema_id,
                    "probability": round(plan.probability, 3),
                    "steps": [{"tool": step.tool, "args": step.args} for step in plan.steps],
                    "evidence": plan.evidence.model_dump(include={"episodes", "successes", "failures", "transient_failures"}),
                    "flags": sorted(plan.flags),
                }
                for plan in plans
            ],
            ensure_ascii=False,
            default=str,
        )

    def _source(self) -> str:
        return f"{self.framework}:manage_memory"

    def _in_scope(self, memory_id: str) -> bool:
        """The agent may change only memories of its own tenant, user and agent."""
        try:
            event = self.store.get(memory_id, latest=True)
        except NotFoundError:
            return False
        wanted: dict[str, Any] = self.scope.fields()
        wanted.pop("session_id", None)  # a long-term memory outlives the session that wrote it
        return all(getattr(event, name) == value for name, value in wanted.items())


Tool = TypeVar("Tool")


def memory_tools_for(framework: str, wrap: Callable[[MemoryToolbox], list[Tool]], module: str) -> Callable[..., list[Tool]]:
    """The ``memory_tools`` function of one framework's module: the shared signature and toolbox,
    ``wrap`` turning the toolbox into that framework's ``[manage_memory, search_memory, recall_plans]``."""

    def memory_tools(
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        actions: Sequence[str] = ACTIONS,
        memory: DeltaCore | AsyncDeltaCore | None = None,
    ) -> list[Tool]:
        """``[manage_memory, search_memory, recall_plans]`` over ``store`` in one scope (``scope=Scope(...)`` or
        the flat ``tenant`` / ``agent_id`` / ``user_id``); ``actions`` limits what
        ``manage_memory`` may do. ``memory=`` is the old name of ``store`` (a ``DeprecationWarning``)."""
        store = renamed_store(store, memory, "memory_tools")
        scoped = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id)
        return wrap(MemoryToolbox(store, scoped, framework, actions))

    memory_tools.__module__ = module  # where users import it from (help(), reprs)
    return memory_tools
