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

from typing import Any

from sqlalchemy import func, select

from deltacore.trust_policy import TrustPolicy
from deltacore.model import Namespace
from deltacore.storage.tables import events, source_reputation

DAY_SECONDS = 86_400.0


def newcomer_sources(conn: Any, policy: TrustPolicy, tenant: str, sources: set[str]) -> set[str]:
    """The sources among ``sources`` without standing in ``tenant``."""
    if not policy.newcomer_events or not sources:
        return set()
    reputations = {
        row.source: float(row.reputation)
        for row in conn.execute(
            select(source_reputation.c.source, source_reputation.c.reputation).where(
                source_reputation.c.tenant == tenant, source_reputation.c.source.in_(sorted(sources))
            )
        )
    }
    return {s for s in sources if not _has_standing(conn, policy, tenant, s, reputations.get(s, policy.initial_reputation))}


def _has_standing(conn: Any, policy: TrustPolicy, tenant: str, source: str, reputation: float) -> bool:
    if reputation >= policy.initial_reputation + policy.standing_earned and policy.standing_earned > 0:
        return True
    if reputation < policy.standing_reputation:
        return False
    stored = (events.c.tenant == tenant, events.c.source == source, events.c.namespace != Namespace.QUARANTINE.value)
    # Counting stops at the threshold: a source with standing may have millions of memories.
    capped = select(events.c.id).where(*stored).limit(policy.newcomer_events).subquery()
    if int(conn.execute(select(func.count()).select_from(capped)).scalar_one()) < policy.newcomer_events:
        return False
    first, latest = conn.execute(select(func.min(events.c.ts), func.max(events.c.ts)).where(*stored)).one()
    return first is not None and (float(latest) - float(first)) >= policy.standing_days * DAY_SECONDS
