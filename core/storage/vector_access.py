"""Which vector index this process may write, and taking it over when its owner exits.

A Chroma server is shared by every process. Chroma's embedded client is not safe for several
writing processes, so one process owns an embedded index (an OS file lock); the others write
SQL only and leave their vectors in the outbox until they own it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from deltacore.errors import StoreLockedError
from deltacore.storage.outbox import OutboxApplier
from deltacore.storage.ownership import VectorOwnership
from deltacore.storage.sql_store import SQLStore
from deltacore.storage.vector_index import ChromaIndex

log = logging.getLogger(__name__)


class VectorAccess:
    """The index this process writes (``None`` while another process owns an embedded one)."""

    def __init__(
        self, sql: SQLStore, *, chroma_url: str | None, folder: Path, collection_prefix: str, refuse_second_writer: bool
    ) -> None:
        self._sql = sql
        self._folder = folder
        self._prefix = collection_prefix
        self._lock = threading.Lock()
        self._index: ChromaIndex | None = None
        self._applier: OutboxApplier | None = None
        self._ownership: VectorOwnership | None = None
        if chroma_url:
            self._attach(ChromaIndex.server(chroma_url, collection_prefix))
            return
        self._ownership = VectorOwnership(folder)
        if not self._try_own() and refuse_second_writer:
            raise StoreLockedError(
                f"another process owns the vector index of {folder}; use a Chroma server "
                "(chroma_url=...) for several writing processes, or multi_process='coordinate'"
            )

    @property
    def kind(self) -> str:
        return f"chroma-{self._index.kind}" if self._index is not None else "chroma-embedded (not owner)"

    def current(self) -> ChromaIndex | None:
        """The index, taking an embedded one over (and replaying what its owner left in the
        outbox) when the owning process has exited since."""
        if self._index is None and self._ownership is not None and self._try_own():
            self.drain()
        return self._index

    def drain(self) -> int:
        """Apply pending vector writes; 0 when this process may not write the index."""
        if self.current() is None or self._applier is None:
            return 0
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
        self._index = index
        self._applier = OutboxApplier(self._sql, index)

    def _try_own(self) -> bool:
        with self._lock:
            if self._index is not None:
                return True
            assert self._ownership is not None
            if not self._ownership.try_acquire():
                return False
            self._attach(ChromaIndex.embedded(self._folder / "chroma", self._prefix))
            log.debug("this process owns the embedded vector index of %s", self._folder)
            return True
