"""The operator's side of the gateway: quarantine review, the security log, reputations,
and reputation learned from outcomes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any, Protocol

from sqlalchemy import Connection

from deltacore.delta.repositories import Transactions

from deltacore.errors import InvalidQueryError
from deltacore.gateway.admission import UNVERIFIED_CHANNELS
from deltacore.trust_policy import TrustPolicy
from deltacore.gateway.scoring import BLACKLISTED
from deltacore.model import Channel, Event, Namespace, OutcomeReport, QuarantineReview, SecurityEvent

VERDICTS = ("release", "release_unverified", "confirm", "delete")


class QuarantineStore(Protocol):
    """What the desk reads and changes (``deltacore.storage.trust_store.TrustStore``: the
    quarantine, reputation and security-log repositories)."""

    def quarantined_events(self, conn: Connection, tenant: str, limit: int) -> list[Event]: ...

    def namespaces(self, conn: Connection, tenant: str, event_ids: Sequence[str]) -> dict[str, tuple[str, str, str | None]]:
        """(namespace, channel, source) of each event."""
        ...

    def set_namespace(
        self, conn: Connection, tenant: str, event_ids: Sequence[str], namespace: Namespace, only_from: Namespace | None = None
    ) -> list[str]: ...

    def reputations(self, conn: Connection, tenant: str, sources: Iterable[str]) -> dict[str, tuple[float, str]]: ...

    def adjust_reputation(
        self, conn: Connection, tenant: str, source: str, change: float, initial: float, *, status: str | None = None,
        quarantined: int = 0, blocked: int = 0,
    ) -> tuple[float, str]: ...

    def log(self, conn: Connection, rows: list[dict[str, Any]]) -> None: ...

    def security_events(self, tenant: str | None, since: float | None, kind: str | None, limit: int) -> list[SecurityEvent]: ...


class QuarantineDesk:
    def __init__(self, database: Transactions, store: QuarantineStore, policy: TrustPolicy) -> None:
        self._database = database
        self._store = store
        self._policy = policy

    def pending(self, tenant: str, limit: int) -> list[Event]:
        with self._database.reader() as conn:
            return self._store.quarantined_events(conn, tenant, limit)

    def review(self, event_ids: list[str], verdict: str, tenant: str) -> QuarantineReview:
        if verdict not in VERDICTS:
            raise InvalidQueryError("verdict", f"unknown verdict {verdict!r}; use one of {', '.join(VERDICTS)}")
        if isinstance(event_ids, str):
            event_ids = [event_ids]
        with self._database.writer() as conn:
            found = self._store.namespaces(conn, tenant, event_ids)
            held = [i for i in event_ids if i in found and found[i][0] == Namespace.QUARANTINE.value]
            missing = [i for i in event_ids if i not in held]
            namespace: Namespace | None = None
            if verdict in ("release", "release_unverified"):
                by_target: dict[Namespace, list[str]] = {}
                for event_id in held:
                    channel = Channel(found[event_id][1])
                    target = (
                        Namespace.UNVERIFIED
                        if verdict == "release_unverified" or channel in UNVERIFIED_CHANNELS
                        else Namespace.TRUSTED
                    )
                    by_target.setdefault(target, []).append(event_id)
                for target, ids in by_target.items():
                    self._store.set_namespace(conn, tenant, ids, target, only_from=Namespace.QUARANTINE)
                namespace = next(iter(by_target)) if len(by_target) == 1 else None
            # Reviewers teach the gateway: a false alarm restores some reputation, a confirmed
            # poisoning costs the source as much as a blocked write.
            change = self._policy.release_bonus if verdict.startswith("release") else -self._policy.poison_penalty
            for source in {found[i][2] for i in held if found[i][2]}:
                reputation, status = self._store.adjust_reputation(conn, tenant, source, change, self._policy.initial_reputation)
                if reputation < 0 and status != BLACKLISTED:
                    self._store.adjust_reputation(conn, tenant, source, 0.0, self._policy.initial_reputation, status=BLACKLISTED)
            self._store.log(
                conn,
                [{"tenant": tenant, "kind": "QUARANTINE_REVIEW", "action": verdict, "payload": {"event_ids": held}}] if held else [],
            )
        return QuarantineReview(verdict=verdict, event_ids=held, not_quarantined=missing, namespace=namespace)

    def security_events(self, since: Any, kind: str | None, tenant: str | None, limit: int) -> list[SecurityEvent]:
        if isinstance(since, datetime):
            since = (since if since.tzinfo else since.replace(tzinfo=timezone.utc)).timestamp()
        elif since is not None and not isinstance(since, (int, float)):
            raise InvalidQueryError("since", "give a datetime or unix seconds")
        return self._store.security_events(tenant, since, kind, limit)

    def reputation(self, source: str, tenant: str) -> float:
        with self._database.reader() as conn:
            known = self._store.reputations(conn, tenant, [source])
        return known.get(source, (self._policy.initial_reputation, "ok"))[0]

    def learn_from_outcome(self, report: OutcomeReport) -> None:
        """Sources whose memories led to success gain reputation; to failure, lose it."""
        if not self._policy.enabled or not report.updates or self._policy.outcome_rate == 0:
            return
        with self._database.writer() as conn:
            found = self._store.namespaces(conn, report.tenant, [u.event_id for u in report.updates])
            change: dict[str, float] = {}
            for update in report.updates:
                source = found.get(update.event_id, (None, None, None))[2]
                if source:
                    change[source] = change.get(source, 0.0) + self._policy.outcome_rate * update.credit
            for source, value in change.items():
                # Outcomes can restore a source towards its initial standing and above, but a
                # blacklisted source stays blacklisted until a reviewer says otherwise.
                self._store.adjust_reputation(conn, report.tenant, source, max(-1.0, min(1.0, value)), self._policy.initial_reputation)
