"""``DeltaCoreChatMessageHistory``: a LangChain chat history kept in DeltaCore, per session.

>>> # history = DeltaCoreChatMessageHistory(memory, session_id="chat-42", user_id="alice")
>>> # history.add_messages([HumanMessage("hi"), AIMessage("hello")])
>>> # history.messages        # [HumanMessage('hi'), AIMessage('hello')], oldest first
>>> # history.clear()         # deletes the session's events

Each message is one ``message`` event of the session (``role`` user, assistant, system or tool,
the channel following the role), chained to the message before it (``parent_ids``), so a
repeated "ok" is a new turn and not a duplicate. The whole LangChain message (tool calls,
``tool_call_id``, ids, metadata) is kept in ``meta["lc_message"]`` and comes back as it was;
message events written by others in the session (e.g. the middleware) come back as plain
messages of their role. ``BaseChatMessageHistory`` is deprecated in langchain-core 1.x (for
LangGraph persistence) but still the interface ``RunnableWithMessageHistory`` uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, message_to_dict, messages_from_dict

from deltacore.adapters._shared import ScopedAdapter, adapter_scope, iter_events, json_safe, raise_rejections
from deltacore.adapters.langchain._engine import FRAMEWORK, sync_memory
from deltacore.adapters.langchain._messages import content_text, message_from_role, role_of, tool_call_summary
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.model import Event, EventKind, MemoryPacket, Scope, new_id


class DeltaCoreChatMessageHistory(ScopedAdapter, BaseChatMessageHistory):
    """The messages of one session, stored as DeltaCore events (see the module docstring)."""

    def __init__(
        self,
        memory: DeltaCore | AsyncDeltaCore,
        session_id: str | None = None,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        user_id: str | None = None,
        agent_id: str | None = None,
        source: str = "chat_history",
    ) -> None:
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        if not self.scope.session_id:
            raise ValueError("session_id is empty: a chat history needs a session id")
        self.memory = sync_memory(memory)
        self.source = f"{FRAMEWORK}:{source}"

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first."""
        events = iter_events(self.memory, tenant=self.tenant, session_id=self.session_id, kinds=(EventKind.MESSAGE,))
        return [_message(event) for event in events]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if not messages:
            return
        tail = self._tail()
        previous_id = tail.id if tail else None
        ts = datetime.now(timezone.utc)
        if tail is not None and ts <= tail.ts:
            ts = tail.ts + timedelta(microseconds=1)
        events = []
        for message in messages:
            event = self._event(message, previous_id, ts)
            events.append(event)
            previous_id = event["id"]
            ts += timedelta(microseconds=1)  # keeps the order of a batch even on a coarse clock
        raise_rejections(self.memory.ingest(events))  # the channel follows each message's role

    def clear(self) -> None:
        """Erase every event of this session through ``forget`` (with what was derived from it,
        the physical pass and a certificate in the store's journal)."""
        self.memory.forget(session_id=self.session_id, tenant=self.tenant, reason="chat history cleared")

    async def aget_messages(self) -> list[BaseMessage]:
        return await asyncio.to_thread(lambda: self.messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await asyncio.to_thread(self.add_messages, messages)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)

    def _tail(self) -> MemoryPacket | None:
        newest = self.memory.query(
            tenant=self.tenant,
            session_id=self.session_id,
            kinds=(EventKind.MESSAGE,),
            routers=("recency",),
            top_k=1,
            include_deltas=False,
            exclude_tainted=False,
        )
        return newest[0] if newest else None

    def _event(self, message: BaseMessage, previous_id: str | None, ts: datetime) -> dict[str, Any]:
        text = content_text(message.content)
        if not text.strip() and isinstance(message, AIMessage):
            text = tool_call_summary(message)
        meta: dict[str, Any] = {"framework": FRAMEWORK, "lc_message": json_safe(message_to_dict(message))}
        if isinstance(message, ToolMessage):
            meta["tool_call_id"] = message.tool_call_id
        scope = {"user_id": self.user_id, "agent_id": self.agent_id}
        return {
            "id": new_id(),
            "ts": ts,
            "kind": EventKind.MESSAGE,
            "text": text if text.strip() else f"({message.type} message)",
            "role": role_of(message),
            "tenant": self.tenant,
            "session_id": self.session_id,
            "source": self.source,
            "parent_ids": [previous_id] if previous_id else [],
            "tool_name": message.name if isinstance(message, ToolMessage) and message.name else None,
            "meta": meta,
            **{name: value for name, value in scope.items() if value is not None},
        }


def _message(event: Event) -> BaseMessage:
    stored = event.meta.get("lc_message")
    if isinstance(stored, dict):
        try:
            return messages_from_dict([stored])[0]
        except (KeyError, ValueError, TypeError):
            pass  # not a message LangChain can rebuild: fall back to its role and text
    return message_from_role(event.role, event.text, event.meta)
