"""The trust part of the ``DeltaCore`` facade: quarantine review, the security log, reputation."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from deltacore.gateway.quarantine import QuarantineDesk
from deltacore.model import Event, Namespace, QuarantineReview, SecurityEvent
from deltacore.storage import SQLStore
from deltacore.storage.trust_store import TrustStore

log = logging.getLogger("deltacore.engine")

# Per thread, so that muting an erasure audit's own probes never silences another caller's query.
_muted = threading.local()


class TrustMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the collaborators are wired there."""

    _sql: SQLStore
    _trust: TrustStore
    _quarantine: QuarantineDesk

    @contextmanager
    def _alerts_muted(self) -> Iterator[None]:
        """Queries of this thread raise no honeypot alert meanwhile (an erasure audit's probes
        name the subject: an alert would copy it into the security log)."""
        before = getattr(_muted, "on", False)
        _muted.on = True
        try:
            yield
        finally:
            _muted.on = before

    def _honeypot_alert(self, tenant: str, query: str, canaries: list[str]) -> None:
        if getattr(_muted, "on", False):
            return
        log.warning("HONEYPOT_TRIGGERED in tenant %s", tenant)
        with self._sql.writer() as conn:
            self._trust.log(
                conn, [{"tenant": tenant, "kind": "HONEYPOT_TRIGGERED", "payload": {"query": query[:1000], "canaries": canaries}}]
            )

    def quarantined(self, *, tenant: str = "default", limit: int = 1000) -> list[Event]:
        """Events waiting in QUARANTINE for review, oldest first (never returned by ``query``)."""
        return self._quarantine.pending(tenant, limit)

    def quarantine_review(self, event_ids: Sequence[str], verdict: str, *, tenant: str = "default") -> QuarantineReview:
        """Apply a reviewer's verdict to quarantined events.

        ``verdict``: ``"release"`` (back to the namespace their channel gets: TRUSTED, or
        UNVERIFIED for documents and peers; the source regains reputation),
        ``"release_unverified"`` (to UNVERIFIED), ``"confirm"`` (poison confirmed: they stay
        quarantined and the source loses reputation) or ``"delete"`` (poison confirmed and
        erased, with deltas, links, full-text entries and vectors)."""
        review = self._quarantine.review(list(event_ids), verdict, tenant)
        if verdict == "delete" and review.event_ids:
            self.delete(review.event_ids, tenant=tenant)
        return review

    def security_events(
        self, since: Any = None, *, kind: str | None = None, tenant: str | None = "default", limit: int = 10_000
    ) -> list[SecurityEvent]:
        """The security log, oldest first: trust decisions other than the fast path,
        ``POISON_DETECTED`` (E01), ``SOURCE_BLACKLISTED``, ``HONEYPOT_TRIGGERED``,
        ``QUARANTINE_REVIEW``. ``since`` is a datetime or unix seconds; ``tenant=None`` = all."""
        return self._quarantine.security_events(since, kind, tenant, limit)

    def trust_score(self, source: str, *, tenant: str = "default") -> float:
        """The learned reputation of a writer (``TrustPolicy.initial_reputation`` if never
        seen); below 0 the source is blacklisted."""
        return self._quarantine.reputation(source, tenant)


    def namespaces(self, event_ids: Sequence[str], *, tenant: str = "default") -> dict[str, Namespace]:
        """The trust namespace of each stored event of ``tenant`` (ids not stored are left out).

        What a conversation history shows beside a message it returns: a quarantined turn was
        still said, and ``events(..., include_quarantined=True)`` lists it; this says which."""
        with self._sql.reader() as conn:
            rows = self._sql.fetch_events(conn, list(event_ids))
        return {event_id: Namespace(row.namespace) for event_id, row in rows.items() if row.tenant == tenant}
