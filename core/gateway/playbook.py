"""What follows a decision, inside the write transaction: the security log, reputation, and
the seed's E01 playbook for a blocked write.

E01 POISON_DETECTED: 1. block the write; 2. tag the source SUSPICIOUS; 3. quarantine its last
``playbook_quarantine_last`` events for review (and taint what was derived from them: utility
0); 4. reputation −``poison_penalty``; 5. below 0, blacklist the source (every later write is
blocked); 6. emit a security event; 7. tell the writer nothing — the content path (packets, a
blocked write's apparent success) never reveals the defence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from deltacore.delta.propagation import POISON, Propagator
from deltacore.trust_policy import TrustPolicy
from deltacore.gateway.scoring import BLACKLISTED, SUSPICIOUS, Verdict
from deltacore.model import Event, Namespace, TrustAction

EXCERPT_CHARS = 500


@dataclass
class PlaybookResult:
    quarantined: list[str] = field(default_factory=list)
    """Earlier events moved to quarantine by E01."""
    tainted: list[str] = field(default_factory=list)
    """Deltas tainted because they derive from quarantined events."""


def apply_decisions(
    conn: Any, store: Any, policy: TrustPolicy, decided: Sequence[tuple[Event, Verdict]], delta_id_for: Any
) -> PlaybookResult:
    """Log every doubtful decision, learn reputation, and run E01 for each blocked write.

    ``decided`` are the events that reached the transaction (stored or blocked), in order."""
    result = PlaybookResult()
    if not policy.enabled:
        return result
    rows: list[dict[str, Any]] = []
    for event, verdict in decided:
        if verdict.action is not TrustAction.ACCEPT or policy.log_accepted:
            payload: dict[str, Any] = {"signals": verdict.signals}
            if verdict.action is TrustAction.BLOCK:
                # A blocked write is stored nowhere else: keep enough for the reviewer.
                payload["text"] = event.text[:EXCERPT_CHARS]
            rows.append(
                {
                    "tenant": event.tenant,
                    "kind": "TRUST_DECISION",
                    "source": event.source,
                    "event_id": event.id,
                    "score": verdict.score,
                    "action": verdict.action.value,
                    "reasons": list(verdict.reasons),
                    "payload": payload,
                }
            )
        if verdict.action is TrustAction.QUARANTINE and event.source:
            store.adjust_reputation(conn, event.tenant, event.source, -policy.quarantine_penalty, policy.initial_reputation, quarantined=1)
        if verdict.action is TrustAction.BLOCK:
            rows.extend(_poison_detected(conn, store, policy, event, verdict, result, delta_id_for))
    store.log(conn, rows)
    return result


def _poison_detected(
    conn: Any, store: Any, policy: TrustPolicy, event: Event, verdict: Verdict, result: PlaybookResult, delta_id_for: Any
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    payload: dict[str, Any] = {"code": "E01"}
    if event.source and "source is blacklisted" not in verdict.reasons:
        reputation, status = store.adjust_reputation(
            conn, event.tenant, event.source, -policy.poison_penalty, policy.initial_reputation, status=SUSPICIOUS, blocked=1
        )
        recent = store.latest_event_ids(conn, event.tenant, event.source, policy.playbook_quarantine_last)
        moved = store.set_namespace(conn, event.tenant, recent, Namespace.QUARANTINE)
        result.quarantined.extend(moved)
        # Whatever was built on the quarantined events is poisoned too: the poison rule of
        # exception propagation, in this same transaction.
        propagator = Propagator(store.sql)
        tainted: list[str] = []
        for event_id in moved:
            report = propagator.apply(conn, delta_id_for(event_id), POISON, reason=f"E01 playbook: source {event.source} quarantined")
            if report is not None:
                tainted.extend(d for d in report.marked if d not in tainted)
        result.tainted.extend(tainted)
        payload.update({"reputation": round(reputation, 4), "quarantined": moved, "tainted_deltas": len(tainted)})
        if reputation < 0:
            store.adjust_reputation(conn, event.tenant, event.source, 0.0, policy.initial_reputation, status=BLACKLISTED)
            rows.append(
                {"tenant": event.tenant, "kind": "SOURCE_BLACKLISTED", "source": event.source, "payload": {"reputation": round(reputation, 4)}}
            )
    elif event.source:
        store.adjust_reputation(conn, event.tenant, event.source, 0.0, policy.initial_reputation, blocked=1)
    rows.insert(
        0,
        {
            "tenant": event.tenant,
            "kind": "POISON_DETECTED",
            "source": event.source,
            "event_id": event.id,
            "score": verdict.score,
            "action": TrustAction.BLOCK.value,
            "reasons": list(verdict.reasons),
            "payload": payload,
        },
    )
    return rows
