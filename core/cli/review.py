"""``deltacore review``: list the items waiting for a person, or resolve one."""

from __future__ import annotations

import argparse
import json

from deltacore.cli.formatting import one_line
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK, PROG, UsageError

RESOLUTIONS = ("accept", "reject")


def run_review(args: argparse.Namespace) -> int:
    """Resolve the item ``--resolve`` names, or print the queue as a table (or JSON)."""
    if args.resolution is not None and args.resolve is None:
        raise UsageError("--as needs --resolve ID (the item to resolve)")
    if args.resolve is not None and args.resolution is None:
        raise UsageError(f"say how to resolve item {args.resolve}: --as {' or --as '.join(RESOLUTIONS)}")
    migrated = None
    if args.migrated_args is not None:
        if args.resolve is None:
            raise UsageError("--args needs --resolve ID (the SCHEMA_DRIFT item it migrates)")
        try:
            migrated = json.loads(args.migrated_args)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--args is not valid JSON: {exc.msg} (at character {exc.pos})") from None
        if not isinstance(migrated, dict):
            raise UsageError('--args must be a JSON object, e.g. \'{"environment": "prod"}\'')
    with open_store(args) as memory:
        if args.resolve is not None:
            resolution = args.resolution + (f": {args.note}" if args.note else "")
            item = memory.resolve_review(args.resolve, resolution, args=migrated)
            if args.json:
                print(item.model_dump_json(indent=2))
            else:
                print(f"item {item.id} ({item.kind}) resolved: {item.resolution}")
            return EXIT_OK
        items = memory.review_queue(tenant=args.tenant, include_resolved=args.all)
    if args.json:
        print(json.dumps([item.model_dump(mode="json") for item in items], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not items:
        print("nothing to review" if not args.all else "the review queue is empty")
        return EXIT_OK
    rows = [
        (
            str(item.id),
            item.kind,
            item.tenant,
            item.created.strftime("%Y-%m-%d %H:%M"),
            (item.resolution or "") if args.all else (item.event_id or item.delta_id or "-"),
            one_line(item.reason, 110),
        )
        for item in items
    ]
    header = ("id", "kind", "tenant", "created", "resolution" if args.all else "event", "reason")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1])
    waiting = sum(1 for item in items if item.resolved_at is None)
    print(f"{waiting} waiting; resolve one with: {PROG} review --resolve ID --as accept|reject [--note TEXT]")
    return EXIT_OK

