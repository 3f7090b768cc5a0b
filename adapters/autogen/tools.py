"""Memory tools for AutoGen agents: ``manage_memory`` and ``search_memory`` as ``FunctionTool`` s.

>>> # agent = AssistantAgent("helper", model_client=client, tools=memory_tools(memory, user_id="alice"))

The functions are async and run the store call in a worker thread, so the event loop never waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Annotated, Literal

from autogen_core.tools import FunctionTool

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._memory_tools import ACTIONS, MANAGE_DESCRIPTION, SEARCH_DESCRIPTION, MemoryToolbox
from deltacore.adapters._shared import adapter_scope
from deltacore.model import Scope

FRAMEWORK = "autogen"


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

    return [
        FunctionTool(manage_memory, description=MANAGE_DESCRIPTION, name="manage_memory"),
        FunctionTool(search_memory, description=SEARCH_DESCRIPTION, name="search_memory"),
    ]
