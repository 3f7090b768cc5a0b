"""DeltaCore as a LlamaIndex memory block (``llama_index.core.memory.BaseMemoryBlock``).

>>> # block = DeltaCoreMemoryBlock(store=DeltaCore.open("./memory"), user_id="alice")
>>> # memory = Memory.from_defaults(session_id="s1", memory_blocks=[block])
>>> # await agent.run(user_msg="...", memory=memory)

How ``Memory`` drives a block (llama-index-core 0.14): ``_aget`` runs on every
``memory.aget()`` with the active chat history, and its text is rendered into the system message
as ``<memory><deltacore>…</deltacore></memory>``; ``_aput`` only receives messages when they are
flushed out of the short-term FIFO (token pressure), in whole turns. So this block retrieves for
the latest user message every time and stores what is flushed; for a record of every step as it
happens, attach :func:`deltacore.adapters.llamaindex.instrument` as well (the block then leaves
the flushed messages alone, since the handler already recorded them).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.memory import BaseMemoryBlock
from pydantic import Field, field_validator, model_validator

from deltacore.adapters._shared import (
    MEMORY_HEADER,
    async_store,
    call_text,
    check_store,
    gateway_notes,
    query_fields,
    scope_of,
    scoped_event,
    unfold_scope,
)
from deltacore.adapters._shared import memory_text as format_block
from deltacore.adapters.llamaindex._translate import FRAMEWORK, current_run_id, message_text
from deltacore import AsyncDeltaCore
from deltacore.errors import InvalidQueryError
from deltacore.model import Channel, EventKind, Scope, new_id

log = logging.getLogger(__name__)

__all__ = ["MEMORY_HEADER", "DeltaCoreMemoryBlock", "format_block"]


class DeltaCoreMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory from a DeltaCore store, scoped to a tenant / agent / user."""

    name: str = "deltacore"
    description: str | None = "Long-term memories relevant to the latest message, from DeltaCore."
    priority: int = 1
    """Truncated (lowest-ranked memories first) before blocks of higher priority; 0 = never."""
    store: Any = Field(exclude=True)
    """An open :class:`DeltaCore` or :class:`AsyncDeltaCore` (the caller closes it)."""
    tenant: str = "default"
    agent_id: str | None = None
    """Recorded on stored events; retrieval returns only this agent's memories when set."""
    user_id: str | None = None
    """Recorded on stored events; retrieval returns only this user's memories when set."""
    session_id: str | None = None
    """Recorded on stored events when the flushed messages carry no session id."""
    top_k: int = Field(default=5, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    """Token budget of the retrieved memories."""
    record_flushed: bool | None = None
    """Store the messages flushed out of short-term memory: ``None`` (default) = unless an
    :func:`~deltacore.adapters.llamaindex.instrument` handler already records into this store."""

    @field_validator("store")
    @classmethod
    def _open_store(cls, value: Any) -> Any:
        return check_store(value)

    @model_validator(mode="before")
    @classmethod
    def _unfold_scope(cls, data: Any) -> Any:
        return unfold_scope(data)

    @property
    def scope(self) -> Scope:
        """Where this block's events go (``scope=Scope(...)`` is accepted in place of the fields)."""
        return Scope(tenant=self.tenant, agent_id=self.agent_id, user_id=self.user_id, session_id=self.session_id)

    @property
    def _store(self) -> AsyncDeltaCore:
        return async_store(self.store)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        messages = messages or []
        latest = next((m for m in reversed(messages) if m.role == MessageRole.USER), messages[-1] if messages else None)
        query = message_text(latest).strip()
        if not query:
            return ""
        run_id = current_run_id()
        in_context = {message_text(m).strip() for m in messages}
        # Skip what the model already sees: the current run's steps, and the active chat history
        # (room for that: twice the memories, the ones already in the context dropped).
        fields = query_fields(
            tenant=self.tenant, agent_id=self.agent_id, user_id=self.user_id, top_k=self.top_k * 2, max_tokens=self.max_tokens
        )
        found = await self._store.query(query, **fields, exclude_episode_id=run_id)
        packets = [p for p in found if p.text.strip() not in in_context][: self.top_k]
        if not packets:
            return ""
        await self._store.record_retrieval([p.id for p in packets], episode_id=run_id, query=query, tenant=self.tenant)
        return format_block(packets)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        if not self._records_flushed():
            return
        by_channel: dict[Channel, list[dict[str, Any]]] = {}
        calls: dict[str, dict[str, Any]] = {}  # tool_call_id -> its tool_call event, to link results
        for message in messages:
            for channel, event in self._events_of(message, calls):
                by_channel.setdefault(channel, []).append(event)
        for channel, events in by_channel.items():
            gateway_notes(await self._store.ingest(events, channel=channel), log, "flushed message")

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the lowest-ranked memories until about ``tokens_to_truncate`` tokens are freed."""
        lines = content.splitlines()
        freed = 0
        while len(lines) > 1 and freed < tokens_to_truncate:
            freed += max(1, len(lines.pop()) // 4)  # ~4 characters per token
        return "\n".join(lines) if len(lines) > 1 else None

    def reset(self) -> None:
        """Forget every event of this block's scope (its agent_id, user_id and session_id together).

        LlamaIndex's ``Memory.reset()`` clears only its own chat store and never calls a block,
        so this is the block's own erase: ``forget(within=…)``, every version, copy and derivation."""
        scope = {"agent_id": self.agent_id, "user_id": self.user_id, "session_id": self.session_id}
        within = {name: value for name, value in scope.items() if value is not None}
        if not within:
            raise InvalidQueryError(
                "reset", "this block has no agent_id, user_id or session_id, so reset() would not know what to forget"
            )
        self._store.sync.forget(within=within, tenant=self.tenant, reason="llamaindex memory block reset")

    async def areset(self) -> None:
        await asyncio.to_thread(self.reset)

    # ---- translation ------------------------------------------------------------------------

    def _records_flushed(self) -> bool:
        if self.record_flushed is not None:
            return self.record_flushed
        from deltacore.adapters.llamaindex.instrumentation import active_handlers

        target = self._store.sync
        return not any(handler.records_into(target) for handler in active_handlers())

    def _events_of(self, message: ChatMessage, calls: dict[str, dict[str, Any]]) -> list[tuple[Channel, dict[str, Any]]]:
        session_id = message.additional_kwargs.get("session_id") or self.session_id
        scope = scope_of(self, session_id=session_id)

        def event(**fields: Any) -> dict[str, Any]:
            return scoped_event(FRAMEWORK, self.name, scope, **fields)

        text = message_text(message)
        events: list[tuple[Channel, dict[str, Any]]] = []
        if message.role == MessageRole.USER and text.strip():
            # The chat's user (the block's ``user_id``) is who speaks a user message.
            events.append((Channel.USER, event(kind=EventKind.MESSAGE.value, role="user", text=text, principal=self.user_id)))
        elif message.role == MessageRole.ASSISTANT:
            if text.strip():
                events.append((Channel.AGENT, event(kind=EventKind.MESSAGE.value, role="assistant", text=text)))
            for block in message.blocks:
                if isinstance(block, ToolCallBlock):
                    arguments = block.tool_kwargs if isinstance(block.tool_kwargs, dict) else {"_raw": block.tool_kwargs}
                    call = event(
                        id=new_id(),
                        kind=EventKind.TOOL_CALL.value,
                        tool_name=block.tool_name,
                        tool_args=arguments,
                        text=call_text(block.tool_name, arguments),
                        meta={"tool_call_id": block.tool_call_id},
                    )
                    if block.tool_call_id:
                        calls[block.tool_call_id] = call
                    events.append((Channel.AGENT, call))
        elif message.role in (MessageRole.TOOL, MessageRole.FUNCTION) and text.strip():
            call = calls.get(message.additional_kwargs.get("tool_call_id") or "")
            name = call["tool_name"] if call else message.additional_kwargs.get("name") or "tool"
            result = event(
                kind=EventKind.TOOL_RESULT.value,
                tool_name=name,
                actor=name,
                text=text,
                parent_ids=[call["id"]] if call else [],
                meta={"tool_call_id": message.additional_kwargs.get("tool_call_id")},
            )
            events.append((Channel.TOOL, result))
        return events
