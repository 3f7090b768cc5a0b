"""What a plan needs to know about tools: which only read, and how a call carries over to a
tool's current schema (renames, added defaults, dropped parameters: one :class:`Migration`).

Pure functions; the argument mapping rules are :func:`deltacore.delta.migration.migrate_args`.

>>> read_only_of([{"name": "status", "parameters": {}, "annotations": {"readOnlyHint": True}}])
{'status': True}
>>> old = {"type": "object", "properties": {"svc": {"type": "string"}, "force": {"type": "boolean"}}}
>>> new = {"type": "object", "properties": {"service": {"type": "string"}, "mode": {"type": "string", "default": "safe"}},
...        "required": ["service", "mode"]}
>>> args, m = migrate_call("restart", {"svc": "api", "force": True}, old, new)
>>> args, m.renamed, m.added_defaults, m.dropped
({'service': 'api', 'mode': 'safe'}, {'svc': 'service'}, {'mode': 'safe'}, ('force',))
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from deltacore.delta.migration import migrate_args, params_of
from deltacore.learning.episodes import schema_id_of
from deltacore.learning.slots import template_slots
from deltacore.model.plans import Migration

_HINTS = ("readOnlyHint", "read_only", "readonly", "readOnly")
UNRUNNABLE_WEIGHT = 0.4
"""Probability factor of a plan with a call that cannot be migrated to the tool's current schema."""
GUESSED_WEIGHT = 0.8
"""Probability factor of a plan whose migration guessed a rename from the schemas' shape alone
(:func:`positional_renames`): likely, not yet seen to work."""


def read_only_of(tools: Mapping[str, Any] | Sequence[Any] | None) -> dict[str, bool]:
    """``tool -> read-only`` for the specs that say (MCP ``annotations.readOnlyHint``, a
    ``metadata`` / ``annotations`` attribute or key of a tool object, or a top-level key)."""
    if tools is None:
        return {}
    items = (
        list(tools.items())
        if isinstance(tools, Mapping)
        else [(None, spec) for spec in tools]
    )
    found: dict[str, bool] = {}
    for name, spec in items:
        if name is None:
            name = (
                spec.get("name")
                if isinstance(spec, Mapping)
                else getattr(spec, "name", None)
            )
            if isinstance(spec, Mapping) and isinstance(spec.get("function"), Mapping):
                name = name or spec["function"].get("name")
        if not isinstance(name, str):
            continue
        flag = _hint(spec)
        if flag is not None:
            found[name.strip()] = flag
    return found


def _hint(spec: Any) -> bool | None:
    holders: list[Any] = [spec]
    for key in ("annotations", "metadata"):
        value = spec.get(key) if isinstance(spec, Mapping) else getattr(spec, key, None)
        holders.append(value)
    for holder in holders:
        for hint in _HINTS:
            value = (
                holder.get(hint)
                if isinstance(holder, Mapping)
                else getattr(holder, hint, None)
                if holder is not spec
                else None
            )
            if isinstance(value, bool):
                return value
    return None


def migrate_call(
    tool: str,
    args: Mapping[str, Any],
    old_schema: Mapping[str, Any] | None,
    new_schema: Mapping[str, Any],
    renames: Mapping[str, str] | None = None,
    settled: Collection[str] = (),
) -> tuple[dict[str, Any] | None, Migration]:
    """``(args under new_schema or None, what changed)``. ``renames`` (gone parameter -> new
    one, :func:`confirmed_renames`) are applied first; then a parameter the new schema no longer
    has and nothing new matches is dropped (a removed option), once the rename rules found no
    home for it; ambiguous renames and required parameters without a default fail. A rename
    the schemas' shape alone suggests (:func:`positional_renames`) is made into a parameter
    not in ``settled`` (what successful calls under the new schema already put elsewhere,
    :func:`settled_params`) and named in ``Migration.guessed``."""
    args = dict(args)
    new = params_of(new_schema)
    confirmed: dict[str, str] = {}
    for gone, target in (renames or {}).items():
        if gone in args and gone not in new and target in new and target not in args:
            args[target] = args.pop(gone)
            confirmed[gone] = target
    guessed: dict[str, str] = {}
    if not migrate_args(args, old_schema, new_schema).ok:
        guessed = {
            gone: target
            for gone, target in positional_renames(args, old_schema, new_schema).items()
            if target not in settled
        }
        for gone, target in guessed.items():
            args[target] = args.pop(gone)
    confirmed.update(guessed)
    dropped: list[str] = []
    for _ in range(len(args) + 1):
        result = migrate_args(args, old_schema, new_schema)
        if result.ok:
            added = (
                {name: result.args[name] for name in result.defaulted}
                if result.args
                else {}
            )
            return result.args, Migration(
                tool=tool,
                renamed={**confirmed, **result.renamed},
                guessed=tuple(guessed),
                added_defaults=added,
                dropped=tuple(dropped),
            )
        gone = [name for name in args if name not in new and name not in result.renamed]
        reason = result.reason or ""
        culprit = next(
            (name for name in gone if f"parameter {name!r} no longer exists" in reason),
            None,
        )
        if culprit is None:
            return None, Migration(
                tool=tool,
                renamed={**confirmed, **result.renamed},
                dropped=tuple(dropped),
                ok=False,
                reason=reason,
            )
        dropped.append(culprit)
        args.pop(culprit)
    return None, Migration(
        tool=tool,
        dropped=tuple(dropped),
        ok=False,
        reason="arguments could not be migrated",
    )


def positional_renames(
    args: Mapping[str, Any],
    old_schema: Mapping[str, Any] | None,
    new_schema: Mapping[str, Any],
) -> dict[str, str]:
    """``{gone parameter: new parameter}`` when the schemas' shape says it and the names do
    not: the call's one parameter the new schema lacks, and the new schema's one parameter the
    old one lacked, which is required with no default, at the same position, of a shared type
    (``book_shipment(parcel, depot)`` -> ``book_shipment(parcel, destination)``). Anything
    less tidy (two parameters gone, a new one with a default, a moved position, an unknown old
    schema) is no guess: the call stays unrunnable until a success under the new name
    confirms a rename (:func:`confirmed_renames`)."""
    old, new = params_of(old_schema), params_of(new_schema)
    if not old or not new:
        return {}
    gone = [name for name in args if name not in new]
    fresh = [p for p in new.values() if p.name not in old and p.name not in args]
    if len(gone) != 1 or len(fresh) != 1 or gone[0] not in old:
        return {}
    source, target = old[gone[0]], fresh[0]
    if not target.required or target.has_default or source.position != target.position:
        return {}
    if source.types and target.types and not set(source.types) & set(target.types):
        return {}
    return {source.name: target.name}


def confirmed_renames(
    traces: Sequence[Any], schemas_now: Mapping[str, Mapping[str, Any] | None]
) -> dict[str, dict[str, str]]:
    """``tool -> {gone parameter: new parameter}`` for renames the names alone cannot tell
    (``principal`` -> ``member``) but successful episodes do: a parameter the tool's current
    schema lacks carried one task slot in the calls made before, and a parameter only the
    current schema has carries that same slot in every successful call made under it. One
    such success is enough; a successful call that put another value there, or two gone
    parameters with one home, is no rename."""
    renames: dict[str, dict[str, str]] = {}
    for tool, schema in schemas_now.items():
        params = params_of(schema)
        if not params:
            continue
        before: dict[str, Counter[str]] = {}
        after: dict[str, Counter[str]] = {}
        earlier_names: set[str] = set()
        for trace in traces:
            for call, template in zip(trace.plan, trace.templates):
                if call.tool != tool:
                    continue
                current = fits(call.args, schema)
                if not current:
                    earlier_names |= set(call.args)
                if trace.status != "success" or call.error_kind is not None:
                    continue
                side = after if current else before
                for name, value in template.items():
                    if isinstance(value, str) and template_slots(value):
                        side.setdefault(name, Counter())[value] += 1
                    else:
                        side.setdefault(name, Counter())[_dump(value)] += 1
        homes: dict[str, list[str]] = {}
        for gone, values in before.items():
            if gone in params:
                continue
            slot, _ = values.most_common(1)[0]
            if not template_slots(slot):
                continue
            homes[gone] = [
                name
                for name, seen in after.items()
                if name not in earlier_names and set(seen) == {slot}
            ]
        targets = Counter(t for found in homes.values() for t in found)
        chosen = {
            gone: found[0]
            for gone, found in homes.items()
            if len(found) == 1 and targets[found[0]] == 1
        }
        if chosen:
            renames[tool] = chosen
    return renames


def settled_params(
    traces: Sequence[Any], schemas_now: Mapping[str, Mapping[str, Any] | None]
) -> dict[str, frozenset[str]]:
    """``tool -> parameters`` that successful calls made under the tool's current schema
    filled: how they are used is seen, so no rename is guessed into them (a success that
    carried the old parameter's slot there confirms the rename instead:
    :func:`confirmed_renames`)."""
    found: dict[str, set[str]] = {}
    for trace in traces:
        if trace.status != "success":
            continue
        for call in trace.plan:
            schema = schemas_now.get(call.tool)
            if schema is None or call.error_kind is not None or not fits(call.args, schema):
                continue
            found.setdefault(call.tool, set()).update(call.args)
    return {tool: frozenset(names) for tool, names in found.items()}


def confirmed_tool_renames(
    traces: Sequence[Any], offered: Mapping[str, Any] | None
) -> dict[str, str]:
    """``old tool -> offered tool`` for a tool no longer on offer whose calls a tool first
    called after it now makes: a successful call of the new tool with the same template (each
    argument the same task slot or constant) as the old tool's successful calls. A tool that
    merely takes the same parameters is not enough (``get_user`` is not ``delete_user``)."""
    if offered is None:
        return {}
    calls: dict[str, Counter[str]] = {}
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    for trace in traces:
        for call, template in zip(trace.plan, trace.templates):
            first.setdefault(call.tool, trace.ts)
            if trace.status == "success" and call.error_kind is None:
                calls.setdefault(call.tool, Counter())[_dump(template)] += 1
                last[call.tool] = trace.ts
    homes: dict[str, list[str]] = {}
    for old, seen in calls.items():
        if old in offered:
            continue
        template = seen.most_common(1)[0][0]
        homes[old] = [
            new
            for new, new_seen in calls.items()
            if new in offered and first[new] > last[old] and set(new_seen) == {template}
        ]
    targets = Counter(t for found in homes.values() for t in found)
    return {
        old: found[0]
        for old, found in homes.items()
        if len(found) == 1 and targets[found[0]] == 1
    }


def call_now(
    learned_tool: str,
    template: Any,
    args: dict[str, Any],
    learned_schema: Mapping[str, Any] | None,
    schemas_now: Mapping[str, Mapping[str, Any] | None],
    offered: Mapping[str, Any] | None,
    renames: Mapping[str, Mapping[str, str]],
    tool_renames: Mapping[str, str],
    settled: Mapping[str, frozenset[str]] | None = None,
) -> tuple[str, dict[str, Any], Any, list[Migration], set[str]]:
    """One learned step made ready for the tools as they are now: ``(tool, args, template,
    migrations, flags)``. ``unrunnable``: the tool is not on offer, or its schema would reject
    arguments that could not be migrated."""
    tool = tool_renames.get(learned_tool, learned_tool)
    migrations: list[Migration] = []
    flags: set[str] = set()
    if tool != learned_tool:
        migrations.append(Migration(tool=tool, renamed_from=learned_tool))
        flags.add("drifted")
    if offered is not None and tool not in offered:
        flags.update({"stale", "unrunnable"})
    new_schema = schemas_now.get(tool)
    if new_schema is not None and not fits(args, new_schema):
        migrated, migration = migrate_call(
            tool,
            args,
            learned_schema,
            new_schema,
            renames.get(tool),
            (settled or {}).get(tool, ()),
        )
        migrations.append(migration)
        if migrated is not None:
            template, args = migrate_template(template, migration, migrated), migrated
            flags.add("drifted")
            if migration.guessed:
                flags.add("guessed")
        else:
            flags.update({"drifted", "stale", "unrunnable"})
    return tool, args, template, migrations, flags


def drift_factor(flags: Collection[str], tried: Sequence[bool]) -> float:
    """What a plan's probability keeps after its tools drifted. ``unrunnable``: a call the tool
    on offer would reject, so what the plan did before the schema changed no longer says it
    will work (as a migration that failed weighs in ``recall_decisions``). ``guessed``: the
    runs from before the change count for today's call only through a guessed rename, which
    is discounted until a success under the new schema confirms it; a run of the guessed call
    that failed (``tried``: the outcomes of runs under today's schema) refutes it."""
    if "unrunnable" in flags:
        return UNRUNNABLE_WEIGHT
    if "guessed" in flags:
        return UNRUNNABLE_WEIGHT if not all(tried) else GUESSED_WEIGHT
    return 1.0


def changed(migration: Migration) -> bool:
    return bool(
        migration.renamed_from
        or migration.renamed
        or migration.added_defaults
        or migration.dropped
        or not migration.ok
    )


def fits(args: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """The call's arguments are all parameters of ``schema`` and cover its required ones."""
    params = params_of(schema)
    if not params:
        return True
    return all(name in params for name in args) and all(
        p.name in args for p in params.values() if p.required
    )


def migrate_template(
    template: Mapping[str, Any], migration: Migration, migrated: Mapping[str, Any]
) -> dict[str, Any]:
    """The template under the new schema: renamed keys keep their placeholder, dropped ones go."""
    moved = {
        migration.renamed.get(k, k): v
        for k, v in template.items()
        if k not in migration.dropped
    }
    return {name: moved.get(name, value) for name, value in migrated.items()}


def pattern_now(
    trace: Any,
    schemas_now: Mapping[str, Mapping[str, Any] | None],
    versions: Mapping[tuple[str, str], Mapping[str, Any]],
    renames: Mapping[str, Mapping[str, str]] | None = None,
    tool_renames: Mapping[str, str] | None = None,
    settled: Mapping[str, frozenset[str]] | None = None,
) -> tuple[str, bool]:
    """``(schema id, guessed)``: a trace's schema id once its calls are migrated to the tools'
    current schemas (a plan learned before a schema change and the same plan run migrated
    after it are one pattern, so the migrated runs' outcomes count for and against it), and
    whether a migration only guessed a rename (:func:`positional_renames`). A call that did
    not fit the schema it was made under is not migrated: it failed for its arguments, which
    says nothing about the migrated plan."""
    moved, guessed, steps = False, False, []
    for call, template in zip(trace.plan, trace.templates):
        tool = (tool_renames or {}).get(call.tool, call.tool)
        moved = moved or tool != call.tool
        new_schema = schemas_now.get(tool)
        old = versions.get((call.tool, call.schema_hash or ""))
        valid_then = old is None or fits(call.args, old)
        if new_schema is not None and valid_then and not fits(call.args, new_schema):
            migrated, migration = migrate_call(
                tool,
                call.args,
                old,
                new_schema,
                (renames or {}).get(tool),
                (settled or {}).get(tool, ()),
            )
            if migrated is not None:
                template, moved = migrate_template(template, migration, migrated), True
                guessed = guessed or bool(migration.guessed)
        steps.append((call, tool, template))
    if not moved:
        return trace.schema_id, False
    return schema_id_of(
        [(tool, t) for c, tool, t in steps if not c.read_only]
        or [(tool, t) for _, tool, t in steps]
    ), guessed


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
