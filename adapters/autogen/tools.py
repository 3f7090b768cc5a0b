"""Memory tools for AutoGen agents: ``manage_memory``, ``search_memory`` and ``recall_plans`` as ``FunctionTool`` s.

>>> # agent = AssistantAgent("helper", model_client=client, tools=memory_tools(store, user_id="alice"))

The functions are async and run the store call in a worker thread, so the event loop never waits.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from autogen_core.tools import FunctionTool

from deltacore.adapters._memory_tools import (
    MANAGE_DESCRIPTION,
    PLANS_DESCRIPTION,
    SEARCH_DESCRIPTION,
    MemoryToolbox,
    memory_tools_for,
)

FRAMEWORK = "autogen"


def _tools(box: MemoryToolbox) -> list[FunctionTool]:
    async def manage_memory(
        content: Annotated[str | None, "the memory (for create and update)"] = None,
        action: Annotated[Literal["create", "update", "delete"], "what to do"] = "create",
        id: Annotated[str | None, "the memory's id (for update and delete)"] = None,
    ) -> str:
        return await asyncio.to_thread(box.manage, content, action, id)

    async def search_memory(
        query: Annotated[str, "what to look for"], limit: Annotated[int, "how many memories"] = 5
    ) -> str:
        return await asyncio.to_thread(box.search, query, limit)

    async def recall_plans(task: Annotated[str, "the task to plan for"], limit: Annotated[int, "how many plans"] = 3) -> str:
        return await asyncio.to_thread(box.recall_plans, task, limit)

    return [
        FunctionTool(manage_memory, description=MANAGE_DESCRIPTION, name="manage_memory"),
        FunctionTool(search_memory, description=SEARCH_DESCRIPTION, name="search_memory"),
        FunctionTool(recall_plans, description=PLANS_DESCRIPTION, name="recall_plans"),
    ]


memory_tools = memory_tools_for(FRAMEWORK, _tools, __name__)
