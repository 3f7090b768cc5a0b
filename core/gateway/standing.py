"""A source's standing: trust it has *earned*, not a count it can buy in one sitting.

The read-time defence (``deltacore.retrieval.defence``) lets a memory drive retrieval on its
own only when its source has standing; otherwise it needs an independent corroborator, or
nothing trusted may answer the query. A source has standing when

- it has at least ``newcomer_events`` stored (not quarantined) memories,
- spanning at least ``standing_days`` days of event time (first to latest), and
- its reputation is at least ``standing_reputation`` (quarantined or blocked writes cost it);

or, whatever its history, when its reputation has risen ``standing_earned`` above the initial
one — which only positive outcomes, feedback and released quarantines do
(``deltacore.gateway.quarantine``).

Why not a count alone: an attacker writes ten innocuous lines and then the payload. Why days:
they cost the attacker real patience (a session is a label the caller chooses; a span of days
of accepted writes is not free). What it does not stop: an account with a genuine long history
that turns hostile, or an attacker patient enough to build one — docs/security.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sqlalchemy import Connection

from deltacore.trust_policy import TrustPolicy

DAY_SECONDS = 86_400.0


class StandingReads(Protocol):
    """What a source's standing is read from (``deltacore.storage.trust_store.ReputationRepository``)."""

    def reputations_of(self, conn: Connection, tenant: str, sources: Iterable[str]) -> dict[str, float]: ...

    def stored_count(self, conn: Connection, tenant: str, source: str, cap: int) -> int: ...

    def stored_span(self, conn: Connection, tenant: str, source: str) -> tuple[float | None, float | None]: ...


def newcomer_sources(
    conn: Connection, policy: TrustPolicy, tenant: str, sources: set[str], reads: StandingReads | None = None
) -> set[str]:
    """The sources among ``sources`` without standing in ``tenant``."""
    if not policy.newcomer_events or not sources:
        return set()
    reads = reads if reads is not None else _default_reads()
    reputations = reads.reputations_of(conn, tenant, sources)
    return {
        s for s in sources if not _has_standing(reads, conn, policy, tenant, s, reputations.get(s, policy.initial_reputation))
    }


def _default_reads() -> StandingReads:
    # Standing's reads need only a connection: the repository holds no state of its own.
    from deltacore.storage.trust_store import ReputationRepository

    return ReputationRepository()


def _has_standing(reads: StandingReads, conn: Connection, policy: TrustPolicy, tenant: str, source: str, reputation: float) -> bool:
    if reputation >= policy.initial_reputation + policy.standing_earned and policy.standing_earned > 0:
        return True
    if reputation < policy.standing_reputation:
        return False
    if reads.stored_count(conn, tenant, source, policy.newcomer_events) < policy.newcomer_events:
        return False
    first, latest = reads.stored_span(conn, tenant, source)
    return first is not None and latest is not None and (latest - first) >= policy.standing_days * DAY_SECONDS
