"""The backup part of the ``DeltaCore`` facade: ``export`` a tenant or a store, ``restore`` it.

A dump restores *the store it came from*: the trust decisions, quarantine, reputations, facts,
utilities and credit are restored as exported, not re-screened or re-derived. They are the
store's own judgements of these writes when they arrived (re-screening history would read a
source's whole past as one burst, and weigh each memory against memories that are not restored
yet); a dump is therefore as trusted as the database it was taken from. Restore validates every
row (known table and columns, required values, events as ``Event`` records), keeps every id,
writes all rows in one transaction into tenants that hold no events yet, and rebuilds the vector
index from the exported vectors (the same vectors, not re-embedded: the target must use the same
embedder; switch embedders afterwards with ``reindex(reembed=True)``).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

from pydantic import ValidationError

from deltacore.embedding.guard import CheckedEmbedder
from deltacore.errors import ConfigurationError
from deltacore.model import Channel, Namespace
from deltacore.model.backup import DUMP_FORMAT, DUMP_VERSION, DumpManifest, RestoreReport
from deltacore.storage import SQLStore
from deltacore.storage.dump import (
    RowError,
    decode_row,
    dump_rows,
    insert_rows,
    stored_dimension,
    table_counts,
    tenants_with_events,
)
from deltacore.storage.records import event_from_row

Progress = Callable[[int, int], None]
"""Called with (rows done, rows in all) as a dump is written or restored."""


def _open(path: str | Path, mode: str) -> IO[str]:
    name = str(path)
    if name.endswith(".gz"):
        return gzip.open(name, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(name, mode, encoding="utf-8")


class BackupMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the collaborators are wired there."""

    _sql: SQLStore
    _embedder: CheckedEmbedder

    def export(
        self, path: str | Path, tenant: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> DumpManifest:
        """Write a versioned dump of one tenant (or of the whole store) to ``path``, JSON Lines
        (gzip-compressed when the name ends in ``.gz``): a :class:`DumpManifest` line, then
        every row of the source-of-truth tables with its vector. :meth:`restore` reads it back,
        into this store or another (e.g. SQLite to PostgreSQL)."""
        self.apply_outbox()  # type: ignore[attr-defined]
        with self._sql.reader() as conn:
            counts = table_counts(conn, tenant)
            names = [tenant] if tenant else self._sql.counts()["tenants"]
            meta = self._sql.stored_embedder()
            dimension = stored_dimension(conn)
            manifest = DumpManifest(
                deltacore_version=_version(),
                created_at=datetime.now(timezone.utc),
                source_backend=self._sql.dialect.name,
                tenant=tenant,
                tenants=sorted(names),
                embedder=meta,
                embedding_dimension=dimension,
                rows=counts,
            )
            total, done = sum(counts.values()), 0
            with _open(path, "w") as out:
                out.write(manifest.model_dump_json() + "\n")
                for table, row in dump_rows(conn, tenant):
                    out.write(json.dumps({"table": table, "row": row}, ensure_ascii=False, default=str) + "\n")
                    done += 1
                    if progress is not None and (done % 1000 == 0 or done == total):
                        progress(done, total)
        if progress is not None and total == 0:
            progress(0, 0)
        return manifest

    def restore(self, path: str | Path, *, progress: Callable[[int, int], None] | None = None) -> RestoreReport:
        """Restore a dump written by :meth:`export` (see the module docstring: ids and trust
        decisions kept, not re-screened; all or nothing; into tenants that are still empty)."""
        with _open(path, "r") as source:
            lines = iter(source)
            manifest = _manifest(next(lines, ""))
            if manifest.embedder is not None and manifest.embedder != self._embedder.name:
                raise ConfigurationError(
                    "embedder",
                    f"the dump's vectors come from {manifest.embedder!r}, this store embeds with "
                    f"{self._embedder.name!r}: open the target with the dump's embedder, restore, then "
                    "switch with reindex(reembed=True) (allow_embedder_change=True)",
                )
            if manifest.embedder is not None and manifest.embedding_dimension:
                self._sql.check_embedder(manifest.embedder, manifest.embedding_dimension)
            restored = self._restore_rows(manifest, lines, progress)
        vectors = sum(self.reindex(name) for name in manifest.tenants if restored.get("dc_events"))  # type: ignore[attr-defined]
        return RestoreReport(manifest=manifest, rows=restored, vectors=vectors)

    def _restore_rows(self, manifest: DumpManifest, lines: Iterator[str], progress: Progress | None) -> dict[str, int]:
        total, done = sum(manifest.rows.values()), 0
        restored: dict[str, int] = {}
        events_per_tenant: dict[str, int] = {}
        allowed = set(manifest.tenants)
        with self._sql.writer() as conn:
            occupied = tenants_with_events(conn, manifest.tenants)
            if occupied:
                name, count = sorted(occupied.items())[0]
                raise ConfigurationError(
                    "dump", f"tenant {name!r} already holds {count} events here; restore into an empty store or tenant"
                )
            batch: list[dict[str, Any]] = []
            current = None
            for number, line in enumerate(lines, start=2):
                if not line.strip():
                    continue
                table, values = _row(line, number)
                tenant = values.get("tenant")
                if tenant is not None and tenant not in allowed:
                    raise ConfigurationError("dump", f"line {number}: tenant {tenant!r} is not in the manifest's tenants")
                if table.name == "dc_events":
                    _check_event(values, number)
                    events_per_tenant[tenant] = events_per_tenant.get(tenant, 0) + 1
                if current is not None and table is not current:
                    insert_rows(conn, current, batch)
                    batch = []
                current = table
                batch.append(values)
                restored[table.name] = restored.get(table.name, 0) + 1
                done += 1
                if len(batch) >= 500:
                    insert_rows(conn, current, batch)
                    batch = []
                if progress is not None and (done % 1000 == 0 or done == total):
                    progress(done, total)
            if current is not None and batch:
                insert_rows(conn, current, batch)
            if restored != {k: v for k, v in manifest.rows.items() if v}:
                raise ConfigurationError("dump", f"the rows do not match the manifest (truncated file?): {restored} vs {manifest.rows}")
            self._sql.bump_tenants(conn, events_per_tenant)
        return restored

def _version() -> str:
    # The package metadata, not ``deltacore.__version__``: the facade never imports the package root.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deltacore")
    except PackageNotFoundError:
        return "unknown"


def _manifest(line: str) -> DumpManifest:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigurationError("dump", f"line 1 is not JSON ({exc}): not a DeltaCore dump") from exc
    if not isinstance(data, dict) or data.get("format") != DUMP_FORMAT:
        raise ConfigurationError("dump", f"line 1 is not a {DUMP_FORMAT} manifest: not a DeltaCore dump")
    if data.get("format_version") != DUMP_VERSION:
        raise ConfigurationError(
            "dump", f"format_version {data.get('format_version')!r} is not {DUMP_VERSION}: restore it with the DeltaCore that wrote it"
        )
    try:
        return DumpManifest.model_validate(data)
    except ValidationError as exc:
        raise ConfigurationError("dump", f"line 1: bad manifest ({exc.errors()[0]['msg']})") from exc


def _row(line: str, number: int) -> tuple[Any, dict[str, Any]]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigurationError("dump", f"line {number} is not JSON ({exc})") from exc
    if not isinstance(data, dict) or "table" not in data or "row" not in data:
        raise ConfigurationError("dump", f"line {number}: expected {{\"table\": …, \"row\": {{…}}}}")
    try:
        return decode_row(data["table"], data["row"])
    except RowError as exc:
        raise ConfigurationError("dump", f"line {number}: {exc}") from exc


def _check_event(values: dict[str, Any], number: int) -> None:
    """An event row must be an ``Event`` the write path could have stored."""
    try:
        Namespace(values["namespace"])
        Channel(values["channel"])
        event_from_row(SimpleNamespace(**{"agent_id": None, "user_id": None, "session_id": None, **values}))
    except (ValueError, ValidationError, TypeError, KeyError) as exc:
        raise ConfigurationError("dump", f"line {number}: dc_events row {values.get('id')!r} is not a valid event ({exc})") from exc
