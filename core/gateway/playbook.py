"""What follows a trust decision: the security log, reputation, and the E01 playbook for a
blocked write. Pure decisions: the ingest pipeline applies them after the write commits
(``deltacore.ingest.trust_effects``), from a journal entry written in the write transaction.

E01 POISON_DETECTED: 1. block the write; 2. tag the source SUSPICIOUS; 3. quarantine its last
``playbook_quarantine_last`` events for review (and taint what was derived from them: utility
0); 4. reputation −``poison_penalty``; 5. below 0, blacklist the source (every later write is
blocked); 6. emit a security event; 7. tell the writer nothing — the content path (packets, a
blocked write's apparent success) never reveals the defence.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from deltacore.gateway.principals import same_voice
from deltacore.gateway.scoring import Verdict
from deltacore.model import Event, TrustAction
from deltacore.trust_policy import TrustPolicy

EXCERPT_CHARS = 500
BLACKLIST_REASON = "source is blacklisted"


@dataclass(frozen=True)
class DecidedWrite:
    """One write the gateway judged (stored or blocked), as the journal keeps it (JSON)."""

    tenant: str
    event_id: str
    source: str | None
    score: float
    action: TrustAction
    reasons: tuple[str, ...]
    signals: dict[str, float] = field(default_factory=dict)
    excerpt: str = ""
    """The start of a blocked write's text: it is stored nowhere else, the reviewer needs it."""

    @classmethod
    def of(cls, event: Event, verdict: Verdict) -> DecidedWrite:
        return cls(
            tenant=event.tenant,
            event_id=event.id,
            source=accountable_source(event),
            score=verdict.score,
            action=verdict.action,
            reasons=tuple(verdict.reasons),
            signals=dict(verdict.signals),
            excerpt=event.text[:EXCERPT_CHARS] if verdict.action is TrustAction.BLOCK else "",
        )

    def to_json(self) -> dict[str, Any]:
        # Field by field: dataclasses.asdict deep-copies recursively, and every write of a batch
        # is journalled through here (it was ~5% of a batch ingest's non-embedding time).
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        return {**data, "signals": dict(self.signals), "action": self.action.value, "reasons": list(self.reasons)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DecidedWrite:
        return cls(**{**data, "action": TrustAction(data["action"]), "reasons": tuple(data["reasons"])})


def accountable_source(event: Event) -> str | None:
    """Whose reputation a decision moves: the claimed source, unless the write impersonates it
    (an authenticated principal that is another voice) — then the principal's. Otherwise an
    impersonator's blocked write would set off E01 against the very speaker it impersonates."""
    if event.principal is not None and (event.source is None or not same_voice(event.source, event.principal)):
        return event.principal
    return event.source


def decision_row(policy: TrustPolicy, write: DecidedWrite) -> dict[str, Any] | None:
    """The TRUST_DECISION log row of a write (None for a fast-path write unless logged)."""
    if write.action is TrustAction.ACCEPT and not policy.log_accepted:
        return None
    payload: dict[str, Any] = {"signals": write.signals}
    if write.action is TrustAction.BLOCK:
        payload["text"] = write.excerpt
    return {
        "tenant": write.tenant,
        "kind": "TRUST_DECISION",
        "source": write.source,
        "event_id": write.event_id,
        "score": write.score,
        "action": write.action.value,
        "reasons": list(write.reasons),
        "payload": payload,
    }


def runs_e01(write: DecidedWrite) -> bool:
    """A blocked write of a known, not yet blacklisted source sets off the E01 playbook."""
    return write.action is TrustAction.BLOCK and bool(write.source) and BLACKLIST_REASON not in write.reasons


def must_blacklist(reputation: float) -> bool:
    return reputation < 0


def poison_detected_row(write: DecidedWrite, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "tenant": write.tenant,
        "kind": "POISON_DETECTED",
        "source": write.source,
        "event_id": write.event_id,
        "score": write.score,
        "action": TrustAction.BLOCK.value,
        "reasons": list(write.reasons),
        "payload": {"code": "E01", **payload},
    }


def blacklisted_row(write: DecidedWrite, reputation: float) -> dict[str, Any]:
    return {"tenant": write.tenant, "kind": "SOURCE_BLACKLISTED", "source": write.source, "payload": {"reputation": round(reputation, 4)}}
