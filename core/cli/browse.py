"""``deltacore list``, ``show`` and ``delete``: browse and manage the stored memories.

``list`` pages through what ``DeltaCore.events`` returns (current versions, oldest first);
``show`` prints one memory with its trust flags, versions and provenance; ``delete`` removes
memories (every version, with deltas, links, full-text entries and vectors) only with ``--yes``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from deltacore.cli.formatting import one_line
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PROG
from deltacore.errors import NotFoundError
from deltacore.model import EventKind


def add_browse_commands(commands: Any, store_options: Any, positive_int: Any, timestamp: Any) -> None:
    """Register ``list``, ``show`` and ``delete`` on the ``deltacore`` subparsers."""
    listing = commands.add_parser(
        "list",
        help="list stored memories, oldest first, a page at a time",
        description="List stored memories (the current version of each), oldest first. Filters "
        "combine with AND. Page with --after: the last line says the command for the next page.",
    )
    _selectors(listing)
    listing.add_argument("--kind", action="append", choices=[k.value for k in EventKind], default=None, help="only this kind (repeatable)")
    listing.add_argument("--since", type=timestamp, default=None, metavar="ISO", help="only memories at or after this time")
    listing.add_argument("--until", type=timestamp, default=None, metavar="ISO", help="only memories at or before this time")
    listing.add_argument("--quarantined", action="store_true", help="include quarantined memories")
    listing.add_argument("--limit", type=positive_int, default=50, metavar="N", help="at most N per page (default 50)")
    listing.add_argument("--after", default=None, metavar="ID", help="start after this id (the last one of the previous page)")
    listing.add_argument("--json", action="store_true", help="print JSON lines (one event per line)")
    store_options(listing, top_level=False)
    listing.set_defaults(handler=run_list)

    show = commands.add_parser(
        "show",
        help="one memory with its trust flags, versions and provenance",
        description="Print one memory: its fields, where the trust gateway put it and why, every "
        "version (update keeps the earlier ones), and its causal provenance (what caused it).",
    )
    show.add_argument("id", metavar="ID", help="the memory's id (any version's)")
    show.add_argument("--depth", type=positive_int, default=3, metavar="N", help="provenance hops to walk (default 3)")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    store_options(show, top_level=False)
    show.set_defaults(handler=run_show)

    delete = commands.add_parser(
        "delete",
        help="delete memories (by id or by scope); needs --yes",
        description="Delete memories with every version, their deltas, links, full-text entries and "
        "vectors. Without --yes, only says what would be deleted. Selectors combine with AND.",
    )
    delete.add_argument("ids", nargs="*", metavar="ID", help="memory ids to delete")
    _selectors(delete)
    delete.add_argument("--yes", action="store_true", help="really delete (without it: a dry run)")
    store_options(delete, top_level=False)
    delete.set_defaults(handler=run_delete)


def _selectors(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", dest="user_id", default=None, metavar="ID", help="only this user's memories")
    parser.add_argument("--agent", dest="agent_id", default=None, metavar="ID", help="only this agent's memories")
    parser.add_argument("--session", dest="session_id", default=None, metavar="ID", help="only this session's memories")
    parser.add_argument("--entity", default=None, metavar="NAME", help="only memories about this entity")


def _tenant(args: argparse.Namespace) -> str:
    return args.tenant if args.tenant is not None else "default"


def run_list(args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {"tenant": _tenant(args), "include_quarantined": args.quarantined}
    for name in ("user_id", "agent_id", "session_id", "entity"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.kind:
        fields["kinds"] = tuple(args.kind)
    if args.since is not None or args.until is not None:
        fields["time_range"] = (args.since, args.until)
    with open_store(args) as memory:
        page = memory.events(after=args.after, limit=args.limit, **fields)
    if args.json:
        for event in page:
            print(event.model_dump_json())
        return EXIT_OK
    for event in page:
        who = event.actor or event.source or event.role or "-"
        print(f"{event.id}  {event.ts:%Y-%m-%d %H:%M}  {event.kind.value:<11}  {who:<16}  {one_line(event.text or event.tool_name or '', 70)}")
    if not page:
        print("no memories" if args.after is None else "no more memories")
    elif len(page) == args.limit:
        print(f"{len(page)} shown; next page: {PROG} list --after {page[-1].id} --limit {args.limit}")
    else:
        print(f"{len(page)} shown")
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    tenant = _tenant(args)
    with open_store(args) as memory:
        try:
            versions = memory.versions(args.id, tenant=tenant)
        except NotFoundError:
            print(f"{PROG}: no memory with id {args.id!r} in tenant {tenant!r}", file=sys.stderr)
            return EXIT_FAILED
        shown = next(v for v in versions if v.event.id == args.id)
        chain = memory.query_causal(args.id, depth=args.depth, direction="ancestors")
        decisions = [e for e in memory.security_events(tenant=tenant) if e.event_id == args.id]
    delta = chain.deltas.get(chain.root)
    report = {
        "event": shown.event.model_dump(mode="json"),
        "namespace": shown.namespace.value,
        "trust": shown.trust,
        "current": shown.current,
        "flags": list(delta.conflict_flags) if delta else [],
        "utility": delta.utility if delta else None,
        "credit": delta.credit if delta else None,
        "trust_decisions": [e.model_dump(mode="json") for e in decisions],
        "versions": [
            {"version": v.version, "id": v.event.id, "ts": v.event.ts.isoformat(), "text": v.event.text,
             "namespace": v.namespace.value, "replaced_by": v.replaced_by}
            for v in versions
        ],
        "provenance": [
            {"delta_id": d.id, "event_id": d.event_id, "action": d.action, "result": d.result}
            for d in chain.deltas.values() if d.id != chain.root
        ],
        "edges": chain.edges,
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        return EXIT_OK
    event = shown.event
    print(f"id         {event.id}{'' if shown.current else '  (an earlier version; current: ' + versions[-1].event.id + ')'}")
    print(f"kind       {event.kind.value}    ts {event.ts:%Y-%m-%d %H:%M:%S}")
    scope = ", ".join(f"{k}={v}" for k, v in (("tenant", event.tenant), ("agent", event.agent_id), ("user", event.user_id),
                                                ("session", event.session_id), ("episode", event.episode_id)) if v)
    print(f"scope      {scope}")
    print(f"source     {event.source or '-'}   role {event.role or '-'}   actor {event.actor or '-'}")
    print(f"trust      {shown.namespace.value} ({shown.trust:.3f})" + (f"   flags: {', '.join(report['flags'])}" if report["flags"] else ""))
    for decision in decisions:
        print(f"gateway    {decision.action or '-'} {decision.score if decision.score is not None else '-'}: {'; '.join(decision.reasons)}")
    if delta is not None:
        print(f"learning   utility {delta.utility:.3f}   credit {delta.credit:.3f}")
    if event.entities:
        print(f"entities   {', '.join(event.entities)}")
    if event.meta:
        print(f"meta       {one_line(json.dumps(event.meta, ensure_ascii=False, default=str), 90)}")
    print(f"text       {event.text or event.tool_name or ''}")
    print(f"versions   {len(versions)}")
    for v in versions:
        marker = "*" if v.event.id == event.id else " "
        state = "current" if v.current else f"replaced {v.replaced_at:%Y-%m-%d %H:%M}" if v.replaced_at else "replaced"
        print(f"  {marker}{v.version:>3}. {v.event.id}  {v.namespace.value:<10}  {state:<24}  {one_line(v.event.text, 50)}")
    print(f"provenance {len(report['provenance'])} ancestor(s) within {args.depth} hop(s)")
    for item in report["provenance"]:
        print(f"     {item['event_id']}  {one_line(item['action'], 20):<20}  {one_line(item['result'], 60)}")
    return EXIT_OK


def run_delete(args: argparse.Namespace) -> int:
    tenant = _tenant(args)
    selectors = {name: getattr(args, name) for name in ("user_id", "agent_id", "session_id", "entity") if getattr(args, name)}
    if not args.ids and not selectors:
        print(f"{PROG}: name what to delete: ids, --user, --agent, --session or --entity", file=sys.stderr)
        return EXIT_USAGE
    with open_store(args) as memory:
        if not args.yes:
            found = _would_delete(memory, args.ids, selectors, tenant)
            print(f"would delete {found} memor{'y' if found == 1 else 'ies'} (with every version); rerun with --yes to delete")
            return EXIT_USAGE if found else EXIT_OK
        result = memory.delete(args.ids or None, tenant=tenant, **selectors)
    print(f"deleted {len(result.event_ids)} event(s), {result.deltas_removed} delta(s), {result.links_removed} link(s)")
    missing = sorted(set(args.ids) - set(result.event_ids))
    for event_id in missing:
        print(f"{PROG}: {event_id} was not found in tenant {tenant!r}", file=sys.stderr)
    return EXIT_FAILED if missing else EXIT_OK


def _would_delete(memory: Any, ids: list[str], selectors: dict[str, str], tenant: str) -> int:
    """How many current memories a delete would remove (a dry run reads, never writes)."""
    if ids:
        kept = 0
        for event_id in ids:
            try:
                event = memory.get(event_id, latest=True)
            except NotFoundError:
                continue
            if event.tenant == tenant and all(_matches(event, name, value) for name, value in selectors.items()):
                kept += 1
        return kept
    count, after = 0, None
    while True:
        page = memory.events(after=after, limit=1000, tenant=tenant, include_quarantined=True, **selectors)
        count += len(page)
        if len(page) < 1000:
            return count
        after = page[-1].id


def _matches(event: Any, name: str, value: str) -> bool:
    if name == "entity":
        folded = value.casefold()
        return folded in {e.casefold() for e in event.entities} or (event.actor or "").casefold() == folded or event.user_id == value
    return getattr(event, name) == value
