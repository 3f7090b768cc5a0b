"""The trust gateway's vocabulary and reports: channel, namespace, route, decision, security log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Channel(StrEnum):
    """Where a write really came from, set by the caller or adapter, never by the content."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    DOCUMENT = "document"
    PEER = "peer"
    SYSTEM = "system"


class Namespace(StrEnum):
    """Trust namespace of a stored item (Layer 0 assigns it)."""

    TRUSTED = "trusted"
    UNVERIFIED = "unverified"
    QUARANTINE = "quarantine"
    SYNTHETIC = "synthetic"


class TrustAction(StrEnum):
    """What the trust gateway did with a write: the route its trust score took."""

    ACCEPT = "accept"
    """Fast path (score >= ``TrustPolicy.fast_path``): stored in its channel's namespace."""
    TAG = "tag"
    """Slow path (score >= ``TrustPolicy.slow_path``): stored UNVERIFIED, with a trust tag."""
    QUARANTINE = "quarantine"
    """Stored in QUARANTINE: never retrieved without an explicit override, waiting for review."""
    BLOCK = "block"
    """Not stored (E01 playbook: the source is penalised and its recent writes quarantined)."""


class TrustDecision(BaseModel):
    """What the trust gateway decided about one event of a batch (for the operator only)."""

    model_config = ConfigDict(frozen=True)

    index: int
    """Position of the event in the batch."""
    event_id: str
    source: str | None = None
    score: float
    """Trust score in [0, 1]."""
    action: TrustAction
    namespace: Namespace | None = None
    """Where it was stored (None when blocked)."""
    reasons: tuple[str, ...] = ()
    """Why the score is below 1, e.g. ``("instruction aimed at the agent",)``."""
    signals: dict[str, float] = Field(default_factory=dict)
    """Each signal's value in [0, 1] (1 = no doubt)."""


class SecurityEvent(BaseModel):
    """One entry of the security-event log (trust decisions, E01, honeypots, reviews)."""

    model_config = ConfigDict(frozen=True)

    id: int
    ts: datetime
    tenant: str
    kind: str
    """``TRUST_DECISION``, ``POISON_DETECTED`` (E01), ``SOURCE_BLACKLISTED``,
    ``HONEYPOT_TRIGGERED``, ``QUARANTINE_REVIEW``."""
    source: str | None = None
    event_id: str | None = None
    score: float | None = None
    action: str | None = None
    reasons: tuple[str, ...] = ()
    payload: dict[str, Any] = Field(default_factory=dict)


class QuarantineReview(BaseModel):
    """What :meth:`DeltaCore.quarantine_review` did."""

    model_config = ConfigDict(frozen=True)

    verdict: str
    event_ids: list[str]
    """Quarantined events the verdict was applied to."""
    not_quarantined: list[str] = Field(default_factory=list)
    """Ids given that were not (or no longer) in quarantine: left unchanged."""
    namespace: Namespace | None = None
    """Where released events now are; None when they were deleted or stay quarantined."""
