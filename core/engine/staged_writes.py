"""Staged writes (``ingest(..., staged=True)``), mixed into ``DeltaCore``: the inbox worker and
read-your-writes.

What staging is and how the inbox is applied lives in ``deltacore.ingest.inbox``; this mixin
decides when it is applied: by a background worker once the staged writes pause
(``staged_write_delay_ms``, at the latest ``staged_write_max_wait_ms``), on open (what a killed
process left), on ``close()``, and before any other public call of the store. That last one is
the choke point :func:`read_your_writes`: it wraps every public method of the class once, so a
method added later applies the inbox first without remembering to.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from deltacore.errors import BackendError
from deltacore.ingest.inbox import StagedInbox
from deltacore.model import Channel, IngestResult
from deltacore.storage.inbox import Inbox
from deltacore.storage.outbox_worker import BackgroundDrain

log = logging.getLogger(__name__)
C = TypeVar("C", bound=type)

# Calls that do not apply the inbox first: ingest decides itself (a staged one must not), close
# drains on its own, embed and open touch no stored data.
_NOT_READS = frozenset({"ingest", "close", "open", "embed"})
# Calls that apply every process's staged writes, not only this one's: an erasure must reach
# what another process staged about the person, and an export or a rebuild must hold it.
_WHOLE_INBOX = frozenset({"forget", "forget_many", "verify_erasure", "delete", "export", "reindex", "consolidate"})


def read_your_writes(cls: C) -> C:
    """Wrap every public method of ``cls`` so that it first applies this process's pending
    staged writes (a no-op costing one attribute test when there are none)."""
    for name in dir(cls):
        if name.startswith("_") or name in _NOT_READS:
            continue
        attribute = inspect.getattr_static(cls, name)
        if inspect.isfunction(attribute):
            setattr(cls, name, _applying_first(attribute, whole_inbox=name in _WHOLE_INBOX))
    return cls


def _applying_first(method: Callable[..., Any], whole_inbox: bool) -> Callable[..., Any]:
    @functools.wraps(method)
    def applying_first(self: Any, *args: Any, **kwargs: Any) -> Any:
        if whole_inbox or self._staged.pending_here:
            self._apply_staged_for_call()
        return method(self, *args, **kwargs)

    return applying_first


class StagedWriteMethods:
    """The inbox worker's life cycle and the apply before a read."""

    _staged: StagedInbox
    _staged_worker: BackgroundDrain | None = None

    def _init_staged_writes(self: Any) -> None:
        self._staged = StagedInbox(self._pipeline, Inbox(self._sql))
        self._staged_worker = (
            None
            if self.config.read_only
            else BackgroundDrain(
                self._staged.apply,
                delay=self.config.staged_write_delay_ms / 1000.0,
                max_wait=self.config.staged_write_max_wait_ms / 1000.0,
                name="deltacore-staged-writes",
            )
        )

    def _stage(self: Any, batch: list[Any], channel: Channel | None) -> IngestResult:
        result = self._staged.stage(batch, channel)
        if result.staged and self._staged_worker is not None:
            self._staged_worker.notify()
        return result

    def _apply_staged_for_call(self: Any) -> None:
        """Read-your-writes. A failure to apply (a database or embedder fault) is logged and the
        call goes on without them, as a query goes on without pending vectors: the rows stay in
        the inbox and the worker retries them."""
        if self._staged.applying or self.config.read_only:
            return  # the write path of an apply in progress on this thread; a store that cannot write
        try:
            self._staged.apply()
        except BackendError as exc:
            log.warning("staged writes could not be applied before this call (%s); they stay in the inbox", exc)

    def _stop_staged_writes(self: Any) -> None:
        """Stop the worker, then apply what is left here; what cannot be applied now stays in
        the inbox for the next open."""
        worker = self._staged_worker
        if worker is not None:  # None: a read-only store, which applies nothing
            worker.stop_then(self._staged.apply, "staged writes", BackendError)

    def _staged_write_problems(self: Any) -> list[str]:
        worker = self._staged_worker
        if worker is None:
            return []
        return worker.problems("staged writes", "they stay in the inbox meanwhile")
