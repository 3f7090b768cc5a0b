"""Which vector index this process may write, and taking it over when its owner exits.

A Chroma server is shared by every process. Chroma's embedded client is not safe for several
writing processes, so one process owns an embedded index (an OS file lock); the others write
SQL only and leave their vectors in the outbox until they own it.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path

from deltacore.errors import StorageFullError, StoreLockedError
from deltacore.storage.outbox import Embed, OutboxApplier, fill_missing_vectors
from deltacore.storage.ownership import VectorOwnership
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.vector_index import ChromaIndex
from deltacore.storage.vector_swap import CollectionPointers

log = logging.getLogger(__name__)

# Below this much free space, vector writes to an embedded index wait in the outbox: embedded
# Chroma that hits a full disk mid-write was measured to hang every later call in this process,
# so it is not driven there. SQL keeps every vector; the writes drain once space is freed.
MIN_FREE_BYTES = 4 << 20
RETRY_OPEN_SECONDS = 10.0


class VectorAccess:
    """The index this process writes (``None`` while another process owns an embedded one)."""

    def __init__(
        self,
        sql: SQLStore,
        *,
        chroma_url: str | None,
        folder: Path,
        collection_prefix: str,
        refuse_second_writer: bool,
        read_only: bool = False,
        embed: Embed | None = None,
    ) -> None:
        self._sql = sql
        self._embed = embed  # for events committed without their vector (background writes)
        self._read_only = read_only
        self._folder = folder
        self._prefix = collection_prefix
        self._lock = threading.Lock()
        self._index: ChromaIndex | None = None
        self._applier: OutboxApplier | None = None
        self._ownership: VectorOwnership | None = None
        self._retry_open_at = 0.0
        self.open_error: str | None = None
        """Why the embedded index could not be opened (a full disk), while it cannot."""
        if chroma_url:
            self._attach(ChromaIndex.server(chroma_url, collection_prefix))
            return
        if read_only:
            # Opening embedded Chroma writes its files and the lock file: a read-only store leaves
            # the index closed, and semantic search scans the vectors kept in SQL instead.
            return
        self._ownership = VectorOwnership(folder)
        if not self._try_own() and refuse_second_writer:
            raise StoreLockedError(
                f"another process owns the vector index of {folder}; use a Chroma server "
                "(chroma_url=...) for several writing processes, or multi_process='coordinate'"
            )

    @property
    def kind(self) -> str:
        if self._read_only and self._index is None:
            return "chroma-embedded (read-only: not opened)"
        return f"chroma-{self._index.kind}" if self._index is not None else "chroma-embedded (not owner)"

    def current(self) -> ChromaIndex | None:
        """The index, taking an embedded one over (and replaying what its owner left in the
        outbox) when the owning process has exited since."""
        if self._index is None and self._ownership is not None and self._try_own():
            self.drain()
        return self._index

    def drain(self) -> int:
        """Apply pending vector writes; 0 when this process may not write the index (it then
        only fills in SQL the vectors of events committed without one, for its SQL search)."""
        if self._read_only:
            return 0
        if self.current() is None or self._applier is None:
            if self._embed is not None:
                fill_missing_vectors(self._sql, self._embed)
            return 0
        if self._ownership is not None:
            try:
                free = shutil.disk_usage(self._folder).free
            except OSError:
                free = MIN_FREE_BYTES
            if free < MIN_FREE_BYTES and self._applier.has_pending():
                raise StorageFullError(
                    f"applying vector writes: only {free:,} bytes free on the disk of {self._folder}; "
                    "they wait in the outbox (SQL has them) and are applied once space is freed"
                )
        return self._applier.drain()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
        if self._ownership is not None:
            self._ownership.release()
            # A closed store must never take the lock back (it would hold it until exit).
            self._ownership = None
        self._index = None
        self._applier = None

    def _attach(self, index: ChromaIndex) -> None:
        index.names = CollectionPointers(self._sql)  # a forget swaps collections by this pointer
        self._index = index
        self._applier = OutboxApplier(self._sql, index, embed=self._embed)

    def _try_own(self) -> bool:
        with self._lock:
            if self._index is not None:
                return True
            assert self._ownership is not None
            if time.monotonic() < self._retry_open_at:
                return False
            if not self._ownership.try_acquire():
                return False
            try:
                self._attach(ChromaIndex.embedded(self._folder / "chroma", self._prefix))
            except StorageFullError as exc:
                # The store still opens: SQL answers, semantic search scans the vectors in SQL,
                # vector writes wait in the outbox; opening the index is retried a little later.
                self._ownership.release()
                self._retry_open_at = time.monotonic() + RETRY_OPEN_SECONDS
                self.open_error = str(exc)
                log.error("the embedded vector index could not be opened: %s", exc)
                return False
            self.open_error = None
            log.debug("this process owns the embedded vector index of %s", self._folder)
            return True
