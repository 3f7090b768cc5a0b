"""``deltacore facts`` and ``deltacore conflicts``: what the store believes, and settling contradictions."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime

from deltacore.belief import ConflictRecord, ConflictResolution, Fact
from deltacore.cli.formatting import one_line
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK, PROG, UsageError
from deltacore.errors import InvalidQueryError, NotFoundError

VALUE_WIDTH = 40


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Columns padded to their widest cell; the last column is not padded."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print(("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1]).rstrip())


def run_facts(args: argparse.Namespace) -> int:
    """Print the facts believed now (or valid at ``--at``) as a table, or as JSON."""
    tenant = args.tenant if args.tenant is not None else "default"
    with open_store(args) as memory:
        facts = memory.facts(args.subject, args.attribute, args.at, tenant=tenant)
    if args.json:
        print(json.dumps([fact.model_dump(mode="json") for fact in facts], indent=2, ensure_ascii=False))
        return EXIT_OK
    when = f" as of {args.at:%Y-%m-%d %H:%M}" if args.at is not None else ""
    if not facts:
        print(f"no facts{when}")
        return EXIT_OK
    _table(("subject", "attribute", "value", "status", "since", "until", "belief", "source"), [_fact_row(f) for f in facts])
    contested = sum(1 for f in facts if f.status.value == "contested")
    tail = f" ({contested} contested: see `{PROG} conflicts`)" if contested else ""
    print(f"{len(facts)} fact{'s' if len(facts) != 1 else ''}{when}{tail}")
    return EXIT_OK


def _fact_row(fact: Fact) -> tuple[str, ...]:
    return (
        fact.subject,
        fact.attribute,
        one_line(fact.value, VALUE_WIDTH),
        fact.status.value,
        _when(fact.valid_from),
        _when(fact.valid_until),
        f"{fact.weight:.2f}",
        fact.source or "-",
    )


def run_conflicts(args: argparse.Namespace) -> int:
    """Resolve the conflict ``--resolve`` names, or print the open ones (``--all``: every one)."""
    if args.resolution is not None and args.resolve is None:
        raise UsageError("--as needs --resolve ID (the conflict to settle)")
    if args.resolve is not None and args.resolution is None:
        raise UsageError(f"say which side wins conflict {args.resolve}: --as old, --as new or --as VALUE")
    if args.note is not None and args.resolve is None:
        raise UsageError("--note needs --resolve ID (the conflict it explains)")
    tenant = args.tenant if args.tenant is not None else "default"
    with open_store(args) as memory:
        if args.resolve is not None:
            return _resolve(memory, args, tenant)
        conflicts = memory.conflicts(tenant=tenant, include_resolved=args.all)
    if args.json:
        print(json.dumps([c.model_dump(mode="json") for c in conflicts], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not conflicts:
        print("no open conflicts" if not args.all else "no conflicts")
        return EXIT_OK
    header = ["id", "subject", "attribute", "old value", "new value", "created"]
    if args.all:
        header.append("resolution")
    _table(header, [_conflict_row(c, args.all) for c in conflicts])
    pending = sum(1 for c in conflicts if c.resolution is ConflictResolution.PENDING)
    print(f"{pending} open; settle one with: {PROG} conflicts --resolve ID --as old|new|VALUE [--note TEXT]")
    return EXIT_OK


def _conflict_row(conflict: ConflictRecord, with_resolution: bool) -> list[str]:
    row = [
        conflict.id,
        conflict.subject,
        conflict.attribute,
        f"{one_line(conflict.old_value, VALUE_WIDTH)} ({conflict.old_belief:.2f})",
        f"{one_line(conflict.new_value, VALUE_WIDTH)} ({conflict.new_belief:.2f})",
        _when(conflict.created_at),
    ]
    if with_resolution:
        winner = {conflict.old_fact_id: conflict.old_value, conflict.new_fact_id: conflict.new_value}.get(conflict.winner_fact_id or "")
        row.append(conflict.resolution.value + (f": {winner}" if winner is not None else ""))
    return row


def _resolve(memory, args: argparse.Namespace, tenant: str) -> int:
    known = {c.id: c for c in memory.conflicts(tenant=tenant, include_resolved=True)}
    found = known.get(args.resolve)
    if found is not None and found.resolution is not ConflictResolution.PENDING:
        raise UsageError(f"--resolve: conflict {args.resolve} is already resolved ({found.resolution.value})")
    choice = args.resolution.strip()
    if ":" in choice:
        # The engine reads text after a colon as the note.
        raise UsageError("--as: say the side (old, new or a value) without a colon; put the reason in --note")
    resolution = choice + (f": {args.note}" if args.note else "")
    try:
        conflict = memory.resolve_conflict(args.resolve, resolution)
    except NotFoundError:
        raise UsageError(f"--resolve: no conflict with id {args.resolve!r} (list them with `{PROG} conflicts --all`)") from None
    except InvalidQueryError as exc:
        raise UsageError(f"--as: {str(exc).removeprefix(exc.field + ': ')}") from None
    if args.json:
        print(conflict.model_dump_json(indent=2))
        return EXIT_OK
    winner = conflict.new_value if conflict.winner_fact_id == conflict.new_fact_id else conflict.old_value
    note = f" ({conflict.note})" if conflict.note and conflict.note != choice else ""
    print(f"conflict {conflict.id} ({conflict.subject} {conflict.attribute}) resolved: {winner}{note}")
    return EXIT_OK
