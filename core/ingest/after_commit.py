"""The after-commit seam: work that follows a committed write, in one ordered list.

Two kinds of step:

- a **durable** step (:class:`DurableStep`) states its work inside the write transaction
  (a journal row, ``deltacore.storage.journal``) and applies it after the commit in a
  transaction of its own that also removes the row: it runs exactly once, and a crash in
  between leaves it for the next open to replay;
- a **best-effort** step (:class:`AfterCommitStep`) is idempotent and cheap to redo (apply the
  vector outbox, check tool schemas, plant honeypots): it runs after the commit and a crash only
  delays it to the next write or query.

Steps run in registration order. Later layers join the write here (belief updates,
consolidation triggers, the erasure journal) without touching the pipeline.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from deltacore.ingest.stages import CommittedBatch, StepOutcome

log = logging.getLogger(__name__)


@runtime_checkable
class AfterCommitStep(Protocol):
    name: str

    def run(self, batch: CommittedBatch) -> StepOutcome | None:
        """Runs after the commit when the batch stored at least one event."""
        ...


@runtime_checkable
class DurableStep(Protocol):
    name: str

    def payload(self, batch: CommittedBatch) -> dict[str, Any] | None:
        """The work to journal (JSON), computed inside the write transaction; None = nothing."""
        ...

    def apply(self, conn: Any, payload: dict[str, Any]) -> StepOutcome | None:
        """Do the journaled work inside ``conn``'s write transaction."""
        ...


class Journal(Protocol):
    """Storage's after-commit journal (``deltacore.storage.journal.AfterCommitJournal``)."""

    def add(self, conn: Any, tenant: str, step: str, payload: dict[str, Any]) -> int: ...

    def pending(self, conn: Any, steps: Sequence[str] | None = None, limit: int = 1000) -> list[Any]: ...

    def claim(self, conn: Any, entry_id: int) -> bool: ...


class Transactions(Protocol):
    def reader(self) -> AbstractContextManager[Any]: ...

    def writer(self) -> AbstractContextManager[Any]: ...


class AfterCommitSteps:
    """The ordered steps of the seam, and how each kind is run."""

    def __init__(self, db: Transactions, journal: Journal) -> None:
        self._db = db
        self._journal = journal
        self._steps: list[AfterCommitStep | DurableStep] = []
        self._failed_durable = False

    def register(self, step: AfterCommitStep | DurableStep) -> None:
        if any(existing.name == step.name for existing in self._steps):
            raise ValueError(f"an after-commit step named {step.name!r} is already registered")
        self._steps.append(step)

    @property
    def names(self) -> list[str]:
        return [step.name for step in self._steps]

    def journal(self, conn: Any, batch: CommittedBatch) -> dict[str, tuple[int, dict[str, Any]]]:
        """Inside the write transaction: journal each durable step's work
        (step name → (journal entry id, payload))."""
        entries = {}
        tenant = next(iter(sorted(batch.tenants)), "default")
        for step in self._durable():
            payload = step.payload(batch)
            if payload is not None:
                entries[step.name] = (self._journal.add(conn, tenant, step.name, payload), payload)
        return entries

    def run(self, batch: CommittedBatch, journaled: dict[str, tuple[int, dict[str, Any]]]) -> list[StepOutcome]:
        """After the commit: the durable steps with work journaled (together, in one write
        transaction, each in a savepoint of its own), then the best-effort steps, in order.

        A step that fails does not undo or hide the committed write: its failure is reported as
        a warning; a durable step's journal entry stays and is retried by :meth:`replay` (on the
        next write of this process, and on open)."""
        if self._failed_durable:
            self.replay()
        durable = [(step, *journaled[step.name]) for step in self._durable() if step.name in journaled]
        outcomes = self._apply(durable) if durable else []
        if batch.stored:
            for step in self._steps:
                if isinstance(step, DurableStep) and not isinstance(step, AfterCommitStep):
                    continue
                try:
                    outcome = step.run(batch)
                except Exception as exc:  # noqa: BLE001 - reported; the write is committed either way
                    outcome = self._failure(step.name, exc, durable=False)
                if outcome is not None:
                    outcomes.append(outcome)
        return outcomes

    def replay(self) -> int:
        """Apply what was journaled and never applied (a crash, a failed step); returns how many ran."""
        durable = {step.name: step for step in self._durable()}
        with self._db.reader() as conn:
            pending = self._journal.pending(conn, list(durable))
        self._failed_durable = False
        for entry in pending:
            log.info("replaying after-commit step %s (journal entry %s)", entry.step, entry.id)
        self._apply([(durable[entry.step], entry.id, entry.payload) for entry in pending])
        return len(pending)

    def _apply(self, entries: Sequence[tuple[DurableStep, int, dict[str, Any]]]) -> list[StepOutcome]:
        outcomes: list[StepOutcome] = []
        with self._db.writer() as conn:
            for step, entry_id, payload in entries:
                try:
                    # A savepoint per step: one that fails leaves the others' work, and its own
                    # journal row, in place.
                    with conn.begin_nested():
                        # Claimed in the same transaction as the work: another process replaying
                        # the journal at the same time finds the row gone and skips it.
                        if not self._journal.claim(conn, entry_id):
                            continue
                        outcome = step.apply(conn, payload)
                except Exception as exc:  # noqa: BLE001 - reported; the write is committed either way
                    outcome = self._failure(step.name, exc, durable=True)
                if outcome is not None:
                    outcomes.append(outcome)
        return outcomes

    def _failure(self, name: str, exc: Exception, *, durable: bool) -> StepOutcome:
        log.error("after-commit step %s failed", name, exc_info=exc)
        self._failed_durable = self._failed_durable or durable
        retry = "it is journaled and will be retried" if durable else "it is retried by the next write or query"
        return StepOutcome(warnings=(f"after-commit step {name} failed ({type(exc).__name__}: {exc}); the write is stored, {retry}",))

    def _durable(self) -> Iterator[DurableStep]:
        for step in self._steps:
            if isinstance(step, DurableStep) and not isinstance(step, AfterCommitStep):
                yield step
