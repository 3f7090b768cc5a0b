"""The best plan in the model's context: ``create_agent(model, tools, middleware=[DeltaCorePlanMiddleware(store)])``.

At an agent run's first model call the engine's best plan for the user's task
(``DeltaCore.recall_plans``, with its probability of success and its evidence) is added to the
system message, as the engine writes it (``Plan.as_text``); later calls of the run see the same
block. Runs are recorded as episodes by :class:`~deltacore.adapters.langchain.DeltaCoreMiddleware`
(put it in the same ``middleware`` list), which is where the plans are learned from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._shared import (
    PLAN_HEADER,
    adapter_scope,
    best_plan,
    plan_context,
)
from deltacore.adapters.langchain._engine import sync_memory
from deltacore.adapters.langchain._messages import content_text
from deltacore.model import Scope

MAX_RUNS = 256
"""Plans kept per run (runs aborted before they end leave theirs)."""


class DeltaCorePlanMiddleware(AgentMiddleware):
    """Adds the engine's best plan for the run's task to the system message of each model call.

    Args:
        store: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        scope / tenant, agent_id: whose plans (the same scope the recording middleware uses).
    """

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
    ) -> None:
        super().__init__()
        self.store = sync_memory(store)
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id)
        self._texts: dict[str, str | None] = {}

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse | AIMessage:
        """The model call with the plan in its system message."""
        return handler(_with_plan(request, self._plan_text(*_task_of(request))))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse | AIMessage:
        """The async model call with the plan in its system message (the recall in a worker thread)."""
        text = await asyncio.to_thread(self._plan_text, *_task_of(request))
        return await handler(_with_plan(request, text))

    def _plan_text(self, task: str, run_key: str) -> str | None:
        """One recall per run: its later model calls get the plan its first call got."""
        if run_key not in self._texts:
            plan = best_plan(self.store, task, tenant=self.scope.tenant, agent_id=self.scope.agent_id)
            if len(self._texts) >= MAX_RUNS:
                self._texts.pop(next(iter(self._texts)))
            self._texts[run_key] = plan_context(plan) if plan is not None else None
        return self._texts[run_key]


def _task_of(request: ModelRequest) -> tuple[str, str]:
    """The run's task (its first human message) and a key of the run (that message's id, which
    the graph assigns per run)."""
    first = next((m for m in request.messages if isinstance(m, HumanMessage)), None)
    if first is None:
        return "", ""
    task = content_text(first.content)
    return task, f"{first.id}:{task}"


def _with_plan(request: ModelRequest, text: str | None) -> ModelRequest:
    if text is None:
        return request
    system = request.system_message
    content: Any = system.content if system is not None else ""
    if isinstance(content, str):
        if PLAN_HEADER in content:
            return request
        return request.override(system_message=SystemMessage(f"{content}\n\n{text}" if content else text))
    return request.override(system_message=SystemMessage(content=[*content, {"type": "text", "text": text}]))
