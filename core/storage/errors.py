"""Backend exceptions are translated to DeltaCore's tree here, at the storage boundary."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from deltacore.errors import (
    BackendError,
    BackendUnavailableError,
    DeltaCoreError,
    InvalidQueryError,
    StorageFullError,
)


def _is_connection_failure(exc: BaseException) -> bool:
    from sqlalchemy.exc import InterfaceError, OperationalError

    if isinstance(exc, (InterfaceError,)):
        return True
    if isinstance(exc, OperationalError):
        message = str(exc).lower()
        return any(
            marker in message
            for marker in ("connection refused", "could not connect", "connection failed", "server closed", "timeout expired", "no such host", "name or service not known")
        )
    if isinstance(exc, ValueError) and "could not connect" in str(exc).lower():
        return True  # chromadb's HttpClient turns httpx.ConnectError into this ValueError
    name = type(exc).__name__
    # httpx (Chroma's HTTP client) and the stdlib raise these when a server is not there.
    return name in {"ConnectError", "ConnectTimeout", "ConnectionRefusedError"} or isinstance(exc, ConnectionError)


# What SQLite, PostgreSQL, Chroma and the OS say when the disk or the database's size limit is full.
_FULL_MARKERS = ("database or disk is full", "no space left on device", "could not extend file", "disk full")


def is_storage_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) says the disk is full."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, OSError) and seen.errno == 28:  # ENOSPC
            return True
        if any(marker in str(seen).lower() for marker in _FULL_MARKERS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def is_deadlock(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is a transaction PostgreSQL aborted to break
    a deadlock (SQLSTATE 40P01): nothing of it was committed, and running it again is safe."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        orig = getattr(seen, "orig", None)
        if getattr(orig, "sqlstate", None) == "40P01" or getattr(seen, "sqlstate", None) == "40P01":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextlib.contextmanager
def translate_backend_errors(what: str) -> Iterator[None]:
    """Re-raise database and vector-index exceptions as :class:`BackendError` (``from exc``)."""
    try:
        yield
    except DeltaCoreError:
        raise
    except Exception as exc:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(exc, UnicodeEncodeError) or "cannot contain nul" in str(exc).lower():
            # An argument no stored value can hold (the facade names the field where it knows it).
            raise InvalidQueryError(
                "argument",
                f"{what}: a string holds a NUL character or a lone surrogate, which the database cannot store",
            ) from exc
        if is_storage_full(exc):
            raise StorageFullError(
                f"{what}: the disk is full ({str(exc).splitlines()[0][:200]}); nothing of this write was "
                "committed, reads keep working; free space and retry"
            ) from exc
        if _is_connection_failure(exc):
            raise BackendUnavailableError(f"{what}: backend unreachable ({exc})") from exc
        if isinstance(exc, SQLAlchemyError):
            raise BackendError(f"{what}: database error ({exc})") from exc
        module = type(exc).__module__ or ""
        if module.startswith(("chromadb", "httpx")):
            raise BackendError(f"{what}: vector index error ({exc})") from exc
        raise
