"""``deltacore ingest``: store events from a JSON-lines file, reporting bad lines by number."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from deltacore.cli.progress import Progress
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from deltacore.engine import DeltaCore
from deltacore.errors import BackendError, BackendUnavailableError, InvalidEventError


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
    """Counts for the closing summary; problems are printed as they are found, by line number."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.lines = 0
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0
        self.quarantined = 0
        self.blocked = 0

    def problem(self, line: int, message: str) -> None:
        self.rejected += 1
        self.progress.write(f"line {line}: {message}", file=sys.stderr)

    def warning(self, message: str) -> None:
        self.progress.write(f"warning: {message}", file=sys.stderr)


_BATCH_INDEX = re.compile(r"\bevent\[(\d+)\]\.?")


def _send(memory: DeltaCore, batch: list[Any], lines: list[int], channel: str | None, report: _IngestReport) -> None:
    """Ingest one batch, report its problems by line number, and empty it."""
    if not batch:
        return
    try:
        result = memory.ingest(batch, channel=channel)
    except (InvalidEventError, BackendError) as exc:
        if isinstance(exc, BackendUnavailableError):
            raise  # the store is gone: the rest of the file would fail the same way
        # The store refused this batch's data (nothing is committed when ingest raises before the
        # commit): say so for each of its lines and go on with the rest of the file.
        for line in lines:
            report.problem(line, f"not stored: {exc}")
        batch.clear()
        lines.clear()
        return
    report.stored += len(result.stored)
    report.quarantined += len(result.quarantined)
    report.blocked += len(result.blocked)
    report.duplicates += len(result.duplicates)
    for rejection in result.rejected:
        report.problem(lines[rejection.index], f"{rejection.field}: {rejection.reason}")
    for warning in result.warnings:
        # Warnings name events by their index in the batch; the user knows them by line number.
        report.warning(_BATCH_INDEX.sub(lambda m: f"line {lines[int(m[1])]}: ", warning))
    batch.clear()
    lines.clear()


def run_ingest(args: argparse.Namespace) -> int:
    """Store the file's events in batches; exit 1 when a line was rejected (the rest are stored)."""
    from tqdm import tqdm

    with _input_lines(args.file) as (stream, total), open_store(args, must_exist=False) as memory:
        batch: list[Any] = []
        batch_lines: list[int] = []
        with tqdm(total=total, unit=" lines", desc="ingest", file=sys.stderr, disable=None, leave=False) as progress:
            report = _IngestReport(progress)
            # Off a terminal the bar is silent: a line per 10 % instead (when the size is known).
            lines = Progress() if total and progress.disable else None
            for number, raw in enumerate(stream, start=1):
                progress.update(1)
                if lines is not None:
                    lines("ingest", number, total)
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
                except RecursionError:
                    report.problem(number, "invalid JSON: nested too deeply; the line was not sent")
                    continue
                if args.tenant is not None and isinstance(item, dict) and "tenant" not in item:
                    item["tenant"] = args.tenant
                batch.append(item)
                batch_lines.append(number)
                if len(batch) >= args.batch_size:
                    _send(memory, batch, batch_lines, args.channel, report)
            _send(memory, batch, batch_lines, args.channel, report)
    source = "stdin" if args.file == "-" else args.file
    # Every line lands in exactly one count; a quarantined line is kept for review but never
    # retrieved, so it is not counted as stored.
    print(
        f"{source}: {report.lines} lines: {report.stored - report.quarantined} stored, "
        f"{report.quarantined} quarantined, {report.blocked} blocked, {report.duplicates} duplicates, "
        f"{report.rejected} rejected"
    )
    return EXIT_FAILED if report.rejected else EXIT_OK

