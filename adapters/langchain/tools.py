"""Memory tools for LangChain agents: ``manage_memory`` and ``search_memory`` (LangMem's pair).

>>> # tools = memory_tools(memory, user_id="alice")
>>> # agent = create_agent(model, tools)   # the model saves, updates and searches its memories

Each is a ``StructuredTool`` (sync and async) over :class:`~deltacore.adapters._memory_tools.MemoryToolbox`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._memory_tools import ACTIONS, MANAGE_DESCRIPTION, SEARCH_DESCRIPTION, MemoryToolbox
from deltacore.adapters._shared import adapter_scope
from deltacore.adapters.langchain._engine import FRAMEWORK
from deltacore.model import Scope


class ManageMemoryArgs(BaseModel):
    content: str | None = Field(default=None, description="the memory (for create and update)")
    action: Literal["create", "update", "delete"] = Field(default="create", description="what to do")
    id: str | None = Field(default=None, description="the memory's id (for update and delete)")


class SearchMemoryArgs(BaseModel):
    query: str = Field(description="what to look for")
    limit: int = Field(default=5, ge=1, le=50, description="how many memories")


def memory_tools(
    memory: DeltaCore | AsyncDeltaCore,
    *,
    scope: Scope | None = None,
    tenant: str = "default",
    agent_id: str | None = None,
    user_id: str | None = None,
    actions: Sequence[str] = ACTIONS,
) -> list[BaseTool]:
    """``[manage_memory, search_memory]`` over ``memory`` in one scope."""
    box = MemoryToolbox(memory, adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id), FRAMEWORK, actions)
    return [_manage_tool(box), _search_tool(box)]


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
