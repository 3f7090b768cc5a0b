"""The best-effort after-commit steps every store registers (see ``after_commit``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from deltacore.ingest.stages import CommittedBatch, StepOutcome


class OutboxStep:
    """Apply the batch's vector writes to the index (they are already durable in the outbox)."""

    name = "vector_outbox"

    def __init__(self, apply_outbox: Callable[[], int]) -> None:
        self._apply = apply_outbox

    def run(self, batch: CommittedBatch) -> StepOutcome | None:
        self._apply()
        return None


class DriftChecker(Protocol):
    def after_ingest(self, event_ids: Iterable[str]) -> list[Any]: ...


class SchemaDriftStep:
    """A call under a changed tool schema (E04): demote, migrate, queue for review. Re-running is
    harmless, so a crash before it only delays the check to the next call or offer."""

    name = "schema_drift"

    def __init__(self, drift: DriftChecker) -> None:
        self._drift = drift

    def run(self, batch: CommittedBatch) -> StepOutcome | None:
        if not any(s.event.tool_schema_hash for s in batch.stored):
            return None
        drifts = self._drift.after_ingest(batch.stored_ids)
        return StepOutcome(updates={"schema_drifts": drifts}) if drifts else None


class CanaryPlanter(Protocol):
    def ensure(self, tenants: Iterable[str]) -> None: ...


class HoneypotStep:
    """A tenant's first write plants its canary memories."""

    name = "honeypots"

    def __init__(self, honeypots: CanaryPlanter) -> None:
        self._honeypots = honeypots

    def run(self, batch: CommittedBatch) -> StepOutcome | None:
        self._honeypots.ensure(batch.tenants)
        return None


class BeliefUpdater(Protocol):
    def update(self, conn: Any, stored_ids: Sequence[str]) -> int: ...


class BeliefStep:
    """Facts in time from the stored events (``deltacore.belief``): durable, so a crash after
    the commit cannot lose what the events stated."""

    name = "beliefs"

    def __init__(self, beliefs: BeliefUpdater) -> None:
        self._beliefs = beliefs

    def payload(self, batch: CommittedBatch) -> dict[str, Any] | None:
        return {"event_ids": batch.stored_ids} if batch.stored else None

    def apply(self, conn: Any, payload: dict[str, Any]) -> StepOutcome | None:
        self._beliefs.update(conn, payload["event_ids"])
        return None
