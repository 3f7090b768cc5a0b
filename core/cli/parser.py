"""The command line: every subcommand, its options, and the handler that runs it."""

from __future__ import annotations

import argparse
from typing import Any

from deltacore.cli.beliefs import run_conflicts, run_facts
from deltacore.cli.consolidate import add_parser as add_consolidate
from deltacore.cli.erasure import add_parser as add_verify_erasure
from deltacore.cli.forget import add_parser as add_forget
from deltacore.cli.browse import add_browse_commands
from deltacore.cli.backup import add_backup_commands
from deltacore.cli.ingest import run_ingest
from deltacore.cli.monitor import run_monitor
from deltacore.cli.query import run_query, run_reindex, run_stats
from deltacore.cli.review import RESOLUTIONS, run_review
from deltacore.cli.trust import run_quarantine, run_security_events
from deltacore.cli.usage import PROG
from deltacore.model import Channel

EMBEDDERS = ("minilm", "fake")
ROUTER_NAMES = ("semantic", "lexical", "recency")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def timestamp(value: str) -> Any:
    """An argparse type: an ISO 8601 time, in UTC when it names no zone."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {value!r} (e.g. 2026-01-31T12:00)") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def store_options(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
    """The options that say which store to open.

    They are accepted both before and after the subcommand (``deltacore --path X stats`` and
    ``deltacore stats --path X``); subcommand parsers use SUPPRESS so they never overwrite a
    value given before the subcommand with their own default.
    """

    def default(value: Any) -> Any:
        return value if top_level else argparse.SUPPRESS

    group = parser.add_argument_group("store options")
    group.add_argument(
        "--path",
        metavar="DIR",
        default=default(None),
        help="folder of the embedded store (SQLite + Chroma); default $DELTACORE_PATH or ./deltacore_data",
    )
    group.add_argument(
        "--database-url",
        metavar="URL",
        default=default(None),
        help="SQLAlchemy URL of a PostgreSQL database, e.g. postgresql+psycopg://user@host/db "
        "(default $DELTACORE_DATABASE_URL; none = SQLite in --path)",
    )
    group.add_argument(
        "--chroma-url",
        metavar="URL",
        default=default(None),
        help="address of a Chroma server, http://host:port (default $DELTACORE_CHROMA_URL; none = embedded Chroma in --path)",
    )
    group.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default=default("minilm"),
        help="minilm: local all-MiniLM-L6-v2 (needs the 'local' extra; the default). "
        "fake: a hashed bag of words, for testing and demos only. "
        "A store remembers its embedder and refuses another one",
    )
    group.add_argument(
        "--tenant",
        default=default(None),
        help="tenant to read and write (default: 'default'; stats and reindex: all tenants); "
        "ingest uses it for lines that name no tenant",
    )
    group.add_argument(
        "--read-only",
        action="store_true",
        default=default(False),
        help="open the store for reading only: nothing is written to its files; writes fail with a clear error",
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``deltacore`` parser; each subcommand sets ``handler``, the function that runs it."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="DeltaCore: a memory engine for LLM agents. Ingest events, query memories, inspect a store.",
        epilog="exit status: 0 ok; 1 some lines rejected or a backend failed; 2 usage or configuration error",
    )
    from deltacore import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    store_options(parser, top_level=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    ingest = commands.add_parser(
        "ingest",
        help="store events from a JSON-lines file",
        description="Store events from a JSON-lines file: one Event object per line "
        '(e.g. {"text": "...", "kind": "fact"}). Invalid lines are reported with their line '
        "number and skipped; the good ones are stored.",
    )
    ingest.add_argument("file", metavar="FILE.jsonl", help="the file to read; '-' reads standard input")
    ingest.add_argument(
        "--batch-size", type=positive_int, default=256, metavar="N", help="events per write transaction (default 256)"
    )
    ingest.add_argument(
        "--channel",
        choices=[c.value for c in Channel],
        default=None,
        help="where these events really came from (sets their trust); default: inferred from each event's kind and role",
    )
    store_options(ingest, top_level=False)
    ingest.set_defaults(handler=run_ingest)

    query = commands.add_parser(
        "query",
        help="retrieve the memories most relevant to a text",
        description="Retrieve the memories most relevant to TEXT, best first.",
    )
    query.add_argument("text", nargs="+", metavar="TEXT", help="what to look for (several words are joined)")
    query.add_argument("--top-k", type=positive_int, default=10, metavar="N", help="at most N memories (default 10)")
    query.add_argument(
        "--max-tokens", type=positive_int, default=None, metavar="N", help="token budget: the best memories that fit in N tokens"
    )
    query.add_argument(
        "--router",
        action="append",
        default=None,
        metavar="NAME",
        help=f"use only this router ({', '.join(ROUTER_NAMES)}); repeat or separate with commas for several",
    )
    query.add_argument("--json", action="store_true", help="print a JSON list of memory packets")
    store_options(query, top_level=False)
    query.set_defaults(handler=run_query)

    stats = commands.add_parser("stats", help="counts and health of the store", description="Counts and health of the store.")
    stats.add_argument("--json", action="store_true", help="print JSON")
    store_options(stats, top_level=False)
    stats.set_defaults(handler=run_stats)

    reindex = commands.add_parser(
        "reindex",
        help="rebuild the vector index from the database",
        description="Rebuild the vector index from the database (the source of truth).",
    )
    reindex.add_argument(
        "--reembed",
        action="store_true",
        help="first recompute every vector with --embedder (to switch a store to another embedder)",
    )
    store_options(reindex, top_level=False)
    reindex.set_defaults(handler=run_reindex)

    review = commands.add_parser(
        "review",
        help="list or resolve the items waiting for a person",
        description="List the review queue (utilities that oscillate: UNSTABLE; tool calls whose "
        "arguments could not be migrated to a changed tool schema: SCHEMA_DRIFT), or resolve one. "
        "accept keeps the memory and clears its flag; reject sets its utility to 0 and never offers it again.",
    )
    review.add_argument("--resolve", type=positive_int, metavar="ID", help="the item to resolve (its id in the list)")
    review.add_argument("--as", dest="resolution", choices=RESOLUTIONS, help="how to resolve it (with --resolve)")
    review.add_argument("--note", default=None, help="why (kept with the resolution)")
    review.add_argument(
        "--args",
        dest="migrated_args",
        metavar="JSON",
        default=None,
        help='for a SCHEMA_DRIFT item: the call\'s arguments rewritten for the new schema, e.g. \'{"environment": "prod"}\'',
    )
    review.add_argument("--all", action="store_true", help="list resolved items too")
    review.add_argument("--json", action="store_true", help="print JSON")
    store_options(review, top_level=False)
    review.set_defaults(handler=run_review)

    facts = commands.add_parser(
        "facts",
        help="the facts believed now, or as they stood at a date",
        description="The facts the store believes now (one value per subject and attribute; both sides "
        "of an open conflict), or those valid at --at. `deltacore conflicts` lists the contradictions.",
    )
    facts.add_argument("--subject", default=None, metavar="S", help="only facts about this subject (e.g. alice, user, api)")
    facts.add_argument("--attribute", default=None, metavar="A", help="only this attribute (e.g. 'home city', employer, status)")
    facts.add_argument("--at", type=timestamp, default=None, metavar="DATE", help="as it stood then (ISO 8601 date or time, UTC if no zone)")
    facts.add_argument("--json", action="store_true", help="print a JSON list of facts")
    store_options(facts, top_level=False)
    facts.set_defaults(handler=run_facts)

    conflicts = commands.add_parser(
        "conflicts",
        help="list or settle the contradictions the store could not settle itself",
        description="List the open conflicts (two values of one subject and attribute, with their "
        "belief weights), or settle one: --as old keeps the value known first, --as new the later "
        "one, --as VALUE the side with that value. Nothing is deleted: the loser stays in history.",
    )
    conflicts.add_argument("--resolve", metavar="ID", default=None, help="the conflict to settle (its id in the list)")
    conflicts.add_argument("--as", dest="resolution", metavar="old|new|VALUE", default=None, help="which side wins (with --resolve)")
    conflicts.add_argument("--note", default=None, help="why (kept with the resolution)")
    conflicts.add_argument("--all", action="store_true", help="list resolved conflicts too")
    conflicts.add_argument("--json", action="store_true", help="print JSON")
    store_options(conflicts, top_level=False)
    conflicts.set_defaults(handler=run_conflicts)

    quarantine = commands.add_parser(
        "quarantine",
        help="list quarantined events, or review them",
        description="List the events the trust gateway quarantined (never retrieved), or apply a "
        "reviewer's verdict: --release puts them back (TRUSTED, or UNVERIFIED for documents and "
        "peers), --confirm keeps them quarantined and penalises their source, --delete erases them.",
    )
    for flag, help_text in (
        ("--release", "release this quarantined event (repeatable)"),
        ("--release-unverified", "release this event as UNVERIFIED (repeatable)"),
        ("--confirm", "confirm this event is poison: it stays quarantined (repeatable)"),
        ("--delete", "confirm and erase this event (repeatable)"),
    ):
        quarantine.add_argument(flag, action="append", default=[], metavar="ID", help=help_text)
    quarantine.add_argument("--limit", type=positive_int, default=100, metavar="N", help="list at most N events (default 100)")
    quarantine.add_argument("--json", action="store_true", help="print JSON")
    store_options(quarantine, top_level=False)
    quarantine.set_defaults(handler=run_quarantine)

    security = commands.add_parser(
        "security-events",
        help="the security log: trust decisions, E01, honeypots, reviews",
        description="Print the security log, oldest first.",
    )
    security.add_argument("--since", type=timestamp, default=None, metavar="ISO", help="only events at or after this time (ISO 8601, UTC if no zone)")
    security.add_argument("--kind", default=None, metavar="KIND", help="only this kind (e.g. POISON_DETECTED, HONEYPOT_TRIGGERED)")
    security.add_argument("--json", action="store_true", help="print JSON lines")
    store_options(security, top_level=False)
    security.set_defaults(handler=run_security_events)

    add_verify_erasure(commands, store_options)
    add_forget(commands, store_options, timestamp)
    add_consolidate(commands, store_options)
    monitor = commands.add_parser(
        "monitor",
        help="the memory economy: sizes, latency, hit rates, attacks, conflicts, outcome trend",
        description="The memory economy of the store (or --tenant): figures read from SQL, the same in "
        "every process, and this process's own (latency, HOT hit rate), each marked with its scope.",
    )
    monitor.add_argument("--json", action="store_true", help="print the MemoryEconomy as JSON")
    store_options(monitor, top_level=False)
    monitor.set_defaults(handler=run_monitor)

    # Serving the store (issue 19): the MCP server and the inspector page, in their own modules.
    from deltacore.cli.inspect import add_inspect_command
    from deltacore.cli.mcp import add_mcp_command

    add_mcp_command(commands, store_options)
    add_inspect_command(commands, store_options)
    add_browse_commands(commands, store_options, positive_int, timestamp)  # list, show, delete
    add_backup_commands(commands, store_options)  # export, import
    return parser

