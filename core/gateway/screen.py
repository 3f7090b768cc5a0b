"""The gateway as the write path sees it: one facade that admits and screens a batch.

It decides and writes nothing: what it reads of the store comes through :class:`TrustReads`
(a read connection the pipeline opened), what follows a decision is applied by the ingest
pipeline (``deltacore.gateway.playbook`` says what).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from deltacore.gateway.admission import Admission, Gateway
from deltacore.gateway.scoring import TrustScorer, Verdict
from deltacore.model import Channel, Event
from deltacore.trust_policy import TrustPolicy


class TrustReads(Protocol):
    """What scoring reads of the store (storage's trust repository provides it)."""

    def reputations(self, conn: Any, tenant: str, sources: Iterable[str]) -> dict[str, tuple[float, str]]: ...

    def source_history(self, conn: Any, tenant: str, source: str) -> tuple[int, list[float]]: ...

    def tool_registry(self, conn: Any, tenant: str) -> dict[str, set[str]]: ...

    def trusted_objects(self, conn: Any, tenant: str, subject: str, predicate: str, exclude_source: str | None) -> list[str]: ...

    def recent_questions(self, conn: Any, tenant: str, source: str) -> list[str]: ...


class TrustGateway:
    """Admission (channel, namespace, prior) and the trust verdict of every new write."""

    def __init__(self, policy: TrustPolicy, reads: TrustReads) -> None:
        self.policy = policy
        self._admission = Gateway()
        self._scorer = TrustScorer(policy, reads)

    def admit(self, event: Event, channel: Channel | None = None) -> Admission:
        return self._admission.admit(event, channel)

    def screen(
        self, conn: Any, items: Sequence[tuple[Event, Admission]], on_verdict: Callable[[int, Verdict], None] | None = None
    ) -> list[Verdict]:
        """One verdict per (event, admission), in order; ``conn`` is a read connection;
        ``on_verdict(index, verdict)`` hears each as soon as it is decided."""
        return self._scorer.evaluate(conn, items, on_verdict=on_verdict)
