"""A ``StaticStreamWorkbench`` that records every tool call and result in DeltaCore.

>>> # workbench = DeltaCoreWorkbench(memory, [FunctionTool(get_weather, description="...")])
>>> # agent = AssistantAgent("assistant", model_client, workbench=workbench, memory=[memory])

Each call becomes a ``tool_call`` event (name, arguments, the tool's parameters schema from
``list_tools()``, parent = the step that led to it) and its outcome a ``tool_result`` event
(the output, or the error message with ``meta.error`` and the exception's type name), under
the episode that :mod:`.episodes` is recording. Outside a recorded run the events carry no
episode id. ``AssistantAgent`` calls ``call_tool_stream`` on stream workbenches and
``call_tool`` otherwise; both are recorded. ``list_tools()`` (what the agent offers its model)
hands new or changed tool schemas to ``DeltaCore.observe_tools``, so a tool whose schema changed
is detected as drift before it is ever called.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Mapping
from contextvars import ContextVar
from typing import Any

from autogen_core import CancellationToken, ComponentModel
from autogen_core.tools import BaseTool, StaticStreamWorkbench, ToolOverride, ToolResult, ToolSchema
from pydantic import BaseModel, Field
from typing_extensions import Self

from deltacore.adapters._shared import ToolOffers
from deltacore.adapters.autogen.episodes import current_episode, tool_call_event, tool_event_id, tool_result_event
from deltacore.adapters.autogen.memory import DeltaCoreMemory
from deltacore.model import Channel

# The exception StaticWorkbench turned into an error result, seen in ``_format_errors`` (the
# result itself carries only its text). Per task, so parallel tool calls do not mix them up.
_ERROR: ContextVar[BaseException | None] = ContextVar("deltacore_autogen_tool_error", default=None)


class DeltaCoreWorkbenchConfig(BaseModel):
    """Declarative config: the tools, their overrides and the memory that records them."""

    tools: list[ComponentModel] = []
    tool_overrides: dict[str, ToolOverride] = Field(default_factory=dict)
    memory: ComponentModel


class DeltaCoreWorkbench(StaticStreamWorkbench):
    """AutoGen's static workbench, recording each tool call and result into ``memory``'s store."""

    component_provider_override = "deltacore.adapters.autogen.DeltaCoreWorkbench"
    component_config_schema = DeltaCoreWorkbenchConfig  # type: ignore[assignment]

    def __init__(
        self,
        memory: DeltaCoreMemory,
        tools: list[BaseTool[Any, Any]],
        tool_overrides: dict[str, ToolOverride] | None = None,
    ) -> None:
        super().__init__(tools, tool_overrides)
        self.memory = memory
        self._offers = ToolOffers()

    async def list_tools(self) -> list[ToolSchema]:
        """The tools, as AutoGen offers them to the model; new or changed schemas are handed to
        ``DeltaCore.observe_tools`` (drift is detected when a tool is offered, before any call)."""
        tools = await super().list_tools()
        changed = self._offers.changed({tool["name"]: dict(tool.get("parameters") or {}) for tool in tools})
        if changed:
            await self.memory.store.observe_tools(changed, tenant=self.memory.tenant, source="autogen:workbench")
        return tools

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cancellation_token: CancellationToken | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        call = await self._record_call(name, arguments, call_id)
        _ERROR.set(None)
        result = await super().call_tool(name, arguments, cancellation_token, call_id)
        await self._record_result(call, result)
        return result

    async def call_tool_stream(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cancellation_token: CancellationToken | None = None,
        call_id: str | None = None,
    ) -> AsyncGenerator[Any | ToolResult, None]:
        call = await self._record_call(name, arguments, call_id)
        _ERROR.set(None)
        async for item in super().call_tool_stream(name, arguments, cancellation_token, call_id):
            if isinstance(item, ToolResult):
                await self._record_result(call, item)
            yield item

    def _format_errors(self, error: Exception) -> str:
        if _ERROR.get() is None:
            _ERROR.set(error)
        return super()._format_errors(error)

    async def _record_call(self, name: str, arguments: Mapping[str, Any] | None, call_id: str | None) -> dict[str, Any]:
        schemas = {schema["name"]: schema for schema in await self.list_tools()}
        parameters = schemas.get(name, {}).get("parameters")
        episode = current_episode(self.memory)
        call_id = call_id or uuid.uuid4().hex  # called outside an agent: still pair call and result
        event = tool_call_event(
            self.memory,
            episode,
            tool_event_id(episode, call_id, "call"),
            name,
            dict(arguments or {}),
            dict(parameters) if parameters is not None else None,
            episode.agent if episode is not None else None,
        )
        await self.memory.record([event], Channel.AGENT, staged=True)
        return {"event": event, "call_id": call_id, "episode": episode}

    async def _record_result(self, call: dict[str, Any], result: ToolResult) -> None:
        episode = call["episode"]
        event = tool_result_event(
            self.memory,
            episode,
            tool_event_id(episode, call["call_id"], "result"),
            call["event"]["id"],
            result.name,
            result.to_text(),
            result.is_error,
            _ERROR.get() if result.is_error else None,
            call["event"].get("actor"),
        )
        await self.memory.record([event], Channel.TOOL, staged=True)
        if episode is not None:
            episode.last_event_id = event["id"]

    def _to_config(self) -> DeltaCoreWorkbenchConfig:  # type: ignore[override]
        return DeltaCoreWorkbenchConfig(
            tools=[tool.dump_component() for tool in self._tools],
            tool_overrides=self._tool_overrides,
            memory=self.memory.dump_component(),
        )

    @classmethod
    def _from_config(cls, config: DeltaCoreWorkbenchConfig) -> Self:  # type: ignore[override]
        return cls(
            DeltaCoreMemory.load_component(config.memory),
            [BaseTool.load_component(tool) for tool in config.tools],
            config.tool_overrides,
        )
