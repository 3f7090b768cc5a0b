"""The COLD tier's files: Parquet partitions (pyarrow), one folder per tenant, checksummed.

Mechanism only: a partition is written to a temporary name, flushed and renamed, so a crash
never leaves half a file under a partition's name; the SHA-256 of its bytes is returned for the
SQL listing (``dc_cold_partitions``), and every read checks it. A file that no listing names
(written by a cycle that crashed before its transaction committed) is an orphan:
:meth:`ColdArchive.orphans` finds it. What goes COLD and when is decided by the consolidation layer.

Each row holds the columns a COLD search needs (id, tenant, scope, kind, time, text, vector)
and ``bundle``: the JSON of everything needed to put the event back as it was.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from deltacore.errors import BackendError, MissingExtraError

SCHEMA_VERSION = "1"


class ColdPartitionCorruptError(BackendError):
    """A COLD partition's bytes no longer match the checksum its listing recorded (or it is gone)."""


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("the COLD tier (Parquet partitions)", "cold", "pyarrow") from exc
    return pa, pq


def available() -> bool:
    """Whether pyarrow is installed (the ``cold`` extra)."""
    try:
        _pyarrow()
    except MissingExtraError:
        return False
    return True


def tenant_folder(tenant: str) -> str:
    """A folder name for any tenant string (tenants may hold characters a file name cannot)."""
    return "tenant=" + hashlib.sha256(tenant.encode()).hexdigest()[:16]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"__b64__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


class ColdArchive:
    """Parquet partitions under ``root`` (``<root>/tenant=<hash>/<name>.parquet``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def write(self, tenant: str, name: str, bundles: Sequence[dict[str, Any]]) -> tuple[str, str, int]:
        """Write a partition of event bundles; returns (relative path, sha256, rows)."""
        pa, pq = _pyarrow()
        events = [b["event"] for b in bundles]
        table = pa.table(
            {
                "id": [e["id"] for e in events],
                "tenant": [e["tenant"] for e in events],
                "agent_id": [e.get("agent_id") for e in events],
                "user_id": [e.get("user_id") for e in events],
                "session_id": [e.get("session_id") for e in events],
                "kind": [e["kind"] for e in events],
                "ts": pa.array([float(e["ts"]) for e in events], pa.float64()),
                "text": [e["text"] for e in events],
                "embedding": pa.array([bytes(e["embedding"]) if e.get("embedding") else None for e in events], pa.binary()),
                "bundle": [json.dumps(_jsonable(b), sort_keys=True) for b in bundles],
            }
        ).replace_schema_metadata({"deltacore_cold": SCHEMA_VERSION})
        relative = f"{tenant_folder(tenant)}/{name}.parquet"
        target = self.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(".parquet.tmp")
        pq.write_table(table, temporary)
        with open(temporary, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        return relative, digest, len(events)

    def read(self, relative: str, sha256: str) -> list[dict[str, Any]]:
        """The rows of a partition (``bundle`` decoded); raises :class:`ColdPartitionCorruptError`
        when the file is missing or its checksum differs."""
        pa, pq = _pyarrow()
        path = self.root / relative
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise ColdPartitionCorruptError(f"COLD partition {relative} is missing from {self.root}") from exc
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ColdPartitionCorruptError(
                f"COLD partition {relative} does not match its recorded SHA-256 (corrupt or edited); "
                "restore it from a backup"
            )
        table = pq.read_table(pa.BufferReader(data))
        rows = table.to_pylist()
        for row in rows:
            row["bundle"] = _from_json(json.loads(row["bundle"]))
        return rows

    @staticmethod
    def vectors(rows: Sequence[dict[str, Any]]) -> np.ndarray:
        """The rows' vectors as a matrix (a zero row for one without a vector)."""
        present = [np.frombuffer(r["embedding"], dtype=np.float32) for r in rows if r.get("embedding")]
        width = present[0].shape[0] if present else 0
        matrix = np.zeros((len(rows), width), dtype=np.float32)
        for i, row in enumerate(rows):
            if row.get("embedding") and width:
                matrix[i] = np.frombuffer(row["embedding"], dtype=np.float32)
        return matrix

    def remove(self, relative: str) -> None:
        try:
            (self.root / relative).unlink()
        except FileNotFoundError:
            pass

    def orphans(self, tenant: str, listed: Sequence[str]) -> list[str]:
        """Files in the tenant's folder that no listing names (left by a crashed cycle)."""
        folder = self.root / tenant_folder(tenant)
        if not folder.is_dir():
            return []
        named = set(listed)
        return [
            f"{folder.name}/{p.name}"
            for p in sorted(folder.iterdir())
            if p.suffix in (".parquet", ".tmp") and f"{folder.name}/{p.name}" not in named
        ]
