"""The after-commit seam: work that follows a committed write, in one ordered list.

Two kinds of step:

- a **durable** step (:class:`DurableStep`) runs exactly once, even across a crash. With
  ``in_write_transaction`` (the engine sets it for SQLite, whose writers are serialised) it does
  its work inside the write transaction, in a savepoint of its own, so its work commits with the
  write (one commit per write: a per-step hook pays one fsync, not two); a step that fails is
  rolled back to its savepoint and journaled instead (``deltacore.storage.journal``). Without it
  (PostgreSQL, where a step updating older events after the write took its tenant's counter row
  would take locks in the opposite order of a delete, and deadlock with it) the work is
  journaled inside the write transaction and applied after the commit in a transaction of its
  own that also removes the row. The journal is replayed by the next write and the next open;
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
from dataclasses import dataclass, field
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


@dataclass
class DurableWork:
    """What :meth:`AfterCommitSteps.apply_durable` did inside the write transaction."""

    outcomes: list[StepOutcome] = field(default_factory=list)
    journaled: list[tuple[DurableStep, int, dict[str, Any]]] = field(default_factory=list)
    """Work journaled to be applied after the commit (without ``in_write_transaction``)."""


class AfterCommitSteps:
    """The ordered steps of the seam, and how each kind is run."""

    def __init__(self, db: Transactions, journal: Journal, *, in_write_transaction: bool = True) -> None:
        self._db = db
        self._journal = journal
        self._in_write = in_write_transaction
        self._steps: list[AfterCommitStep | DurableStep] = []
        self._failed_durable = False

    def register(self, step: AfterCommitStep | DurableStep) -> None:
        if any(existing.name == step.name for existing in self._steps):
            raise ValueError(f"an after-commit step named {step.name!r} is already registered")
        self._steps.append(step)

    @property
    def names(self) -> list[str]:
        return [step.name for step in self._steps]

    def apply_durable(self, conn: Any, batch: CommittedBatch) -> DurableWork:
        """Inside the write transaction: each durable step with work, in a savepoint of its own
        (or only journaled, without ``in_write_transaction``). A step that fails leaves the write
        and the other steps' work in place, is reported as a warning and journaled in the same
        transaction, for :meth:`replay`."""
        work = DurableWork()
        tenant = next(iter(sorted(batch.tenants)), "default")
        if not self._in_write:
            for step in self._durable():
                payload = step.payload(batch)
                if payload is not None:
                    work.journaled.append((step, self._journal.add(conn, tenant, step.name, payload), payload))
            return work
        outcomes = work.outcomes
        if self._failed_durable:  # what failed before goes first, in this same transaction
            self._failed_durable = False
            outcomes.extend(self._apply_in(conn, self._pending(conn)))
        for step in self._durable():
            payload = step.payload(batch)
            if payload is None:
                continue
            try:
                with conn.begin_nested():
                    outcome = step.apply(conn, payload)
            except Exception as exc:  # noqa: BLE001 - reported and journaled; the write commits either way
                self._journal.add(conn, tenant, step.name, payload)
                outcome = self._failure(step.name, exc, durable=True)
            if outcome is not None:
                outcomes.append(outcome)
        return work

    def run(self, batch: CommittedBatch, work: DurableWork) -> list[StepOutcome]:
        """After the commit: the durable work :meth:`apply_durable` journaled (in one write
        transaction, a savepoint each), then the best-effort steps, in order. A step that fails
        does not undo or hide the committed write: its failure is reported as a warning, and the
        next write (or open) runs it again."""
        if self._failed_durable and not self._in_write:
            self.replay()
        outcomes = list(work.outcomes)
        if work.journaled:
            with self._db.writer() as conn:
                outcomes.extend(self._apply_in(conn, work.journaled))
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
        with self._db.reader() as conn:
            pending = self._pending(conn)
        self._failed_durable = False
        if pending:
            with self._db.writer() as conn:
                self._apply_in(conn, pending)
        return len(pending)

    def _pending(self, conn: Any) -> list[tuple[DurableStep, int, dict[str, Any]]]:
        durable = {step.name: step for step in self._durable()}
        entries = self._journal.pending(conn, list(durable))
        for entry in entries:
            log.info("replaying after-commit step %s (journal entry %s)", entry.step, entry.id)
        return [(durable[entry.step], entry.id, entry.payload) for entry in entries]

    def _apply_in(self, conn: Any, entries: Sequence[tuple[DurableStep, int, dict[str, Any]]]) -> list[StepOutcome]:
        outcomes: list[StepOutcome] = []
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
