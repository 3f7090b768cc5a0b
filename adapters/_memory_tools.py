"""Memory tools an agent calls itself, shared by every framework's tool wrappers.

Modelled on LangMem's ``manage_memory`` (``content``, ``action``: create / update / delete,
``id``) and ``search_memory`` (``query``, ``limit``). Each framework module wraps the two calls
below in its own tool class (LangChain ``StructuredTool``, AutoGen ``FunctionTool``, CrewAI
``BaseTool``, LlamaIndex ``FunctionTool``); the engine does the work: ``add``, ``update`` (a new
version, the old one kept), ``delete`` and ``query``, in the toolbox's scope. Writes come in on
the ``agent`` channel, so the trust gateway screens them like any agent write.

A mistake of the model (no content, an unknown id, an id outside the toolbox's scope) is
answered as text the model reads and can act on, not raised: a raised error would end the run
in some frameworks and be swallowed in others.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._shared import ScopedAdapter
from deltacore.errors import InvalidEventError, NotFoundError
from deltacore.model import Channel, EventKind, Scope

ACTIONS = ("create", "update", "delete")

MANAGE_DESCRIPTION = """Create, update or delete a persistent memory that carries over between conversations.
Proactively call this tool when you:
1. Identify a new USER preference.
2. Receive an explicit USER request to remember something or otherwise alter your behavior.
3. Are working and want to record important context.
4. Identify that an existing MEMORY is incorrect or outdated (update it with its id, or delete it).
Arguments: content (the memory, for create and update), action (create, update or delete), id (for update and delete)."""

SEARCH_DESCRIPTION = """Search your long-term memory for what you stored earlier (and what the conversation and tools recorded).
Arguments: query (what to look for), limit (how many memories, default 5).
Returns a JSON list of memories with their id (pass it to manage_memory to update or delete one)."""


class MemoryToolbox(ScopedAdapter):
    """The two tool calls over one store and scope; framework modules wrap them as tools.

    Args:
        memory: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        scope: where memories are written and searched (tenant, agent, user; a session too if set).
        framework: names the writer in each memory's ``source`` (``"<framework>:manage_memory"``).
        actions: the ``manage_memory`` actions the agent may take.
    """

    def __init__(
        self, memory: DeltaCore | AsyncDeltaCore, scope: Scope, framework: str, actions: Sequence[str] = ACTIONS
    ) -> None:
        self.memory = memory.sync if isinstance(memory, AsyncDeltaCore) else memory
        self.scope = scope
        self.framework = framework
        unknown = sorted(set(actions) - set(ACTIONS))
        if unknown:
            raise ValueError(f"actions: {unknown[0]!r} is not one of {', '.join(ACTIONS)}")
        self.actions = tuple(actions)

    def manage(self, content: str | None = None, action: str = "create", id: str | None = None) -> str:
        """``manage_memory``: what was done, as a sentence for the model."""
        if action not in self.actions:
            return f"error: action must be one of {', '.join(self.actions)}, got {action!r}"
        if action in ("create", "update") and not (content or "").strip():
            return f"error: {action} needs the memory's content"
        if action in ("update", "delete") and not id:
            return f"error: {action} needs the id of the memory (search_memory returns ids)"
        try:
            if action == "create":
                memory_id = self.memory.add(
                    content or "", kind=EventKind.FACT, channel=Channel.AGENT, source=self._source(), **self.scope.fields()
                )
                return f"created memory {memory_id}"
            if not self._in_scope(id or ""):
                return f"error: no memory with id {id!r}"
            if action == "update":
                result = self.memory.update(id or "", text=content, channel=Channel.AGENT, tenant=self.tenant)
                return f"updated memory {id}; its id is now {result.memory_id}"
            self.memory.delete([id or ""], tenant=self.tenant)
            return f"deleted memory {id}"
        except InvalidEventError as exc:
            return f"error: {exc}"

    def search(self, query: str, limit: int = 5) -> str:
        """``search_memory``: a JSON list of memories, best first."""
        if not (query or "").strip():
            return "error: give a query"
        limit = min(max(int(limit), 1), 50)
        fields = {name: value for name, value in self.scope.fields().items() if name != "session_id"}
        packets = self.memory.query(query, top_k=limit, **fields)
        return json.dumps(
            [
                {"id": p.id, "content": p.text, "kind": p.kind.value, "score": round(p.score, 4), "updated_at": p.ts.isoformat()}
                for p in packets
            ],
            ensure_ascii=False,
        )

    def _source(self) -> str:
        return f"{self.framework}:manage_memory"

    def _in_scope(self, memory_id: str) -> bool:
        """The agent may change only memories of its own tenant, user and agent."""
        try:
            event = self.memory.get(memory_id, latest=True)
        except NotFoundError:
            return False
        wanted: dict[str, Any] = self.scope.fields()
        wanted.pop("session_id", None)  # a long-term memory outlives the session that wrote it
        return all(getattr(event, name) == value for name, value in wanted.items())
