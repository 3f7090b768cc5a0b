"""What a store checks when it opens, and how a storage fault is kept from stopping reads.

On open (unless ``read_only``): the outbox is replayed, the journaled after-commit steps are
finished, and the vector index is checked against SQL (:mod:`deltacore.storage.index_check`).
A gap is repaired from SQL and logged (a warning and a ``VECTOR_INDEX_REPAIRED`` system event);
one that cannot be repaired is logged as an error, as a ``VECTOR_INDEX_GAP`` system event when
the database can still be written, and listed in ``stats().problems``. A step that fails on a
full disk is reported the same way instead of refusing to open: reads still work.
"""

from __future__ import annotations

import logging
import shutil
from typing import Any

from deltacore.config import DeltaCoreConfig
from deltacore.errors import BackendError
from deltacore.storage import SQLStore
from deltacore.storage.vector_access import MIN_FREE_BYTES
from deltacore.storage.index_check import IndexGap, find_gaps, repair_gap

log = logging.getLogger("deltacore.engine")


def open_sql(config: DeltaCoreConfig) -> tuple[SQLStore, DeltaCoreConfig, str | None]:
    """The database, set up; on a disk too full to open it for writing (SQLite cannot create its
    write-ahead log), opened read-only instead so reads keep working. Returns (store, the config
    it was opened with, why it is read-only or None)."""
    sql = SQLStore(config)
    try:
        sql.setup()
        return sql, config, None
    except BackendError as exc:
        sql.close()
        if config.read_only or not config.is_sqlite or not _disk_full(config):
            raise
        reason = f"the disk is full ({exc}); the store was opened read-only until space is freed and it is reopened"
    config = config.model_copy(update={"read_only": True})
    sql = SQLStore(config)
    sql.setup()
    return sql, config, reason


def _disk_full(config: DeltaCoreConfig) -> bool:
    try:
        return shutil.disk_usage(config.path.expanduser()).free < MIN_FREE_BYTES
    except OSError:
        return False


class HealthChecks:
    """Open-time checks and the read path's tolerant outbox drain (mixed into ``DeltaCore``)."""

    _problems: list[str]

    def _open_checks(self: Any, read_only_because: str | None = None) -> None:
        self._problems = []
        if read_only_because:
            self._note_problem(read_only_because)
        if self.config.read_only:
            return
        # Crash recovery: what a write committed to do and never did is replayed now (staged
        # writes in the inbox, vector writes in the outbox, journaled after-commit steps).
        try:
            self._staged.apply()  # staged writes a killed process acknowledged, in their order
            self.apply_outbox()
            self._pipeline.after_commit.replay()
        except BackendError as exc:
            self._note_problem(
                f"recovery on open did not finish: {exc}; it is retried after the next write"
            )
            return
        index = self._vectors.current()
        if index is None:
            if self._vectors.open_error:
                self._note_problem(
                    f"the vector index is not open ({self._vectors.open_error}); semantic search scans SQL meanwhile"
                )
            return  # or another process owns the embedded index and checks it
        try:
            gaps = find_gaps(self._sql, index)
        except BackendError as exc:
            self._note_problem(f"could not check the vector index against SQL: {exc}")
            return
        for tenant, sql_vectors, index_vectors in gaps:
            self._report_gap(
                repair_gap(self._sql, index, tenant, sql_vectors, index_vectors)
            )

    def _report_gap(self: Any, gap: IndexGap) -> None:
        payload = {
            "sql_vectors": gap.sql_vectors,
            "index_vectors": gap.index_vectors,
            "written": gap.written,
            "removed": gap.removed,
            "error": gap.error,
        }
        where = f"tenant {gap.tenant!r}: the vector index held {gap.index_vectors} vectors, SQL {gap.sql_vectors}"
        if gap.repaired:
            log.warning(
                "%s; repaired from SQL (%d written, %d removed)",
                where,
                gap.written,
                gap.removed,
            )
            kind = "VECTOR_INDEX_REPAIRED"
        else:
            self._note_problem(
                f"{where}; the repair failed ({gap.error}); semantic search misses memories until reindex()"
            )
            kind = "VECTOR_INDEX_GAP"
        try:
            with self._sql.writer() as conn:
                self._sql.log_system_event(conn, gap.tenant, kind, payload)
        except BackendError as exc:
            log.error("could not log %s for tenant %r: %s", kind, gap.tenant, exc)

    def _note_problem(self: Any, message: str) -> None:
        log.error("%s", message)
        self._problems.append(message)

    def _drain_for_read(self: Any) -> None:
        """Apply vector writes other processes left (read-your-writes) when it can: a drain that
        fails (a full disk, an index that is down) must not stop a query that SQL can answer."""
        try:
            self.apply_outbox()
        except BackendError as exc:
            log.warning(
                "pending vector writes could not be applied before this query (%s); answering without them",
                exc,
            )
