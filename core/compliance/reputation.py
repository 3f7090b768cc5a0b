"""Source reputation the erased subject earned: re-derived without them.

The trust gateway learns a writer's reputation from outcomes (``learn_from_outcome``): every
learning update of a memory moves its source by ``outcome_rate · reward · credit``. Two kinds of
that evidence belong to the subject: the updates of the subject's own memories (their writer
earned credit from them, in any episode), and the updates the subject's episodes gave retained
memories (another writer's note was retrieved while answering the subject, and that answer's
outcome moved its writer). Both are read before the events go (``touched``) and, after, each
source's reputation is moved back by what they added (``rederive``): the reputation is what it
would be had the subject's memories and episodes never happened, as the utilities are
(:mod:`deltacore.compliance.utilities`).

Exact unless a clip hid part of a change: the gateway caps one outcome's change per source at
±1 and a reputation at 1.0. A source at the 1.0 ceiling that the subject moved upwards is
counted as approximated. Not re-derived: the penalties of the subject's quarantined or blocked
writes (the security log rows that recorded them name the subject and are erased).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deltacore.compliance.derived import DerivedChange
from deltacore.compliance.journal import hmac_key, value_hmac
from deltacore.storage.erasure import ErasureRepository
from deltacore.storage.trust_store import ReputationRepository
from deltacore.storage.utility_history import UtilityHistory

__all__ = ["ReputationRederivation"]

_CEILING = 1.0
_TINY = 1e-12


class ReputationRederivation:
    """The :class:`~deltacore.compliance.derived.DerivedArtifactStore` of source reputations."""

    artifact = "reputation"

    def __init__(self, outcome_rate: float, initial_reputation: float, erasure: ErasureRepository | None = None) -> None:
        self._rate = outcome_rate
        self._initial = initial_reputation
        self._erasure = erasure or ErasureRepository()
        self._history = UtilityHistory()
        self._reputations = ReputationRepository()

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        """``[tenant, HMAC of the source, change the subject caused]`` per source: journaled,
        so no source name (a source can be the subject's own id)."""
        if not self._rate or not event_ids:
            return []
        influenced = self._history.influenced_updates(conn, event_ids)
        change: dict[tuple[str, str], float] = {}
        for tenant, source, credit in self._history.credited_sources(conn, event_ids, influenced):
            change[(tenant, source)] = change.get((tenant, source), 0.0) + self._rate * credit
        key = hmac_key(conn)
        return [[tenant, value_hmac(key, source), value] for (tenant, source), value in sorted(change.items()) if abs(value) > _TINY]

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> DerivedChange:
        if not touched:
            return DerivedChange(self.artifact)
        key = hmac_key(conn)
        by_tenant: dict[str, dict[str, float]] = {}
        for tenant, digest, value in touched:
            by_tenant.setdefault(tenant, {})[digest] = value
        modified = approximated = 0
        for tenant, changes in sorted(by_tenant.items()):
            for (_tenant, source), _text in list(self._erasure.scan(conn, "dc_source_reputation", tenant)):
                value = changes.get(value_hmac(key, source))
                if value is None:
                    continue  # no row, or erased with the subject
                row = self._reputations.source_row(conn, tenant, source)
                if row is None:
                    continue
                if value > 0 and float(row["reputation"]) >= _CEILING - _TINY:
                    approximated += 1  # the cap hid how far above 1.0 the subject pushed it
                self._reputations.adjust_reputation(conn, tenant, source, -value, self._initial)
                modified += 1
        return DerivedChange(self.artifact, modified=modified, approximated=approximated)
