"""Memory tools for CrewAI agents: ``manage_memory`` and ``search_memory`` as ``BaseTool`` s.

>>> # agent = Agent(role=..., goal=..., backstory=..., llm=llm, tools=memory_tools(memory, user_id="alice"))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from crewai.tools import BaseTool
from pydantic import BaseModel, Field, PrivateAttr

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._memory_tools import ACTIONS, MANAGE_DESCRIPTION, SEARCH_DESCRIPTION, MemoryToolbox
from deltacore.adapters._shared import adapter_scope
from deltacore.model import Scope

FRAMEWORK = "crewai"


class ManageMemoryArgs(BaseModel):
    content: str | None = Field(default=None, description="the memory (for create and update)")
    action: Literal["create", "update", "delete"] = Field(default="create", description="what to do")
    id: str | None = Field(default=None, description="the memory's id (for update and delete)")


class SearchMemoryArgs(BaseModel):
    query: str = Field(description="what to look for")
    limit: int = Field(default=5, ge=1, le=50, description="how many memories")


class ManageMemoryTool(BaseTool):
    name: str = "manage_memory"
    description: str = MANAGE_DESCRIPTION
    args_schema: type[BaseModel] = ManageMemoryArgs
    _box: MemoryToolbox = PrivateAttr()

    def __init__(self, box: MemoryToolbox, **fields: Any) -> None:
        super().__init__(**fields)
        self._box = box

    def _run(self, content: str | None = None, action: str = "create", id: str | None = None) -> str:
        return self._box.manage(content, action, id)


class SearchMemoryTool(BaseTool):
    name: str = "search_memory"
    description: str = SEARCH_DESCRIPTION
    args_schema: type[BaseModel] = SearchMemoryArgs
    _box: MemoryToolbox = PrivateAttr()

    def __init__(self, box: MemoryToolbox, **fields: Any) -> None:
        super().__init__(**fields)
        self._box = box

    def _run(self, query: str, limit: int = 5) -> str:
        return self._box.search(query, limit)


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
    return [ManageMemoryTool(box), SearchMemoryTool(box)]
