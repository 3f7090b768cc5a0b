"""Memory tools for LangChain agents: ``manage_memory`` and ``search_memory`` (LangMem's pair), ``recall_plans``.

>>> # tools = memory_tools(store, user_id="alice")
>>> # agent = create_agent(model, tools)   # the model saves, updates and searches its memories

Each is a ``StructuredTool`` (sync and async) over :class:`~deltacore.adapters._memory_tools.MemoryToolbox`.
"""

from __future__ import annotations

import asyncio

from langchain_core.tools import BaseTool, StructuredTool

from deltacore.adapters._memory_tools import (
    MANAGE_DESCRIPTION,
    PLANS_DESCRIPTION,
    SEARCH_DESCRIPTION,
    ManageMemoryArgs,
    MemoryToolbox,
    RecallPlansArgs,
    SearchMemoryArgs,
    memory_tools_for,
)
from deltacore.adapters.langchain._engine import FRAMEWORK


def _manage_tool(box: MemoryToolbox) -> BaseTool:
    async def amanage(content: str | None = None, action: str = "create", id: str | None = None) -> str:
        return await asyncio.to_thread(box.manage, content, action, id)

    return StructuredTool.from_function(
        func=box.manage, coroutine=amanage, name="manage_memory", description=MANAGE_DESCRIPTION, args_schema=ManageMemoryArgs
    )


def _search_tool(box: MemoryToolbox) -> BaseTool:
    async def asearch(query: str, limit: int = 5) -> str:
        return await asyncio.to_thread(box.search, query, limit)

    return StructuredTool.from_function(
        func=box.search, coroutine=asearch, name="search_memory", description=SEARCH_DESCRIPTION, args_schema=SearchMemoryArgs
    )


def _plans_tool(box: MemoryToolbox) -> BaseTool:
    async def aplans(task: str, limit: int = 3) -> str:
        return await asyncio.to_thread(box.recall_plans, task, limit)

    return StructuredTool.from_function(
        func=box.recall_plans, coroutine=aplans, name="recall_plans", description=PLANS_DESCRIPTION, args_schema=RecallPlansArgs
    )


memory_tools = memory_tools_for(FRAMEWORK, lambda box: [_manage_tool(box), _search_tool(box), _plans_tool(box)], __name__)
