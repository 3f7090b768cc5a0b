"""``deltacore consolidate``: run one sleep cycle (or show where consolidation stands)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK
from deltacore.model import ConsolidationPhase


def add_parser(commands: Any, store_options: Callable[..., None]) -> None:
    """Register ``consolidate`` (called by ``deltacore.cli.parser``)."""
    command = commands.add_parser(
        "consolidate",
        help="run a sleep cycle: merge near-duplicates, archive cold memories, roll back a regression",
        description="Run one consolidation cycle for --tenant: NREM merges near-duplicate memories into "
        "new ones (originals kept, readable by id), PRUNE moves low-utility memories nobody retrieved to the "
        "COLD tier (Parquet; never deleted), plan patterns repeated across episodes become or update schemas, "
        "REM audits merged memories and schemas. The cycle is applied in one "
        "transaction and rolled back when probe precision@5 falls. --status only reports.",
    )
    command.add_argument("--phase", action="append", choices=[p.value for p in ConsolidationPhase], default=None,
                         help="run only this phase (repeatable; default: all)")
    command.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                         help="stop planning after this many seconds; the next cycle resumes")
    command.add_argument("--status", action="store_true", help="print where consolidation stands, run nothing")
    command.add_argument("--json", action="store_true", help="print JSON")
    store_options(command, top_level=False)
    command.set_defaults(handler=run_consolidate)


def run_consolidate(args: argparse.Namespace) -> int:
    """Run the cycle (with a progress bar per phase) and print its report."""
    from deltacore.cli.progress import Progress

    tenant = args.tenant or "default"
    with open_store(args) as memory:
        if args.status:
            result: Any = memory.consolidate_status(tenant=tenant)
        else:
            progress = Progress()
            try:
                result = memory.consolidate(args.phase, budget=args.budget, tenant=tenant, progress=progress)
            finally:
                progress.close()
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    elif args.status:
        print(f"tenant {result.tenant}: {result.cycles} cycles ({result.rolled_back} rolled back), "
              f"{result.events_since_last} events since the last, due: {'yes' if result.due else 'no'}; "
              f"{result.merged_live} merged memories live, {result.cold_items} COLD rows in {result.cold_partitions} partitions")
    else:
        verdict = f"ROLLED BACK ({result.reason})" if result.rolled_back else "kept"
        print(f"cycle {result.cycle_id}: {verdict}")
        print(f"  merged {result.merged} new memories from {result.originals_hidden} originals; "
              f"{result.pruned} moved to COLD; {result.anchors_kept} anchors kept")
        fidelity = "n/a" if result.fidelity is None else f"{result.fidelity:.3f}"
        before = "n/a" if result.precision_before is None else f"{result.precision_before:.3f}"
        after = "n/a" if result.precision_after is None else f"{result.precision_after:.3f}"
        print(f"  fidelity {fidelity}; probe precision@5 {before} -> {after} over {result.probes} probes; "
              f"{result.seconds:.2f} s" + ("; budget ran out, the next cycle resumes" if result.timed_out else ""))
        schema_fidelity = "n/a" if result.schema_fidelity is None else f"{result.schema_fidelity:.3f}"
        print(f"  schemas: {result.schemas_created} created, {result.schemas_updated} updated, "
              f"{result.schemas_merged} merged into another; fidelity {schema_fidelity}"
              + (f"; under the floor: {', '.join(result.low_fidelity_schemas)}" if result.low_fidelity_schemas else ""))
        for note in result.notes:
            print(f"  note: {note}")
    return EXIT_OK
