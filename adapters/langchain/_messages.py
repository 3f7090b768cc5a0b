"""Translations between LangChain values (messages, run inputs and outputs, documents) and text.

No policy lives here: only how a LangChain shape reads as DeltaCore text and metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from deltacore.adapters import _shared
from deltacore.model import MemoryPacket

MEMORY_OPEN = "<deltacore_memories>"
MEMORY_CLOSE = "</deltacore_memories>"
_MEMORY_BLOCK = re.compile(re.escape(MEMORY_OPEN) + r".*?" + re.escape(MEMORY_CLOSE), re.DOTALL)

_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool"}
_USER_ROLES = ("user", "human")


def content_text(content: Any) -> str:
    """The text of a message ``content`` (a string or a list of content blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(part for part in parts if part)
    return str(content)


def role_of(message: BaseMessage) -> str:
    """The chat role of a message: user, assistant, system, tool or a ChatMessage's own role."""
    if isinstance(message, ChatMessage):
        return message.role
    return _ROLE_OF_TYPE.get(message.type, message.type)


def tool_call_summary(message: AIMessage) -> str:
    """Readable text for an assistant turn that only calls tools."""
    calls = ", ".join(f"{call['name']}({_args_text(call.get('args') or {})})" for call in message.tool_calls)
    return f"calls {calls}" if calls else ""


def _args_text(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in args.items())


def message_from_role(role: str | None, text: str, meta: Mapping[str, Any]) -> BaseMessage:
    """A LangChain message for an event that was not written from a LangChain message."""
    if role in _USER_ROLES:
        return HumanMessage(text)
    if role == "assistant":
        return AIMessage(text)
    if role == "system":
        return SystemMessage(text)
    if role == "tool":
        return ToolMessage(text, tool_call_id=str(meta.get("tool_call_id") or ""))
    return ChatMessage(role=role or "unknown", content=text)


def _as_message(value: Any) -> tuple[str | None, str]:
    """(role, text) of a message given as a BaseMessage, a dict or a (role, text) pair."""
    if isinstance(value, BaseMessage):
        return role_of(value), content_text(value.content)
    if isinstance(value, Mapping) and "content" in value:
        return value.get("role") or value.get("type"), content_text(value["content"])
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str):
        return value[0], content_text(value[1])
    return None, ""


def last_user_text(messages: Sequence[Any]) -> str:
    """The text of the latest user message in ``messages`` ('' when there is none)."""
    for value in reversed(messages):
        role, text = _as_message(value)
        if role in _USER_ROLES:
            return text
    return ""


def last_assistant_text(messages: Sequence[Any]) -> str:
    for value in reversed(messages):
        role, text = _as_message(value)
        if role in ("assistant", "ai") and text:
            return text
    return ""


def run_input_text(inputs: Any) -> str:
    """What the user asked, from a root run's inputs (a string, ``{"messages": …}``, ``{"input": …}``)."""
    if isinstance(inputs, str):
        return inputs
    if isinstance(inputs, BaseMessage):
        return content_text(inputs.content)
    if isinstance(inputs, Mapping):
        if isinstance(inputs.get("messages"), Sequence):
            return last_user_text(inputs["messages"])
        for key in ("input", "question", "query"):
            if isinstance(inputs.get(key), str):
                return inputs[key]
        strings = [value for value in inputs.values() if isinstance(value, str)]
        if len(strings) == 1:
            return strings[0]
    if isinstance(inputs, Sequence):
        return last_user_text(inputs)
    return ""


def run_output_text(outputs: Any) -> str:
    """The final answer of a root run's outputs (a string, a message, ``{"messages": …}``)."""
    if isinstance(outputs, str):
        return outputs
    if isinstance(outputs, BaseMessage):
        return content_text(outputs.content)
    if isinstance(outputs, Mapping):
        if isinstance(outputs.get("messages"), Sequence):
            return last_assistant_text(outputs["messages"])
        for key in ("output", "answer", "result"):
            if key in outputs:
                return run_output_text(outputs[key])
    return "" if outputs is None else str(outputs)


def tool_output_text(output: Any) -> tuple[str, bool]:
    """(text, is_error) of what a tool returned: a ToolMessage, a Command carrying one, or a value."""
    if isinstance(output, ToolMessage):
        return content_text(output.content), output.status == "error"
    update = getattr(output, "update", None)  # a langgraph Command
    if isinstance(update, Mapping):
        for message in update.get("messages") or ():
            if isinstance(message, ToolMessage):
                return tool_output_text(message)
    return ("" if output is None else str(output)), False


# ---- memories handed to LangChain ---------------------------------------------------------------


def packet_metadata(packet: MemoryPacket) -> dict[str, Any]:
    """Document metadata for a retrieved memory: everything a chain needs to judge it."""
    return {
        **_shared.packet_metadata(packet),
        "role": packet.role,
        "session_id": packet.session_id,
        "trust": packet.trust,
        "confidence": packet.confidence,
        "utility": packet.utility,
        "namespace": packet.namespace.value,
        "routers": dict(packet.routers),
        "source": "deltacore",
    }


def packet_document(packet: MemoryPacket) -> Document:
    return Document(id=packet.id, page_content=packet.text, metadata=packet_metadata(packet))


def packet_line(packet: MemoryPacket) -> str:
    """One memory as a prompt line: date, who or which tool, the text, and any warning flags."""
    store_path = packet.meta.get("lg_namespace") or packet.meta.get("kv_namespace")
    if isinstance(store_path, list):
        store_path = "/".join(store_path)
    label = packet.tool_name or store_path or packet.actor or packet.role
    head = packet.ts.strftime("%Y-%m-%d")
    if label:
        head += f", {label}"
    line = f"- [{head}] {' '.join(packet.text.split())}"
    if packet.flags:
        line += f" (flags: {', '.join(_shared.flag_names(packet))})"
    return line


def memory_block(packets: Sequence[MemoryPacket]) -> str:
    """The memories as one delimited block, so a later injection can replace it."""
    lines = "\n".join(packet_line(packet) for packet in packets)
    return f"{MEMORY_OPEN}\nRelevant memories from earlier runs, most relevant first:\n{lines}\n{MEMORY_CLOSE}"


def without_memory_block(text: str) -> str:
    """``text`` with any earlier memory block removed."""
    return _MEMORY_BLOCK.sub("", text).strip()
