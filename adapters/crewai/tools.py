"""Memory tools for CrewAI agents: ``manage_memory``, ``search_memory`` and ``recall_plans`` as ``BaseTool`` s.

>>> # agent = Agent(role=..., goal=..., backstory=..., llm=llm, tools=memory_tools(store, user_id="alice"))
"""

from __future__ import annotations

from typing import Any

from crewai.tools import BaseTool
from pydantic import BaseModel, PrivateAttr

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

FRAMEWORK = "crewai"


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


class RecallPlansTool(BaseTool):
    name: str = "recall_plans"
    description: str = PLANS_DESCRIPTION
    args_schema: type[BaseModel] = RecallPlansArgs
    _box: MemoryToolbox = PrivateAttr()

    def __init__(self, box: MemoryToolbox, **fields: Any) -> None:
        super().__init__(**fields)
        self._box = box

    def _run(self, task: str, limit: int = 3) -> str:
        return self._box.recall_plans(task, limit)


memory_tools = memory_tools_for(
    FRAMEWORK, lambda box: [ManageMemoryTool(box), SearchMemoryTool(box), RecallPlansTool(box)], __name__
)
