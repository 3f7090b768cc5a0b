"""The best plan in the model's context, as a LlamaIndex memory block:
``Memory.from_defaults(memory_blocks=[DeltaCoreMemoryBlock(store=s), DeltaCorePlanBlock(store=s)])``.

The block's text is the engine's best plan for the task (``DeltaCore.recall_plans``: its calls
with arguments for this task, its probability of success and its evidence, as the engine
writes it). The task is the first user message the memory hands the block. Plans are learned
from the runs :func:`~deltacore.adapters.llamaindex.instrument` records; the block stores nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import BaseMemoryBlock
from pydantic import Field, field_validator

from deltacore.adapters._shared import best_plan, check_store, plan_context, sync_store
from deltacore.adapters.llamaindex._translate import message_text


class DeltaCorePlanBlock(BaseMemoryBlock[str]):
    """The engine's best plan for the task, with its probability of success."""

    name: str = "deltacore_plan"
    description: str | None = "The best known plan for this task, learned by DeltaCore from earlier runs."
    priority: int = 0
    """Never truncated: a plan is cut short nowhere."""
    store: Any = Field(exclude=True)
    """An open :class:`DeltaCore` or :class:`AsyncDeltaCore` (the caller closes it)."""
    tenant: str = "default"
    agent_id: str | None = None

    @field_validator("store")
    @classmethod
    def _open_store(cls, value: Any) -> Any:
        return check_store(value)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        first = next((m for m in messages or [] if m.role == MessageRole.USER), None)
        task = message_text(first).strip() if first is not None else ""
        plan = await asyncio.to_thread(best_plan, sync_store(self.store), task, tenant=self.tenant, agent_id=self.agent_id)
        return plan_context(plan) if plan is not None else ""

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Plans are learned from recorded runs: flushed messages are not kept here."""
