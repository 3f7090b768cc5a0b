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

Embedding ahead: a write of ``AHEAD_MIN_EVENTS`` or more hands each event the gateway lets
through to a helper thread, a chunk at a time while the gateway scores the rest (a blocked event
is never embedded), and goes on with its SQL transaction and the belief step; the drain that
follows takes those vectors instead of embedding again. The embedder (native code that releases
the GIL) and the write's Python work then share the machine's cores instead of taking turns. A
vector is taken only for the same event and the same text; anything else (a failed or unfinished
embedding, an event updated meanwhile) is embedded by the drain as before. Small writes (a
hook's step) do not embed ahead: the drain batches them into one call.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from deltacore.errors import BackendError
from deltacore.ingest.write_set import embedding_text_of
from deltacore.storage.outbox_worker import BackgroundDrain

log = logging.getLogger(__name__)
AHEAD_MIN_EVENTS = 16
"""Writes of fewer events leave their embedding to the drain, which batches many small writes
into one embedder call (per-step hooks); a write this large is worth embedding at once."""
AHEAD_LIMIT = 20_000
"""Vectors embedded ahead and not yet drained, at most (about 30 MB at 384 dimensions)."""


class VectorWriteMethods:
    """The worker's life cycle and what it runs (the engine's policy; storage only drains)."""

    _vector_worker: BackgroundDrain | None = None
    _ahead: OrderedDict[str, tuple[str, Future[Any], int]]
    _ahead_lock: threading.Lock
    _ahead_pool: ThreadPoolExecutor | None = None

    def _init_vector_writes(self: Any) -> None:
        background = self.config.vector_writes == "background" and not self.config.read_only
        self._vector_worker = (
            BackgroundDrain(self._apply_outbox_after_write, delay=self.config.vector_write_delay_ms / 1000.0)
            if background
            else None
        )
        self._ahead = OrderedDict()
        self._ahead_lock = threading.Lock()
        self._ahead_pool = ThreadPoolExecutor(1, thread_name_prefix="deltacore-embed-ahead") if background else None

    def _embed_ahead(self: Any, items: Sequence[tuple[str, str]], write_size: int) -> None:
        """Start embedding some of a write's new events (event id, embedding text; the write has
        ``write_size`` events) while the write goes on; the drain takes the vectors
        (``_embed_pending``). The write path calls it only when it does not embed inline."""
        pool = self._ahead_pool
        if pool is None or not items or write_size < AHEAD_MIN_EVENTS:
            return  # a hook's single step: the worker's next drain embeds it with the others'
        texts = [text for _, text in items]
        try:
            future = pool.submit(self._embedder, texts)
        except RuntimeError:  # the store is closing: the drain embeds them
            return
        with self._ahead_lock:
            for index, (event_id, text) in enumerate(items):
                self._ahead[event_id] = (text, future, index)
            # Vectors nobody drained (a duplicate found under the write lock, a write that
            # failed) are dropped oldest first: this is a cache, the drain can always embed.
            while len(self._ahead) > AHEAD_LIMIT:
                self._ahead.popitem(last=False)

    def _embeds_inline(self: Any) -> bool:
        """Whether a write embeds its events itself: with ``inline``, and in a process that may
        not drain the outbox (another one owns the embedded index), so that its semantic search,
        which then scans the vectors in SQL, still finds its own writes."""
        return self._vector_worker is None or self._vectors.current() is None

    def _embed_pending(self: Any, rows: Sequence[Any]) -> np.ndarray:
        """Vectors for events committed without one (the outbox drain calls it, a batch at a
        time): the ones embedded ahead for the same text, the embedder for the rest."""
        texts = [embedding_text_of(row.text, row.tool_name, row.tool_args) for row in rows]
        if not getattr(self, "_ahead", None):  # nothing embedded ahead (or a drain while opening)
            return self._embedder(texts)
        with self._ahead_lock:
            ahead = [self._ahead.pop(row.id, None) for row in rows]
        found: dict[int, np.ndarray] = {}
        for i, entry in enumerate(ahead):
            if entry is None or entry[0] != texts[i]:
                continue
            try:
                found[i] = np.asarray(entry[1].result())[entry[2]]
            except Exception:  # noqa: BLE001 - the embedder failed ahead: the drain asks it again below
                continue
        missing = [i for i in range(len(rows)) if i not in found]
        if missing:
            for i, vector in zip(missing, np.asarray(self._embedder([texts[i] for i in missing]))):
                found[i] = vector
        return np.stack([found[i] for i in range(len(rows))])

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
        if self._ahead_pool is not None:
            self._ahead_pool.shutdown(wait=True)
            self._ahead_pool = None
        with self._ahead_lock:
            self._ahead.clear()

    def _vector_write_problems(self: Any) -> list[str]:
        worker = self._vector_worker
        if worker is None:
            return []
        return worker.problems("background vector writes", "the events are stored and found by text meanwhile")
