"""Migrating a stored argument pattern to a tool's new schema (E04 auto-migration).

Pure functions, no storage. A tool's schema is a JSON schema of its arguments (what every
adapter records: ``{"type": "object", "properties": {...}, "required": [...]}``). Given the
arguments a delta was called with, the schema they were valid under and the tool's new schema,
:func:`migrate_args` applies three parameter mapping rules:

1. **Renamed parameter.** An argument whose name is gone is matched to a parameter that is new
   in the new schema, scored by name similarity (``env`` → ``environment``: one is a prefix of
   the other; otherwise a character-level ratio), same type, same position and same
   description. The best candidate must score at least :data:`RENAME_THRESHOLD` and be
   unambiguous (no second candidate within :data:`AMBIGUITY_MARGIN`), else the migration fails:
   an argument is never guessed into a parameter it may not mean (``api_key`` is not
   ``bearer_token`` just because both are strings in first position).
2. **Retyped parameter.** A value is cast only when the cast loses nothing (``"8080"`` → 8080,
   ``3`` → ``3.0`` or ``"3"``, ``"true"`` → True, a scalar into a one-item array, a value that
   must be one of an ``enum``); anything else fails.
3. **New required parameter.** Filled from its ``default``; without one the migration fails.

A failed migration says why in plain words; the caller queues the delta for a person.

>>> old = {"type": "object", "properties": {"service": {"type": "string"}, "env": {"type": "string"}}}
>>> new = {"type": "object", "properties": {"service": {"type": "string"}, "environment": {"type": "string"}},
...        "required": ["service", "environment"]}
>>> result = migrate_args({"service": "api", "env": "prod"}, old, new)
>>> result.ok, result.args, result.renamed
(True, {'service': 'api', 'environment': 'prod'}, {'env': 'environment'})
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RENAME_THRESHOLD = 0.55
"""Least score (in [0, 1]) for an argument to be carried over to a new parameter name."""
AMBIGUITY_MARGIN = 0.15
"""A rename is refused when a second candidate scores within this of the best one (more than
the position weight: position alone never decides between two equally named candidates)."""

# Weights of the rename score's parts: the name says most; type, position and description
# only confirm it (on their own they cannot reach the threshold).
_NAME, _TYPE, _POSITION, _DESCRIPTION = 0.55, 0.2, 0.1, 0.15


@dataclass(frozen=True)
class Param:
    name: str
    position: int
    types: tuple[str, ...]
    required: bool
    has_default: bool
    default: Any = None
    description: str = ""
    enum: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Migration:
    ok: bool
    args: dict[str, Any] | None
    """The arguments under the new schema (None when the migration failed)."""
    renamed: dict[str, str] = field(default_factory=dict)
    cast: dict[str, str] = field(default_factory=dict)
    """Parameter -> ``"old type -> new type"`` for values that were cast."""
    defaulted: list[str] = field(default_factory=list)
    """New required parameters filled from their default."""
    reason: str | None = None
    """Why it failed, in words a reviewer can act on."""

    def mapping(self) -> dict[str, Any]:
        return {"renamed": self.renamed, "cast": self.cast, "defaulted": self.defaulted}


def params_of(schema: Mapping[str, Any] | None) -> dict[str, Param]:
    """The parameters a JSON schema declares, in declaration order."""
    if not isinstance(schema, Mapping):
        return {}
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    required = set(schema.get("required") or ())
    found: dict[str, Param] = {}
    for position, (name, spec) in enumerate(properties.items()):
        spec = spec if isinstance(spec, Mapping) else {}
        found[name] = Param(
            name=name,
            position=position,
            types=_types(spec),
            required=name in required,
            has_default="default" in spec,
            default=spec.get("default"),
            description=str(spec.get("description") or spec.get("title") or ""),
            enum=tuple(spec["enum"]) if isinstance(spec.get("enum"), list) else None,
        )
    return found


def interface_signature(schema: Mapping[str, Any] | None) -> str | None:
    """What a call depends on in a schema: parameter names, types (``null`` aside), which are
    required and their allowed values — not titles, descriptions or defaults. Two renderings
    of one tool (a framework's offered schema and its pydantic ``args_schema``) share it; a
    changed interface does not. None when the schema declares no parameters.

    >>> a = {"type": "object", "title": "Deploy", "properties": {"env": {"type": "string", "title": "Env"}}}
    >>> b = {"type": "object", "properties": {"env": {"type": "string", "description": "where"}}}
    >>> interface_signature(a) == interface_signature(b)
    True
    """
    params = params_of(schema)
    if not params and not isinstance(schema, Mapping):
        return None
    parts = [
        [p.name, sorted(t for t in p.types if t != "null"), p.required, sorted(map(str, p.enum)) if p.enum else None]
        for p in sorted(params.values(), key=lambda p: p.name)
    ]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def migrate_args(
    args: Mapping[str, Any] | None, old_schema: Mapping[str, Any] | None, new_schema: Mapping[str, Any]
) -> Migration:
    """``args`` (valid under ``old_schema``, which may be unknown) rewritten for ``new_schema``."""
    args = dict(args or {})
    new = params_of(new_schema)
    if not new:
        if not args:
            return Migration(True, {})
        return Migration(False, None, reason="the new schema declares no parameters to map the arguments to")
    old = params_of(old_schema) or _inferred(args)
    result: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    cast: dict[str, str] = {}
    # Parameters the new schema introduces: the only places a gone argument may have moved to.
    fresh = [p for p in new.values() if p.name not in old and p.name not in args]
    gone = [name for name in args if name not in new]
    for name in gone:
        source = old.get(name) or _inferred({name: args[name]})[name]
        scored = sorted(
            ((_rename_score(source, candidate), candidate.name) for candidate in fresh if candidate.name not in result),
            reverse=True,
        )
        if not scored or scored[0][0] < RENAME_THRESHOLD:
            hint = f" (closest: {scored[0][1]!r})" if scored else ""
            return Migration(False, None, reason=f"parameter {name!r} no longer exists and no new parameter matches it{hint}")
        if len(scored) > 1 and scored[0][0] - scored[1][0] < AMBIGUITY_MARGIN:
            return Migration(
                False, None, reason=f"parameter {name!r} could have become {scored[0][1]!r} or {scored[1][1]!r}"
            )
        renamed[name] = scored[0][1]
    for name, value in args.items():
        target = new[renamed.get(name, name)]
        ok, converted, change = _cast(value, target)
        if not ok:
            return Migration(
                False, None, renamed, reason=f"parameter {target.name!r} is now {'/'.join(target.types)}: cannot safely convert {value!r}"
            )
        if change:
            cast[target.name] = change
        result[target.name] = converted
    defaulted: list[str] = []
    for param in new.values():
        if param.name in result or not param.required:
            continue
        if not param.has_default:
            return Migration(False, None, renamed, cast, reason=f"new required parameter {param.name!r} has no default")
        result[param.name] = param.default
        defaulted.append(param.name)
    ordered = {name: result[name] for name in new if name in result}
    return Migration(True, ordered, renamed, cast, defaulted)


def _rename_score(old: Param, new: Param) -> float:
    score = _NAME * name_similarity(old.name, new.name)
    if old.types and new.types and set(old.types) & set(new.types):
        score += _TYPE
    if old.position == new.position:
        score += _POSITION
    if old.description and new.description:
        ratio = difflib.SequenceMatcher(None, old.description.lower(), new.description.lower()).ratio()
        score += _DESCRIPTION * ratio
    return round(score, 6)


def name_similarity(a: str, b: str) -> float:
    """In [0, 1]: 1 for the same words, high when one name abbreviates the other."""
    wa, wb = _words(a), _words(b)
    if wa == wb:
        return 1.0
    ja, jb = "".join(wa), "".join(wb)
    if ja and jb and (ja.startswith(jb) or jb.startswith(ja)):
        return 0.9  # env / environment, max / max_items
    shared = set(wa) & set(wb)
    overlap = len(shared) / max(len(set(wa) | set(wb)), 1)
    return max(overlap, difflib.SequenceMatcher(None, ja, jb).ratio())


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _types(spec: Mapping[str, Any]) -> tuple[str, ...]:
    kind = spec.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(str(k) for k in kind)
    options = spec.get("anyOf") or spec.get("oneOf")
    if isinstance(options, list):
        return tuple(t for option in options if isinstance(option, Mapping) for t in _types(option))
    return ()


def _inferred(args: Mapping[str, Any]) -> dict[str, Param]:
    return {
        name: Param(name, position, (json_type(value),), required=True, has_default=False)
        for position, (name, value) in enumerate(args.items())
    }


def json_type(value: Any) -> str:
    """The JSON-schema type name of a value (``"string"``, ``"integer"``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _cast(value: Any, param: Param) -> tuple[bool, Any, str | None]:
    """(ok, value for ``param``, "from -> to" when it was converted). Lossless casts only."""
    if param.enum is not None and value not in param.enum:
        matches = [option for option in param.enum if str(option).lower() == str(value).lower()]
        if len(matches) != 1:
            return False, None, None
        return True, matches[0], f"{value!r} -> {matches[0]!r}"
    kind = json_type(value)
    if not param.types or kind in param.types or (kind == "integer" and "number" in param.types):
        return True, value, None
    for target in param.types:
        ok, converted = _convert(value, kind, target)
        if ok:
            return True, converted, f"{kind} -> {target}"
    return False, None, None


def _convert(value: Any, kind: str, target: str) -> tuple[bool, Any]:
    if target == "string" and kind in ("integer", "number", "boolean"):
        return True, str(value).lower() if kind == "boolean" else str(value)
    if target == "integer":
        if kind == "string" and re.fullmatch(r"[+-]?\d+", value.strip()):
            return True, int(value)
        if kind == "number" and float(value).is_integer():
            return True, int(value)
    if target == "number" and kind == "string":
        try:
            return True, float(value)
        except ValueError:
            return False, None
    if target == "boolean" and kind == "string" and value.strip().lower() in ("true", "false"):
        return True, value.strip().lower() == "true"
    if target == "array" and kind != "array":
        return True, [value]
    return False, None
