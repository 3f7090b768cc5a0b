"""Utility histories for erasure: which retained deltas learned from an erased subject's
episodes, their update history, and rewriting it.

Storage knows no policy: the learning rule a history is replayed with, and whether noise is
added, are ``deltacore.compliance.utilities``'; this module reads and writes rows by key, in
the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, delete, select, update

from deltacore.storage.id_lists import chunks
from deltacore.storage.learning_store import LEARNING_SOURCES
from deltacore.storage.tables import deltas, events, utility_updates

__all__ = ["UtilityHistory"]


class UtilityHistory:
    """Reads and rewrites ``dc_utility_updates`` and the utility columns of ``dc_deltas``."""

    def influenced_updates(self, conn: Connection, erased_event_ids: Sequence[str]) -> list[int]:
        """Ids of the utility updates that an erased event's episode gave to a *retained* delta
        (an outcome, a retrieval credit or feedback recorded under that episode)."""
        episodes: set[tuple[str, str]] = set()
        for chunk in chunks(list(erased_event_ids)):
            statement = select(events.c.tenant, events.c.episode_id).where(events.c.id.in_(chunk), events.c.episode_id.is_not(None))
            episodes.update((row.tenant, row.episode_id) for row in conn.execute(statement))
        erased = set(erased_event_ids)
        found: list[int] = []
        by_tenant: dict[str, list[str]] = {}
        for tenant, episode in episodes:
            by_tenant.setdefault(tenant, []).append(episode)
        for tenant, names in sorted(by_tenant.items()):
            for chunk in chunks(sorted(names)):
                statement = (
                    select(utility_updates.c.id, deltas.c.event_id)
                    .join(deltas, deltas.c.id == utility_updates.c.delta_id)
                    .where(utility_updates.c.tenant == tenant, utility_updates.c.episode_id.in_(chunk))
                )
                found.extend(row.id for row in conn.execute(statement) if row.event_id not in erased)
        return sorted(found)

    def credited_sources(
        self, conn: Connection, erased_event_ids: Sequence[str], influenced: Sequence[int]
    ) -> list[tuple[str, str, float]]:
        """(tenant, writer of the credited memory, ``reward * credit``) of each learning update
        the erased events took part in: every update of their own deltas, and ``influenced``
        (what their episodes gave retained deltas). What the gateway's ``learn_from_outcome``
        turned into source reputation."""
        columns = (utility_updates.c.tenant, events.c.source, utility_updates.c.reward, utility_updates.c.credit)
        joined = utility_updates.join(deltas, deltas.c.id == utility_updates.c.delta_id).join(events, events.c.id == deltas.c.event_id)
        learning = (utility_updates.c.source.in_(LEARNING_SOURCES), events.c.source.is_not(None))
        found: list[tuple[str, str, float]] = []
        for chunk in chunks(list(erased_event_ids)):
            statement = select(*columns).select_from(joined).where(deltas.c.event_id.in_(chunk), *learning)
            found.extend((row.tenant, row.source, row.reward * row.credit) for row in conn.execute(statement))
        for chunk in chunks(list(influenced)):
            statement = select(*columns).select_from(joined).where(utility_updates.c.id.in_(chunk), *learning)
            found.extend((row.tenant, row.source, row.reward * row.credit) for row in conn.execute(statement))
        return found

    def deltas_of_updates(self, conn: Connection, update_ids: Sequence[int]) -> dict[int, str]:
        """update id → delta id, for the updates that still exist."""
        found: dict[int, str] = {}
        for chunk in chunks(list(update_ids)):
            statement = select(utility_updates.c.id, utility_updates.c.delta_id).where(utility_updates.c.id.in_(chunk))
            found.update({row.id: row.delta_id for row in conn.execute(statement)})
        return found

    def history(self, conn: Connection, delta_id: str) -> list[dict[str, Any]]:
        """Every update of the delta, oldest first."""
        statement = select(utility_updates).where(utility_updates.c.delta_id == delta_id).order_by(utility_updates.c.id)
        return [dict(row._mapping) for row in conn.execute(statement)]

    def state(self, conn: Connection, delta_id: str) -> dict[str, Any] | None:
        """The delta's ``utility``, ``utility_ts`` and ``credit``."""
        row = conn.execute(
            select(deltas.c.utility, deltas.c.utility_ts, deltas.c.credit).where(deltas.c.id == delta_id)
        ).first()
        return None if row is None else dict(row._mapping)

    def rewrite(
        self,
        conn: Connection,
        delta_id: str,
        *,
        removed: Sequence[int],
        rows: Mapping[int, Mapping[str, Any]],
        utility: float,
        utility_ts: float,
        credit: float,
    ) -> None:
        """Delete the ``removed`` updates, set new values on ``rows`` (update id → columns) and
        the delta's utility, its time and its credit total."""
        for chunk in chunks(list(removed)):
            conn.execute(delete(utility_updates).where(utility_updates.c.id.in_(chunk)))
        for update_id, values in rows.items():
            conn.execute(update(utility_updates).where(utility_updates.c.id == update_id).values(**values))
        conn.execute(update(deltas).where(deltas.c.id == delta_id).values(utility=utility, utility_ts=utility_ts, credit=credit))
