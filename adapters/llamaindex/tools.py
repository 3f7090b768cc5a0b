"""Memory tools for LlamaIndex agents: ``manage_memory`` and ``search_memory`` as ``FunctionTool`` s.

>>> # agent = FunctionAgent(tools=memory_tools(memory, user_id="alice"), llm=llm)

Each tool has a sync function and an async one (a worker thread), as ``FunctionTool`` allows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from llama_index.core.tools import FunctionTool

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._memory_tools import ACTIONS, MANAGE_DESCRIPTION, SEARCH_DESCRIPTION, MemoryToolbox
from deltacore.adapters._shared import adapter_scope
from deltacore.model import Scope

FRAMEWORK = "llamaindex"


def memory_tools(
    memory: DeltaCore | AsyncDeltaCore,
    *,
    scope: Scope | None = None,
    tenant: str = "default",
    agent_id: str | None = None,
    user_id: str | None = None,
    actions: Sequence[str] = ACTIONS,
) -> list[FunctionTool]:
    """``[manage_memory, search_memory]`` over ``memory`` in one scope."""
    box = MemoryToolbox(memory, adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id), FRAMEWORK, actions)

    def manage_memory(
        content: str | None = None, action: Literal["create", "update", "delete"] = "create", id: str | None = None
    ) -> str:
        return box.manage(content, action, id)

    async def amanage_memory(
        content: str | None = None, action: Literal["create", "update", "delete"] = "create", id: str | None = None
    ) -> str:
        return await asyncio.to_thread(box.manage, content, action, id)

    def search_memory(query: str, limit: int = 5) -> str:
        return box.search(query, limit)

    async def asearch_memory(query: str, limit: int = 5) -> str:
        return await asyncio.to_thread(box.search, query, limit)

    return [
        FunctionTool.from_defaults(manage_memory, async_fn=amanage_memory, name="manage_memory", description=MANAGE_DESCRIPTION),
        FunctionTool.from_defaults(search_memory, async_fn=asearch_memory, name="search_memory", description=SEARCH_DESCRIPTION),
    ]
