"""``deltacore quarantine`` and ``security-events``: the trust gateway's review desk and log."""

from __future__ import annotations

import argparse
import json
import sys

from deltacore.cli.formatting import one_line
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, PROG


def run_quarantine(args: argparse.Namespace) -> int:
    """Apply the verdicts given (exit 1 if an id is not in quarantine), or list what waits there."""
    tenant = args.tenant if args.tenant is not None else "default"
    verdicts = {
        "release": args.release,
        "release_unverified": args.release_unverified,
        "confirm": args.confirm,
        "delete": args.delete,
    }
    with open_store(args) as memory:
        if not any(verdicts.values()):
            pending = memory.quarantined(tenant=tenant, limit=args.limit)
            if args.json:
                print(json.dumps([e.model_dump(mode="json") for e in pending], indent=2, ensure_ascii=False))
            elif not pending:
                print("nothing in quarantine")
            else:
                for event in pending:
                    print(f"{event.id}  {event.ts:%Y-%m-%d %H:%M}  {event.source or '-':<16}  {one_line(event.text or event.tool_name or '')}")
                print(f"{len(pending)} quarantined")
            return EXIT_OK
        status = EXIT_OK
        for verdict, ids in verdicts.items():
            if not ids:
                continue
            review = memory.quarantine_review(ids, verdict, tenant=tenant)
            if args.json:
                print(review.model_dump_json())
            else:
                print(f"{verdict}: {len(review.event_ids)} event(s)")
            for missing in review.not_quarantined:
                print(f"{PROG}: {missing} is not in quarantine (left unchanged)", file=sys.stderr)
                status = EXIT_FAILED
    return status


def run_security_events(args: argparse.Namespace) -> int:
    """Print the security log, oldest first, one line (or one JSON object) per entry."""
    tenant = args.tenant if args.tenant is not None else "default"
    with open_store(args) as memory:
        entries = memory.security_events(args.since, kind=args.kind, tenant=tenant)
    for entry in entries:
        if args.json:
            print(entry.model_dump_json())
            continue
        score = f"{entry.score:.3f}" if entry.score is not None else "-"
        reasons = "; ".join(entry.reasons)
        print(f"{entry.ts:%Y-%m-%d %H:%M:%S}  {entry.kind:<19} {entry.action or '-':<10} {score:>5}  {entry.source or '-':<16} {entry.event_id or '-'}  {reasons}")
    if not entries and not args.json:
        print("no security events")
    return EXIT_OK
