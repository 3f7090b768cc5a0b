"""The values that flow one way through the write path, each stage's output the next's input.

validated batch → screened (gateway verdicts) → derived deltas (``deltacore.delta.derive``) →
write set (rows for one transaction) → committed batch (what after-commit steps see).
All frozen: a stage never edits what an earlier one produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deltacore.gateway import Admission
from deltacore.gateway.scoring import Verdict
from deltacore.model import Event, Namespace, Rejection, TrustAction, TrustDecision


@dataclass(frozen=True)
class Admitted:
    """A valid, normalised event of the batch with its admission (channel, namespace, prior)."""

    index: int
    event: Event
    admission: Admission
    content_hash: str


@dataclass(frozen=True)
class ValidatedBatch:
    items: tuple[Admitted, ...]
    rejected: tuple[Rejection, ...]
    copies: tuple[tuple[int, int], ...]
    """(index of a repeat within the batch, index of its first occurrence)."""


@dataclass(frozen=True)
class Screened:
    """An admitted event with the gateway's verdict."""

    item: Admitted
    verdict: Verdict | None

    @property
    def event(self) -> Event:
        return self.item.event

    @property
    def index(self) -> int:
        return self.item.index

    @property
    def blocked(self) -> bool:
        return self.verdict is not None and self.verdict.action is TrustAction.BLOCK

    @property
    def namespace(self) -> str:
        if self.verdict is not None and self.verdict.namespace is not None:
            return self.verdict.namespace.value
        return self.item.admission.namespace.value

    @property
    def trust(self) -> float:
        return self.verdict.score if self.verdict is not None else self.item.admission.trust

    def decision(self) -> TrustDecision | None:
        if self.verdict is None:
            return None
        v = self.verdict
        return TrustDecision(
            index=self.index,
            event_id=self.event.id,
            source=self.event.source,
            score=v.score,
            action=v.action,
            namespace=v.namespace,
            reasons=v.reasons,
            signals=v.signals,
        )


@dataclass(frozen=True)
class WriteSet:
    """Everything one batch writes, as rows, for one transaction."""

    events: tuple[dict[str, Any], ...] = ()
    deltas: tuple[dict[str, Any], ...] = ()
    links: tuple[dict[str, Any], ...] = ()
    entities: tuple[dict[str, Any], ...] = ()
    mentions: tuple[dict[str, Any], ...] = ()
    tool_schemas: tuple[dict[str, Any], ...] = ()
    system_events: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    """(tenant, kind, payload)."""


@dataclass(frozen=True)
class CommittedBatch:
    """What a committed write stored: the input of every after-commit step."""

    stored: tuple[Screened, ...]
    """Events that were inserted (not raced duplicates), in batch order."""
    blocked: tuple[Screened, ...]
    decided: tuple[Screened, ...]
    """Stored and blocked events with a verdict, in batch order."""
    tenants: frozenset[str]

    @property
    def stored_ids(self) -> list[str]:
        return [s.event.id for s in self.stored]

    def namespace_of(self, event_id: str) -> Namespace | None:
        for s in self.stored:
            if s.event.id == event_id:
                return Namespace(s.namespace)
        return None


@dataclass(frozen=True)
class StepOutcome:
    """What an after-commit step reports back into the batch's ``IngestResult``."""

    warnings: tuple[str, ...] = ()
    updates: dict[str, Any] = field(default_factory=dict)
    """``IngestResult`` fields to set (e.g. ``schema_drifts``)."""
