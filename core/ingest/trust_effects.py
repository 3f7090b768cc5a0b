"""The gateway's decisions applied: security log, reputation and the E01 playbook.

A durable after-commit step: the batch's decisions are journaled in the write transaction and
applied in order right after it, so the log, a source's reputation and the quarantine of its
recent writes follow every stored or blocked write exactly once, even across a crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from deltacore.delta.ids import delta_id_for
from deltacore.delta.propagation import POISON
from deltacore.gateway.playbook import (
    DecidedWrite,
    blacklisted_row,
    decision_row,
    must_blacklist,
    poison_detected_row,
    runs_e01,
)
from deltacore.gateway.scoring import BLACKLISTED, SUSPICIOUS
from deltacore.ingest.stages import CommittedBatch, StepOutcome
from deltacore.model import Namespace, TrustAction
from deltacore.trust_policy import TrustPolicy


class TrustLedger(Protocol):
    """What the playbook writes (storage's trust repository)."""

    def adjust_reputation(
        self, conn: Any, tenant: str, source: str, change: float, initial: float, *,
        status: str | None = None, quarantined: int = 0, blocked: int = 0,
    ) -> tuple[float, str]: ...

    def latest_event_ids(self, conn: Any, tenant: str, source: str, limit: int) -> list[str]: ...

    def set_namespace(self, conn: Any, tenant: str, event_ids: Sequence[str], namespace: Namespace) -> list[str]: ...

    def log(self, conn: Any, rows: list[dict[str, Any]]) -> None: ...


class Tainter(Protocol):
    """Exception propagation inside a caller's transaction (``deltacore.delta.propagation``)."""

    def apply(self, conn: Any, delta_id: str, exception: str, reason: str | None = None) -> Any: ...


class TrustPlaybookStep:
    """Durable after-commit step ``trust_playbook``."""

    name = "trust_playbook"

    def __init__(self, policy: TrustPolicy, ledger: TrustLedger, tainter: Tainter) -> None:
        self._policy = policy
        self._ledger = ledger
        self._tainter = tainter

    def payload(self, batch: CommittedBatch) -> dict[str, Any] | None:
        if not self._policy.enabled:
            return None
        writes = [DecidedWrite.of(s.event, s.verdict) for s in batch.decided if s.verdict is not None]
        # A batch whose every write took the fast path has nothing to log or penalise.
        if not any(w.action is not TrustAction.ACCEPT for w in writes) and not self._policy.log_accepted:
            return None
        return {"writes": [w.to_json() for w in writes]}

    def apply(self, conn: Any, payload: dict[str, Any]) -> StepOutcome | None:
        policy, ledger = self._policy, self._ledger
        rows: list[dict[str, Any]] = []
        quarantined: list[str] = []
        for write in (DecidedWrite.from_json(w) for w in payload["writes"]):
            row = decision_row(policy, write)
            if row is not None:
                rows.append(row)
            if write.action is TrustAction.QUARANTINE and write.source:
                ledger.adjust_reputation(
                    conn, write.tenant, write.source, -policy.quarantine_penalty, policy.initial_reputation, quarantined=1
                )
            if runs_e01(write):
                rows.extend(self._poison_detected(conn, write, quarantined))
            elif write.action is TrustAction.BLOCK:
                if write.source:
                    ledger.adjust_reputation(conn, write.tenant, write.source, 0.0, policy.initial_reputation, blocked=1)
                rows.append(poison_detected_row(write, {}))
        ledger.log(conn, rows)
        if not quarantined:
            return None
        return StepOutcome(warnings=(f"{len(quarantined)} earlier events quarantined by the E01 playbook",))

    def _poison_detected(self, conn: Any, write: DecidedWrite, quarantined: list[str]) -> list[dict[str, Any]]:
        policy, ledger = self._policy, self._ledger
        assert write.source is not None
        reputation, _ = ledger.adjust_reputation(
            conn, write.tenant, write.source, -policy.poison_penalty, policy.initial_reputation, status=SUSPICIOUS, blocked=1
        )
        recent = ledger.latest_event_ids(conn, write.tenant, write.source, policy.playbook_quarantine_last)
        moved = ledger.set_namespace(conn, write.tenant, recent, Namespace.QUARANTINE)
        quarantined.extend(moved)
        # Whatever was built on the quarantined events is poisoned too (the poison rule of
        # exception propagation), in this same transaction.
        tainted: list[str] = []
        for event_id in moved:
            report = self._tainter.apply(conn, delta_id_for(event_id), POISON, reason=f"E01 playbook: source {write.source} quarantined")
            if report is not None:
                tainted.extend(d for d in report.marked if d not in tainted)
        rows = [poison_detected_row(write, {"reputation": round(reputation, 4), "quarantined": moved, "tainted_deltas": len(tainted)})]
        if must_blacklist(reputation):
            ledger.adjust_reputation(conn, write.tenant, write.source, 0.0, policy.initial_reputation, status=BLACKLISTED)
            rows.append(blacklisted_row(write, reputation))
        return rows
