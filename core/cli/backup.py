"""``deltacore export`` and ``deltacore import``: a versioned dump of a tenant or a store, and its restore.

Also the way to move a store between backends: export from one (``--path``), import into the
other (``--database-url … --chroma-url …``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK, PROG


def add_backup_commands(commands: Any, store_options: Any) -> None:
    """Register ``export`` and ``import`` on the ``deltacore`` subparsers."""
    export = commands.add_parser(
        "export",
        help="write a versioned dump (JSON Lines) of a tenant or the whole store",
        description="Write a dump of the store (or of --tenant): a manifest line, then every row of the "
        "source-of-truth tables with its vector. A name ending in .gz is gzip-compressed.",
    )
    export.add_argument("file", metavar="FILE.jsonl[.gz]", help="where to write the dump")
    store_options(export, top_level=False)
    export.set_defaults(handler=run_export)

    restore = commands.add_parser(
        "import",
        help="restore a dump written by `deltacore export` (into empty tenants)",
        description="Restore a dump: every id, vector, trust decision, utility and fact as exported (not "
        "re-screened), in one transaction, into tenants that hold no events yet; the vector index is "
        "rebuilt from the dump's vectors. The store must use the dump's embedder.",
    )
    restore.add_argument("file", metavar="FILE.jsonl[.gz]", help="the dump to restore")
    store_options(restore, top_level=False)
    restore.set_defaults(handler=run_import)


class _Progress:
    """A line on stderr every 10% (a terminal or a log file alike)."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        step = 100 if total == 0 else int(done * 10 / total) * 10
        if step > self.shown:
            self.shown = step
            print(f"{PROG}: {self.verb} {done}/{total} rows ({step}%)", file=sys.stderr, flush=True)


def run_export(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        manifest = memory.export(args.file, args.tenant, progress=_Progress("exported"))
    rows = sum(manifest.rows.values())
    scope = f"tenant {manifest.tenant!r}" if manifest.tenant else f"{len(manifest.tenants)} tenant(s)"
    print(f"exported {rows} rows ({manifest.rows.get('dc_events', 0)} events) of {scope} to {args.file}")
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    with open_store(args, must_exist=False) as memory:
        report = memory.restore(args.file, progress=_Progress("restored"))
    print(
        f"restored {sum(report.rows.values())} rows ({report.rows.get('dc_events', 0)} events) of "
        f"{len(report.manifest.tenants)} tenant(s); {report.vectors} vectors indexed"
    )
    return EXIT_OK
