"""Who may write an embedded store's vector index.

Chroma's embedded ``PersistentClient`` keeps its index in process memory and is not safe for
several writing processes on one folder, while SQLite in WAL mode is. So one process owns the
embedded index (an OS file lock says which; the OS releases it when the process dies, even on
SIGKILL) and the others write SQL only, leaving their vector writes in the outbox for the owner.
"""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout


class VectorOwnership:
    """A non-blocking, process-wide lock file in the store folder."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "vector-index.lock"
        self._lock = FileLock(str(self.path), thread_local=False)

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def try_acquire(self) -> bool:
        if self._lock.is_locked:
            return True
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release(force=True)
