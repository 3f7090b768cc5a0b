"""A thread that drains the vector outbox in the background.

Storage's part of background vector writes: a write is acknowledged by its SQL commit (the
outbox row is in the same transaction), and this thread later turns the pending rows into
embedder calls and Chroma upserts, a batch at a time. What it runs, how long it waits to gather
a batch, and whether it may run at all are the engine's decisions (``work`` and ``delay``).

A failing drain is retried with a growing pause (the rows stay pending, so nothing is lost) and
its error is kept for ``stats().problems`` until a drain succeeds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

FIRST_RETRY_SECONDS = 0.5
MAX_RETRY_SECONDS = 30.0


class BackgroundDrain:
    """Runs ``work`` on its own thread ``delay`` seconds after :meth:`notify` (more writes that
    arrive meanwhile join the same batch), and again after a failure until it succeeds."""

    def __init__(
        self, work: Callable[[], int], *, delay: float, name: str = "deltacore-vector-writes", max_wait: float | None = None
    ) -> None:
        self._work = work
        self._delay = delay
        # With max_wait the delay restarts at every notify (work waits for a quiet moment, such
        # as the model's turn between two tool steps), but never past max_wait after the first.
        self._max_wait = max_wait
        self._last_notify = 0.0
        self._name = name
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.last_error: str | None = None
        """Why the last drain failed, while drains keep failing (None once one succeeds)."""
        self.failures = 0
        """Failed drains since the last success."""

    def problems(self, what: str, meanwhile: str) -> list[str]:
        """``stats().problems``' line for this worker while its drains keep failing: ``what`` is
        failing, ``meanwhile`` says what a caller still gets."""
        if self.last_error is None:
            return []
        return [f"{what} are failing ({self.failures} attempts, retried): {self.last_error}; {meanwhile}"]

    def stop_then(self, finish: Callable[[], object], what: str, errors: type[Exception] | tuple[type[Exception], ...]) -> None:
        """Stop the thread, then run ``finish`` (the last drain) here. What cannot be drained now
        — the thread did not stop, or ``finish`` raised one of ``errors`` — stays pending for the
        next open, and is logged as such."""
        if not self.stop():
            log.error("the %s worker did not stop in time; its pending writes are applied on the next open", what)
            return
        try:
            finish()
        except errors as exc:
            log.error("pending %s could not be applied on close (%s); they are applied on the next open", what, exc)

    def notify(self) -> None:
        """Writes are pending: drain them soon (starts the thread on first use)."""
        if self._stopping.is_set():
            return
        self._last_notify = time.monotonic()
        if self._thread is None:
            with self._start_lock:
                if self._thread is None and not self._stopping.is_set():
                    self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                    self._thread.start()
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the thread after the drain it is running, if any; True when it has ended. The
        caller drains what is left itself (and what it cannot is applied on the next open)."""
        self._stopping.set()
        self._wake.set()
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _run(self) -> None:
        retry_in: float | None = None
        while True:
            woken = self._wake.wait(retry_in)
            if self._stopping.is_set():
                return
            if woken and self._delay > 0 and not self._settle():
                return
            # Cleared only now: a write arriving during the delay joins this drain.
            self._wake.clear()
            try:
                self._work()
            except Exception as exc:  # noqa: BLE001 - kept, reported and retried; the rows stay pending
                self.failures += 1
                self.last_error = f"{type(exc).__name__}: {exc}"
                retry_in = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (self.failures - 1))
                log.error("%s failed (attempt %d, retried in %.1fs): %s", self._name, self.failures, retry_in, exc)
                continue
            self.failures = 0
            self.last_error = None
            retry_in = None

    def _settle(self) -> bool:
        """Wait before working (``delay``, restarted by notifies under ``max_wait``); False when
        stopping."""
        if self._max_wait is None:
            return not self._stopping.wait(self._delay)
        first = time.monotonic()
        while True:
            remaining = min(self._last_notify + self._delay, first + self._max_wait) - time.monotonic()
            if remaining <= 0:
                return True
            if self._stopping.wait(remaining):
                return False
