"""Background vector writes (``DeltaCoreConfig.vector_writes``), mixed into ``DeltaCore``.

A write is acknowledged by its SQL commit, which holds the event and its outbox row; with
``background`` the event is committed without its vector and a worker thread
(``storage.outbox_worker``) drains the outbox shortly after: one embedder call and one Chroma
upsert for every write that arrived meanwhile. So a per-step hook costs a commit, not an
embedding and an index round trip.

Reads stay consistent for the caller: a query (and ``recall_decisions``, ``stats``) first drains
what is pending in the caller's thread, so a query right after an ingest finds the event
semantically too. A crash loses nothing acknowledged: the outbox rows are drained on the next
open. ``close()`` stops the worker and drains what is left.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from deltacore.errors import BackendError
from deltacore.ingest.write_set import embedding_text_of
from deltacore.storage.outbox_worker import BackgroundDrain

log = logging.getLogger(__name__)


class VectorWriteMethods:
    """The worker's life cycle and what it runs (the engine's policy; storage only drains)."""

    _vector_worker: BackgroundDrain | None = None

    def _init_vector_writes(self: Any) -> None:
        background = self.config.vector_writes == "background" and not self.config.read_only
        self._vector_worker = (
            BackgroundDrain(self._apply_outbox_after_write, delay=self.config.vector_write_delay_ms / 1000.0)
            if background
            else None
        )

    def _embeds_inline(self: Any) -> bool:
        """Whether a write embeds its events itself: with ``inline``, and in a process that may
        not drain the outbox (another one owns the embedded index), so that its semantic search,
        which then scans the vectors in SQL, still finds its own writes."""
        return self._vector_worker is None or self._vectors.current() is None

    def _embed_pending(self: Any, rows: Sequence[Any]) -> np.ndarray:
        """Vectors for events committed without one (the outbox drain calls it, a batch at a time)."""
        return self._embedder([embedding_text_of(row.text, row.tool_name, row.tool_args) for row in rows])

    def _vectors_after_write(self: Any) -> int:
        """The outbox step of a write: hand the batch to the worker, or apply it now (``inline``)."""
        if self._vector_worker is None:
            return int(self._apply_outbox_after_write())
        self._vector_worker.notify()
        return 0

    def _stop_vector_writes(self: Any) -> None:
        """Stop the worker, then drain what is left here; what cannot be applied now (the
        embedder fails, level 4 queues writes) stays in the outbox for the next open."""
        if self._vector_worker is not None:
            self._vector_worker.stop_then(self._apply_outbox_after_write, "vector writes", BackendError)

    def _vector_write_problems(self: Any) -> list[str]:
        worker = self._vector_worker
        if worker is None:
            return []
        return worker.problems("background vector writes", "the events are stored and found by text meanwhile")
