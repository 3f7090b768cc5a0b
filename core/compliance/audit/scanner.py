"""The byte scan: every file under a store folder, read through ``mmap``, searched for each
identifier's byte patterns and for the subject's vectors.

Deleting a row is not erasing it: SQLite keeps it in free pages, the ``-wal`` and FTS5's shadow
tables; Chroma keeps it in ``embeddings_queue`` and in the HNSW ``data_level0.bin``. Only the
bytes tell. Patterns are found with ``bytes.find`` on the mapped file (no copy); vectors also as
near-duplicates, because an HNSW index in cosine space stores each vector normalised and a
re-embedding can move its last bits: every 4-byte-aligned run of ``dimension`` float32 values
is compared with the vectors (cosine), after the runs that cannot be a vector (non-finite,
huge or all-zero values: text, page headers, free space) are dropped.
"""

from __future__ import annotations

import mmap
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from deltacore.compliance.audit.needles import Needle
from deltacore.compliance.audit.result import (
    ByteFinding,
    FileClass,
    ScannedFile,
    VectorFinding,
)
from deltacore.storage.erasure_physical import hnsw_layout

NEAR_DUPLICATE_COSINE = 0.99
_MAX_ABS = 1e3
"""A float32 run holding a larger value is not an embedding (text bytes read as floats)."""
_CHUNK_FLOATS = 1 << 20
_BATCH_WINDOWS = 1 << 15
_SQLITE_MAGIC = b"SQLite format 3\0"


def classify(relative: Path) -> FileClass:
    name = relative.name
    if name.endswith("-wal"):
        return FileClass.CHROMA_SQLITE_WAL if name.startswith("chroma.sqlite3") else FileClass.SQLITE_WAL
    if name.endswith("-shm"):
        return FileClass.SQLITE_SHM
    if name.endswith("-journal"):
        return FileClass.SQLITE_JOURNAL
    if name == "chroma.sqlite3":
        return FileClass.CHROMA_SQLITE
    if name == "data_level0.bin":
        return FileClass.HNSW_DATA
    if name in {"header.bin", "length.bin", "link_lists.bin", "index_metadata.pickle"}:
        return FileClass.HNSW_OTHER
    if name.endswith((".db", ".sqlite", ".sqlite3")):
        return FileClass.SQLITE_DB
    return FileClass.OTHER


_HNSW_SLOT_BYTES = {"data_level0.bin": None, "length.bin": 4}


def hnsw_used_bytes(path: Path) -> int | None:
    """How many leading bytes of an HNSW segment file hold its elements, or None when the file
    is not one (or its header cannot be read).

    Chroma writes ``data_level0.bin`` and ``length.bin`` at the segment's whole capacity; the
    slots past the element count are memory hnswlib allocated and never initialised, so they
    hold whatever the process's heap held before (measured: SQL of Chroma's own migrations,
    words of docstrings). A word found there is not a copy the store keeps, and searching it
    made a control "seen" by chance."""
    slot = _HNSW_SLOT_BYTES.get(path.name, 0)
    if slot == 0:
        return None
    layout = hnsw_layout(path.parent)
    if layout is None:
        return None
    capacity, count, per_element = layout
    if not 0 <= count <= capacity or per_element <= 0:
        return None
    return count * (per_element if slot is None else slot)


def store_files(folder: Path) -> Iterator[tuple[Path, Path]]:
    """(absolute, relative) of every regular file under ``folder``, in a stable order."""
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                yield path, path.relative_to(folder)


@dataclass
class FileScan:
    file: ScannedFile
    bytes_found: list[ByteFinding]
    vectors_found: list[VectorFinding]


def scan_bytes(
    data: bytes | mmap.mmap,
    label: str,
    file_class: FileClass,
    needles: Sequence[Needle],
    vector_needles: Sequence[Needle] = (),
    vectors: np.ndarray | None = None,
    regions: _Regions | None = None,
) -> FileScan:
    """Search one buffer (a mapped file, or the text of ``pg_dump``)."""
    found: list[ByteFinding] = []
    for needle in needles:
        first, count = _occurrences(data, needle.pattern)
        if count:
            region = regions.at(first) if regions is not None else None
            found.append(
                ByteFinding(
                    file=label,
                    file_class=file_class,
                    identifier=needle.index,
                    encoding=needle.encoding,
                    offset=first,
                    count=count,
                    length=len(needle.pattern),
                    region=region,
                )
            )
    vector_hits: list[VectorFinding] = []
    exact_offsets: set[tuple[int, int]] = set()  # (vector, offset) of exact float32 matches
    for needle in vector_needles:
        offsets: set[int] = set()
        first, count = _occurrences(data, needle.pattern, offsets)
        if needle.encoding.startswith("float32"):
            exact_offsets.update((needle.index, offset) for offset in offsets)
        if count:
            vector_hits.append(
                VectorFinding(
                    file=label,
                    file_class=file_class,
                    vector=needle.index,
                    match=needle.encoding,
                    offset=first,
                    count=count,
                    length=len(needle.pattern),
                    cosine=1.0,
                )
            )
    if vectors is not None and len(vectors):
        vector_hits.extend(_near_duplicates(data, label, file_class, vectors, exact_offsets))
    return FileScan(
        ScannedFile(file=label, file_class=file_class, size=len(data)),
        found,
        vector_hits,
    )


def scan_file(
    path: Path,
    relative: Path,
    needles: Sequence[Needle],
    vector_needles: Sequence[Needle] = (),
    vectors: np.ndarray | None = None,
) -> FileScan:
    file_class = classify(relative)
    label = relative.as_posix()
    size = path.stat().st_size
    if size == 0:
        return FileScan(ScannedFile(file=label, file_class=file_class, size=0), [], [])
    with (
        path.open("rb") as handle,
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
    ):
        regions = _Regions.of(path, data, file_class)
        used = hnsw_used_bytes(path)
        if used is None or used >= size:
            return scan_bytes(data, label, file_class, needles, vector_needles, vectors, regions)
        # Text is never stored in an HNSW segment's capacity past its element count: those
        # bytes are the writer's uninitialised heap (see hnsw_used_bytes).
        text = scan_bytes(data[:used], label, file_class, needles, (), None, regions)
        vectors_scan = scan_bytes(data, label, file_class, (), vector_needles, vectors, regions)
        return FileScan(text.file.model_copy(update={"size": size, "unused_bytes": size - used}), text.bytes_found, vectors_scan.vectors_found)


def _occurrences(data: bytes | mmap.mmap, pattern: bytes, offsets: set[int] | None = None) -> tuple[int, int]:
    """(first offset, count) of ``pattern`` in ``data`` (overlapping matches count once)."""
    first, count = -1, 0
    position = data.find(pattern)
    while position != -1:
        if first == -1:
            first = position
        if offsets is not None:
            offsets.add(position)
        count += 1
        position = data.find(pattern, position + len(pattern))
    return max(first, 0), count


def _near_duplicates(
    data: bytes | mmap.mmap,
    label: str,
    file_class: FileClass,
    vectors: np.ndarray,
    exact_offsets: set[tuple[int, int]],
) -> list[VectorFinding]:
    targets = np.asarray(vectors, dtype=np.float32)
    dimension = targets.shape[1]
    norms = np.linalg.norm(targets, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    targets = targets / norms
    best: dict[int, tuple[int, int, float]] = {}  # vector -> (first offset, count, best cosine)
    buffer = memoryview(data) if isinstance(data, mmap.mmap) else data
    for shift in range(4):
        n_floats = (len(data) - shift) // 4
        if n_floats < dimension:
            continue
        floats = np.frombuffer(buffer, dtype="<f4", count=n_floats, offset=shift)
        for start in range(0, n_floats - dimension + 1, _CHUNK_FLOATS):
            chunk = floats[start : start + _CHUNK_FLOATS + dimension - 1]
            for window, vector, cosine in _matching_windows(chunk, targets):
                offset = shift + 4 * (start + window)
                if (vector, offset) in exact_offsets:
                    continue  # already reported as an exact pattern
                first, count, top = best.get(vector, (offset, 0, 0.0))
                best[vector] = (min(first, offset), count + 1, max(top, cosine))
    del buffer
    return [
        VectorFinding(
            file=label,
            file_class=file_class,
            vector=vector,
            match="near-duplicate",
            offset=first,
            count=count,
            length=dimension * 4,
            cosine=round(top, 6),
        )
        for vector, (first, count, top) in sorted(best.items())
    ]


def _matching_windows(chunk: np.ndarray, targets: np.ndarray) -> Iterator[tuple[int, int, float]]:
    """(window start, vector, cosine) of every run in ``chunk`` close to one of ``targets``."""
    dimension = targets.shape[1]
    with np.errstate(invalid="ignore", over="ignore"):
        usable = np.isfinite(chunk) & (np.abs(chunk) < _MAX_ABS)
        squares = np.where(usable, chunk.astype(np.float64) ** 2, 0.0)
    bad = np.concatenate(([0], np.cumsum(~usable)))
    energy = np.concatenate(([0.0], np.cumsum(squares)))
    n_windows = len(chunk) - dimension + 1
    clean = (bad[dimension:] - bad[:n_windows]) == 0
    window_norms = np.sqrt(np.maximum(energy[dimension:] - energy[:n_windows], 0.0))
    candidates = np.flatnonzero(clean & (window_norms > 1e-3))
    if not len(candidates):
        return
    windows = sliding_window_view(chunk, dimension)
    for begin in range(0, len(candidates), _BATCH_WINDOWS):
        picked = candidates[begin : begin + _BATCH_WINDOWS]
        runs = windows[picked].astype(np.float32)
        cosines = (runs @ targets.T) / window_norms[picked, None].astype(np.float32)
        rows, cols = np.nonzero(cosines >= NEAR_DUPLICATE_COSINE)
        for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
            yield int(picked[row]), col, float(cosines[row, col])


class _Regions:
    """Which table or index of a SQLite file holds a byte offset (``dbstat``), or which frame of
    a ``-wal`` file."""

    def __init__(self, page_size: int, pages: dict[int, str] | None, wal: bool) -> None:
        self._page_size = page_size
        self._pages = pages
        self._wal = wal

    @classmethod
    def of(cls, path: Path, data: mmap.mmap, file_class: FileClass) -> _Regions | None:
        if file_class in (FileClass.SQLITE_WAL, FileClass.CHROMA_SQLITE_WAL) and len(data) >= 32:
            return cls(int.from_bytes(data[8:12], "big"), None, wal=True)
        if data[:16] != _SQLITE_MAGIC:
            return None
        page_size = int.from_bytes(data[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        try:
            # Read-only and immutable: the audit never writes to the store it audits.
            conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
            try:
                pages = {int(pageno): str(name) for name, pageno in conn.execute("SELECT name, pageno FROM dbstat")}
            finally:
                conn.close()
        except sqlite3.Error:
            pages = None  # no dbstat in this SQLite build, or the file is not a readable database
        return cls(page_size, pages, wal=False)

    def at(self, offset: int) -> str | None:
        if self._wal:
            frame = (offset - 32) // (self._page_size + 24) + 1 if offset >= 32 else 0
            return f"wal frame {frame}" if frame else "wal header"
        if self._pages is None:
            return None
        page = offset // self._page_size + 1
        return self._pages.get(page, "free page")
