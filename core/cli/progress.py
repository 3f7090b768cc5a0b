"""Progress of a long command: a bar on a terminal, a line per 10 % otherwise.

A command that runs for minutes with a blank screen looks hung; in a log (cron, CI, a pipe) a
bar's carriage returns are noise, so there it writes one plain line each time another tenth of
the work is done.
"""

from __future__ import annotations

import sys
from typing import IO, Any

STEP_PERCENT = 10


class Progress:
    """``progress(phase, done, total)`` for :meth:`deltacore.DeltaCore.reindex` and the like."""

    def __init__(self, stream: IO[str] | None = None, step: int = STEP_PERCENT) -> None:
        self.stream = stream or sys.stderr
        self.step = step
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bars: dict[str, Any] = {}
        self._reported: dict[str, int] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self.tty:
            self._bar(phase, total).update(done - self._bar(phase, total).n)
            return
        percent = 100 if total <= 0 else min(100, done * 100 // total)
        mark = percent - percent % self.step
        if mark > self._reported.get(phase, -1):
            self._reported[phase] = mark
            print(f"{phase}: {mark}% ({done:,}/{total:,})", file=self.stream, flush=True)

    def _bar(self, phase: str, total: int) -> Any:
        if phase not in self._bars:
            from tqdm import tqdm

            self._bars[phase] = tqdm(total=total, desc=phase, unit=" events", file=self.stream, leave=True)
        return self._bars[phase]

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
