"""Memory tools for LlamaIndex agents: ``manage_memory``, ``search_memory`` and ``recall_plans`` as ``FunctionTool`` s.

>>> # agent = FunctionAgent(tools=memory_tools(store, user_id="alice"), llm=llm)

Each tool has a sync function and an async one (a worker thread), as ``FunctionTool`` allows.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from llama_index.core.tools import FunctionTool

from deltacore.adapters._memory_tools import (
    MANAGE_DESCRIPTION,
    PLANS_DESCRIPTION,
    SEARCH_DESCRIPTION,
    MemoryToolbox,
    memory_tools_for,
)

FRAMEWORK = "llamaindex"


def _tools(box: MemoryToolbox) -> list[FunctionTool]:
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

    def recall_plans(task: str, limit: int = 3) -> str:
        return box.recall_plans(task, limit)

    async def arecall_plans(task: str, limit: int = 3) -> str:
        return await asyncio.to_thread(box.recall_plans, task, limit)

    return [
        FunctionTool.from_defaults(manage_memory, async_fn=amanage_memory, name="manage_memory", description=MANAGE_DESCRIPTION),
        FunctionTool.from_defaults(search_memory, async_fn=asearch_memory, name="search_memory", description=SEARCH_DESCRIPTION),
        FunctionTool.from_defaults(recall_plans, async_fn=arecall_plans, name="recall_plans", description=PLANS_DESCRIPTION),
    ]


memory_tools = memory_tools_for(FRAMEWORK, _tools, __name__)
