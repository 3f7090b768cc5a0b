"""The best plan in the model's context, as an AutoGen ``Memory``:
``AssistantAgent(..., memory=[DeltaCoreMemory(store), DeltaCorePlanMemory(store)])``.

``update_context`` puts the engine's best plan for the run's task (``DeltaCore.recall_plans``:
its calls with arguments for this task, its probability of success and its evidence, as the
engine writes it) in ONE system message, replacing the one an earlier turn added. Plans are
learned from the episodes ``record_run`` / the workbench record; this memory stores nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from autogen_core import CancellationToken
from autogen_core.memory import (
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    UpdateContextResult,
)
from autogen_core.model_context import ChatCompletionContext, ChatCompletionContextState
from autogen_core.models import LLMMessage, SystemMessage, UserMessage

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._shared import (
    PLAN_HEADER,
    ScopedAdapter,
    adapter_scope,
    best_plan,
    plan_context,
    sync_store,
)
from deltacore.model import Scope
from deltacore.model.plans import Plan


def is_plan_message(message: LLMMessage) -> bool:
    """Whether ``message`` is the plan message :class:`DeltaCorePlanMemory` adds."""
    return isinstance(message, SystemMessage) and message.content.startswith(PLAN_HEADER)


class DeltaCorePlanMemory(ScopedAdapter, Memory):
    """Offers the engine's best plan for the task (the run's first user message)."""

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
    ) -> None:
        self.store = sync_store(store)
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id)

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Replace the plan message of an earlier turn with the best plan for the task."""
        state = dict(await model_context.save_state())
        history = ChatCompletionContextState.model_validate(state).messages
        keep = [not is_plan_message(m) for m in history]
        if not all(keep):
            state["messages"] = [raw for raw, kept in zip(state["messages"], keep, strict=True) if kept]
            await model_context.load_state(state)
        task = next((m.content for m in history if isinstance(m, UserMessage) and isinstance(m.content, str)), "")
        plan = await self._plan(task)
        if plan is None:
            return UpdateContextResult(memories=MemoryQueryResult(results=[]))
        await model_context.add_message(SystemMessage(content=plan_context(plan)))
        return UpdateContextResult(memories=MemoryQueryResult(results=[_content(plan)]))

    async def query(
        self, query: str | MemoryContent, cancellation_token: CancellationToken | None = None, **kwargs: Any
    ) -> MemoryQueryResult:
        """The best plan for ``query`` (a task), as one ``MemoryContent``."""
        text = query if isinstance(query, str) else str(query.content)
        plan = await self._plan(text)
        return MemoryQueryResult(results=[_content(plan)] if plan is not None else [])

    async def add(self, content: MemoryContent, cancellation_token: CancellationToken | None = None) -> None:
        """Plans are learned from recorded episodes, not added: this does nothing."""

    async def clear(self) -> None:
        """Nothing to clear: this memory holds no state of its own."""

    async def close(self) -> None:
        """The caller closes the store."""

    async def _plan(self, task: str) -> Plan | None:
        return await asyncio.to_thread(best_plan, self.store, task, tenant=self.tenant, agent_id=self.agent_id)


def _content(plan: Plan) -> MemoryContent:
    return MemoryContent(
        content=plan_context(plan),
        mime_type=MemoryMimeType.TEXT,
        metadata={"schema_id": plan.schema_id, "probability": plan.probability, "flags": sorted(plan.flags)},
    )
