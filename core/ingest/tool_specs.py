"""Reading the tool lists frameworks offer a model into ``(name, JSON schema)`` pairs.

Accepted shapes (one list may mix them): ``{name: schema}``; OpenAI ``{"type": "function",
"function": {"name", "parameters"}}``; plain ``{"name", "parameters"}``; Anthropic ``{"name",
"input_schema"}``; ``{"name", "args_schema"}``; or any tool object with a ``name`` and an
``args_schema`` / ``parameters`` / ``input_schema`` attribute (LangChain and CrewAI tools). A
schema is a JSON schema dict or a pydantic model class (its ``model_json_schema()``). A spec
that cannot be read is reported by position and the others are still read.

Frameworks render one tool's schema differently (titles, descriptions); drift detection compares
interfaces (:func:`deltacore.delta.migration.interface_signature`), so that is harmless.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deltacore.ingest.normalize import schema_hash
from deltacore.model import Rejection

_SCHEMA_KEYS = ("parameters", "input_schema", "args_schema", "schema")


def read_tool_specs(tools: Mapping[str, Any] | Sequence[Any]) -> tuple[list[tuple[str, dict[str, Any], str]], list[Rejection]]:
    """``([(name, schema, schema hash)], rejections)``."""
    if isinstance(tools, Mapping):
        items: list[tuple[str | None, Any]] = [(name, schema) for name, schema in tools.items()]
    elif isinstance(tools, Sequence) and not isinstance(tools, (str, bytes)):
        items = [(None, spec) for spec in tools]
    else:
        raise TypeError("tools must be a mapping {name: schema} or a list of tool specs")
    found: list[tuple[str, dict[str, Any], str]] = []
    rejected: list[Rejection] = []
    for index, (name, spec) in enumerate(items):
        if name is None:
            name, spec = _unwrap(spec)
        schema = _as_schema(spec)
        if not isinstance(name, str) or not name.strip():
            rejected.append(Rejection(index=index, field="name", reason="each tool needs a non-empty name"))
        elif schema is None:
            rejected.append(
                Rejection(
                    index=index,
                    field="parameters",
                    reason=f"tool {name!r} has no readable schema: give a JSON schema dict or a pydantic model",
                )
            )
        else:
            found.append((name.strip(), schema, schema_hash(schema)))
    return found, rejected


def _unwrap(spec: Any) -> tuple[Any, Any]:
    if not isinstance(spec, Mapping):
        name = getattr(spec, "name", None)
        for key in _SCHEMA_KEYS:
            value = getattr(spec, key, None)
            if isinstance(value, Mapping) and isinstance(value.get("parameters"), Mapping):
                value = value["parameters"]  # an AutoGen-style {"name", "parameters"} schema
            if value is not None and _as_schema(value) is not None:
                return name, value
        return name, None
    if isinstance(spec.get("function"), Mapping):
        spec = spec["function"]
    for key in _SCHEMA_KEYS:
        if key in spec:
            return spec.get("name"), spec[key]
    return spec.get("name"), None


def _as_schema(spec: Any) -> dict[str, Any] | None:
    if isinstance(spec, Mapping):
        return dict(spec)
    if hasattr(spec, "model_json_schema"):
        try:
            return dict(spec.model_json_schema())
        except Exception:  # noqa: BLE001 - an unusable model is reported as unreadable
            return None
    return None
