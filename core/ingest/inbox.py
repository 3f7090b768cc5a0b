"""Staged writes: acknowledged once durable, applied through the write path soon after.

``DeltaCore.ingest(..., staged=True)`` validates the batch here and now (a bad event is rejected
with its field, exactly as a direct write rejects it), gives every good event its id, and appends
them to the durable inbox (storage's ``dc_inbox``: one INSERT, one commit). That is the whole cost
a per-step hook pays. What the write path decides (the trust gateway's verdict, deltas, beliefs,
vectors) happens when the inbox is applied: by the engine's background worker, or before any
other call of the same store reads (read-your-writes), or on ``close()`` / the next open.

The write path stays the one owner of the write: the inbox is applied in staging order, a batch
at a time, through :meth:`IngestPipeline.run`, and each batch's inbox rows are removed in the
transaction that writes its events. A crash before that commit leaves the rows to be applied
again; a crash after it leaves none. A row applied twice anyway (two processes) is a duplicate
by event id, never a second copy.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from itertools import groupby
from typing import Any, Protocol

from deltacore.ingest.batch import gave_ts
from deltacore.ingest.pipeline import IngestPipeline
from deltacore.model import Channel, Event, IngestResult

log = logging.getLogger(__name__)

APPLY_BATCH = 64
"""Inbox rows read per round; events of one channel among them go through one pipeline run (one
SQLite write lock: small enough that a hook staging meanwhile waits briefly for it)."""


class InboxStore(Protocol):
    """What staging needs from storage (``deltacore.storage.inbox.Inbox`` provides it)."""

    def append(self, rows: Sequence[dict[str, Any]]) -> None: ...

    def pending(self, limit: int) -> list[Any]: ...

    def has_pending(self) -> bool: ...

    def remove(self, conn: Any, seqs: Sequence[int]) -> None: ...

    def remove_now(self, seqs: Sequence[int]) -> None: ...

    def apply_lock(self) -> AbstractContextManager[None]: ...


class StagedInbox:
    """Stages batches and applies them; knows which staged ids of this process are pending."""

    def __init__(self, pipeline: IngestPipeline, inbox: InboxStore, batch_size: int = APPLY_BATCH) -> None:
        self._pipeline = pipeline
        self._inbox = inbox
        self._batch_size = batch_size
        self._apply_lock = threading.Lock()
        self._mine: Counter[str] = Counter()  # staged here and not applied yet (an id may be staged twice)
        self._mine_lock = threading.Lock()
        self._appending = 0  # stage() calls between counting their ids and their commit
        self._local = threading.local()

    @property
    def pending_here(self) -> bool:
        """Whether this process staged events that are not applied yet (cheap: no I/O)."""
        return bool(self._mine)

    @property
    def applying(self) -> bool:
        """True on the thread that is applying the inbox (its write path must not apply it again)."""
        return bool(getattr(self._local, "applying", False))

    def stage(self, raw_events: Sequence[Any], channel: Channel | None) -> IngestResult:
        """Validate, give ids, append durably. The result names the staged ids (``staged``) and
        the rejected items; nothing the write path decides is known yet."""
        batch = self._pipeline.validate(raw_events, channel)
        event_ids: list[str | None] = [None] * len(raw_events)
        rows = []
        for item in batch.items:
            event_ids[item.index] = item.event.id
            rows.append(
                {
                    "event_id": item.event.id,
                    "tenant": item.event.tenant,
                    "channel": channel.value if channel is not None else None,
                    "ts_given": int(gave_ts(raw_events[item.index])),
                    "payload": item.event.model_dump_json(),
                }
            )
        duplicates = []
        for index, first in batch.copies:
            event_ids[index] = event_ids[first]
            duplicates.append(event_ids[first])
        staged = [row["event_id"] for row in rows]
        if rows:
            # Counted before the commit: a worker that applies them at once must find them counted.
            with self._mine_lock:
                self._mine.update(staged)
                self._appending += 1
            try:
                self._inbox.append(rows)
            except BaseException:
                self._forget(staged)
                raise
            finally:
                with self._mine_lock:
                    self._appending -= 1
        return IngestResult(event_ids=event_ids, staged=staged, duplicates=duplicates, rejected=list(batch.rejected))

    def apply(self) -> int:
        """Apply every pending row (this process's and any other's) in staging order; returns
        how many rows were applied. A no-op on the thread already applying."""
        if self.applying:
            return 0
        with self._mine_lock:
            # Ids staged here and committed before this pass: once the inbox is found empty
            # they are applied, here or by another process (this one's counts would otherwise
            # never hear of the latter).
            committed = list(self._mine) if not self._appending else []
        if not self._inbox.has_pending():  # one indexed probe: the usual answer, no lock taken
            self._settle_counts(committed)
            return 0
        with self._apply_lock, self._inbox.apply_lock():
            self._local.applying = True
            try:
                total = 0
                while True:
                    rows = self._inbox.pending(self._batch_size)
                    for channel, group in _runs_by_channel(rows):
                        self._apply_run(channel, group)
                    total += len(rows)
                    if len(rows) < self._batch_size:
                        break
                if not rows:
                    self._settle_counts(committed)
                return total
            finally:
                self._local.applying = False

    def _apply_run(self, channel: Channel | None, rows: list[Any]) -> None:
        seqs = [row.seq for row in rows]
        removed: list[bool] = []

        def remove(conn: Any) -> None:
            self._inbox.remove(conn, seqs)
            removed.append(True)

        result = self._pipeline.run([restored_event(row) for row in rows], channel, in_transaction=remove)
        if not removed:
            # Nothing was written (every event a duplicate): the rows go in a transaction of their own.
            self._inbox.remove_now(seqs)
        for rejection in result.rejected:
            # Validated when staged; only a change of limits between staging and applying gets here.
            log.error("staged event %s was rejected when applied (%s: %s)", rejection.event_id, rejection.field, rejection.reason)
        self._forget(row.event_id for row in rows)

    def _settle_counts(self, committed: list[str]) -> None:
        """The inbox was found empty after ``committed`` were: they are applied."""
        if committed:
            with self._mine_lock:
                for event_id in committed:
                    self._mine.pop(event_id, None)

    def _forget(self, event_ids: Iterable[str]) -> None:
        with self._mine_lock:
            self._mine.subtract(event_ids)
            for event_id in [key for key, count in self._mine.items() if count <= 0]:
                del self._mine[event_id]


def restored_event(row: Any) -> Event:
    """The staged event as validated, with its id and time. A time the caller did not give is
    marked so (not in the fields set), so the duplicate key is the one a direct write uses."""
    event = Event.model_validate_json(row.payload)
    if row.ts_given:
        return event
    return Event.model_construct(_fields_set=event.model_fields_set - {"ts"}, **dict(event))


def _runs_by_channel(rows: list[Any]) -> Iterator[tuple[Channel | None, list[Any]]]:
    """Consecutive rows of one channel: one pipeline run each, so the order is kept."""
    for value, group in groupby(rows, key=lambda row: row.channel):
        yield (Channel(value) if value is not None else None), list(group)
