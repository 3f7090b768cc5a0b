"""CrewAI tool-call hooks that capture each tool's argument schema and arguments.

CrewAI's tool events carry no schema (and, on the text/ReAct path, the arguments only as a raw
JSON string); its global ``before``/``after`` tool-call hooks see the ``CrewStructuredTool``
itself. :class:`ToolSchemaHooks` registers one hook of each kind and keeps, per tool name, the
latest args schema (``args_schema.model_json_schema()``) and arguments. The listener reads them
when it records a call, so every ``tool_call`` event carries ``tool_schema`` and DeltaCore can
hash it and keep each version (``DeltaCore.tool_schemas()``).

>>> hooks = ToolSchemaHooks().register()   # global: every crew's tool calls
>>> hooks.unregister()                     # tests: don't leak into the next one
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from crewai.hooks import (
    ToolCallHookContext,
    register_after_tool_call_hook,
    register_before_tool_call_hook,
    unregister_after_tool_call_hook,
    unregister_before_tool_call_hook,
)
from crewai.utilities.string_utils import sanitize_tool_name


@dataclass(frozen=True)
class ToolCallCapture:
    """What the hooks saw of the latest call to one tool."""

    tool_name: str
    arguments: dict[str, Any]
    schema: dict[str, Any] | None


def tool_args_schema(tool: Any) -> dict[str, Any] | None:
    """The JSON schema of a CrewAI tool's arguments (``BaseTool`` or ``CrewStructuredTool``)."""
    args_schema = getattr(tool, "args_schema", None)
    if args_schema is None or not hasattr(args_schema, "model_json_schema"):
        return None
    return args_schema.model_json_schema()


class ToolSchemaHooks:
    """Captures tool schemas and arguments through CrewAI's global tool-call hooks.

    The hooks never block a call or change a result (they return ``None``). ``tools=`` seeds the
    registry for tools you know up front (a schema is then known even before the first call).
    """

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._captures: dict[str, ToolCallCapture] = {}
        self._lock = threading.Lock()
        self._registered = False
        for tool in tools:
            self.add_tool(tool)

    # ---- registry ----------------------------------------------------------------------------

    def add_tool(self, tool: Any) -> None:
        """Record a tool's schema before it is ever called."""
        name = sanitize_tool_name(tool.name)
        with self._lock:
            previous = self._captures.get(name)
            self._captures[name] = ToolCallCapture(name, previous.arguments if previous else {}, tool_args_schema(tool))

    def schema_for(self, tool_name: str) -> dict[str, Any] | None:
        """The latest args schema seen for ``tool_name`` (sanitised name, as in CrewAI events)."""
        with self._lock:
            capture = self._captures.get(tool_name)
        return capture.schema if capture else None

    def arguments_for(self, tool_name: str) -> dict[str, Any] | None:
        """The arguments of the latest call to ``tool_name`` (after other hooks edited them)."""
        with self._lock:
            capture = self._captures.get(tool_name)
        return dict(capture.arguments) if capture else None

    # ---- the hooks -----------------------------------------------------------------------------

    def before_tool_call(self, context: ToolCallHookContext) -> None:
        self._capture(context)
        return None  # never block

    def after_tool_call(self, context: ToolCallHookContext) -> None:
        # Also here: a call blocked by an earlier before-hook never reached ours.
        self._capture(context)
        return None  # keep the result

    def _capture(self, context: ToolCallHookContext) -> None:
        schema = tool_args_schema(context.tool) if context.tool is not None else None
        with self._lock:
            if schema is None and context.tool_name in self._captures:
                schema = self._captures[context.tool_name].schema
            self._captures[context.tool_name] = ToolCallCapture(context.tool_name, dict(context.tool_input or {}), schema)

    # ---- registration --------------------------------------------------------------------------

    def register(self) -> ToolSchemaHooks:
        """Add both hooks to CrewAI's global hook lists (idempotent); returns ``self``."""
        if not self._registered:
            register_before_tool_call_hook(self.before_tool_call)
            register_after_tool_call_hook(self.after_tool_call)
            self._registered = True
        return self

    def unregister(self) -> None:
        """Remove both hooks again (idempotent)."""
        if self._registered:
            unregister_before_tool_call_hook(self.before_tool_call)
            unregister_after_tool_call_hook(self.after_tool_call)
            self._registered = False

    def __enter__(self) -> ToolSchemaHooks:
        return self.register()

    def __exit__(self, *exc_info: object) -> None:
        self.unregister()
