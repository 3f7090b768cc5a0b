"""The SQL side of ``monitor()`` and of the governor's quotas: counts, bytes and 24-hour tallies
read from the source of truth, so every process on a store reports the same figures.
Reads only; what the figures mean for a budget is the governor's business."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deltacore.model import Namespace
from deltacore.storage.database import Database
from deltacore.storage.tables import (
    after_commit_journal,
    conflicts,
    deltas,
    events,
    outbox,
    review_queue,
    security_events,
    store_meta,
    system_events,
    tenants,
    utility_updates,
)
from sqlalchemy import Connection, LargeBinary, and_, cast, func, or_, select, text

DAY = 86_400.0
POISON_ACTIONS = ("quarantine", "block")
FORGET_KIND = "FORGET"
"""The system event a finished forget request leaves (``deltacore.compliance.journal``)."""
FORGET_STEP = "forget"
"""The after-commit journal step of a forget request not finished yet."""
RECENT_ERASURES = 20


class EconomyReads:
    """Counts and sizes of a store or one tenant."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def tenants(self, conn: Connection) -> list[str]:
        """Every tenant that was ever written to (its counter row outlives its events)."""
        return list(
            conn.execute(select(tenants.c.tenant).order_by(tenants.c.tenant)).scalars()
        )

    def _bytes(self, column: Any) -> Any:
        # SQLite's length() of TEXT counts characters; of a BLOB, bytes.
        if self.database.dialect.is_sqlite:
            return func.coalesce(func.length(cast(column, LargeBinary)), 0)
        return func.coalesce(func.octet_length(column), 0)

    def _write_totals(self, now: float) -> list[Any]:
        """The columns both the quota and ``monitor()`` sum over events: bytes of the memories
        (text and vector), tokens written in the last 24 h, tokens written ever."""
        return [
            func.coalesce(
                func.sum(self._bytes(events.c.text) + self._bytes(events.c.embedding)), 0
            ),
            func.coalesce(
                func.sum(events.c.token_count).filter(events.c.created_at >= now - DAY), 0
            ),
            func.coalesce(func.sum(events.c.token_count), 0),
        ]

    def usage(
        self, conn: Connection, tenant: str, now: float | None = None
    ) -> dict[str, int]:
        """What a tenant's quota counts: memories, their bytes, tokens written in 24 h."""
        now = time.time() if now is None else now
        row = conn.execute(
            select(func.count(), *self._write_totals(now)).where(events.c.tenant == tenant)
        ).one()
        dimension = conn.execute(
            select(store_meta.c.value).where(store_meta.c.key == "embedding_dimension")
        ).scalar()
        return {
            "memories": int(row[0]),
            "bytes": int(row[1]),
            "tokens_24h": int(row[2]),
            "tokens_total": int(row[3]),
            "vector_bytes": 4 * int(dimension or 0),
        }

    def economy(
        self, conn: Connection, tenant: str | None, now: float | None = None
    ) -> dict[str, Any]:
        """Every SQL figure of ``MemoryEconomy`` for a tenant (None = the whole store)."""
        now = time.time() if now is None else now

        def where(table: Any) -> Any:
            return table.c.tenant == tenant if tenant is not None else True

        namespaces = dict(
            conn.execute(
                select(events.c.namespace, func.count())
                .where(where(events))
                .group_by(events.c.namespace)
            ).all()
        )
        totals = conn.execute(select(*self._write_totals(now)).where(where(events))).one()

        def count(table: Any, *conditions: Any) -> int:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(table)
                    .where(where(table), *conditions)
                ).scalar_one()
            )

        poison = count(
            security_events,
            security_events.c.ts >= now - DAY,
            or_(
                and_(
                    security_events.c.kind == "TRUST_DECISION",
                    security_events.c.action.in_(POISON_ACTIONS),
                ),
                security_events.c.kind == "HONEYPOT_TRIGGERED",
            ),
        )
        outcomes = self.episode_rewards(conn, tenant, now - 7 * DAY)
        return {
            "memories": sum(namespaces.values()),
            "memories_by_namespace": {str(k): int(v) for k, v in namespaces.items()},
            "memory_bytes": int(totals[0]),
            "tokens_ingested_24h": int(totals[1]),
            "tokens_ingested_total": int(totals[2]),
            "deltas": count(deltas),
            "vectors_pending": count(outbox),
            "poisoning_attempts_24h": poison,
            "schema_drifts_24h": count(
                system_events,
                system_events.c.kind == "SCHEMA_DRIFT",
                system_events.c.ts >= now - DAY,
            ),
            "level_changes_24h": count(
                system_events,
                system_events.c.kind == "DEGRADATION_LEVEL",
                system_events.c.ts >= now - DAY,
            ),
            "open_conflicts": count(conflicts, conflicts.c.resolution == "pending"),
            "open_reviews": count(review_queue, review_queue.c.resolved_at.is_(None)),
            "quarantined": int(namespaces.get(Namespace.QUARANTINE.value, 0)),
            "episode_rewards": outcomes,
            **self.erasures(conn, tenant, now),
        }

    def erasures(
        self,
        conn: Connection,
        tenant: str | None,
        now: float,
        recent: int = RECENT_ERASURES,
    ) -> dict[str, Any]:
        """Forget requests as the store records them: finished ones from their ``FORGET`` system
        event, unfinished ones from the forget journal (``dc_after_commit``). Both hold ids,
        modes, counts and timestamps only, never the subject."""
        finished = select(system_events.c.payload).where(
            system_events.c.kind == FORGET_KIND
        )
        journal = select(after_commit_journal.c.payload).where(
            after_commit_journal.c.step == FORGET_STEP
        )
        if tenant is not None:
            finished = finished.where(system_events.c.tenant == tenant)
            journal = journal.where(after_commit_journal.c.tenant == tenant)
        done = [
            dict(p)
            for (p,) in conn.execute(finished.order_by(system_events.c.id.desc()))
        ]
        open_ = [
            dict(p)
            for (p,) in conn.execute(journal.order_by(after_commit_journal.c.id.desc()))
        ]
        completed = [p for p in done if p.get("state") == "completed"]
        pending = [p for p in open_ if p.get("phase") == "selected"]
        records = [
            _erasure_record(p, "pending" if p.get("phase") == "selected" else "running")
            for p in open_
        ] + [_erasure_record(p, str(p.get("state", ""))) for p in done]
        last = max(
            (float(p["completed_at"]) for p in completed if p.get("completed_at")),
            default=None,
        )
        return {
            "erasures_24h": sum(
                1 for p in completed if float(p.get("completed_at") or 0) >= now - DAY
            ),
            "erasures_total": len(completed),
            "erasures_nothing_found": sum(
                1 for p in done if p.get("state") == "nothing_found"
            ),
            "erasures_pending": len(pending),
            "erasures_running": len(open_) - len(pending),
            "last_erasure_at": last,
            "recent_erasures": records[:recent],
        }

    def episode_rewards(
        self, conn: Connection, tenant: str | None, since: float
    ) -> list[float]:
        """One reward per episode with a recorded outcome since ``since``, oldest episode first
        (the reward is the same on every delta an outcome updated)."""
        statement = (
            select(
                utility_updates.c.episode_id,
                func.avg(utility_updates.c.reward),
                func.min(utility_updates.c.ts),
            )
            .where(utility_updates.c.source == "outcome", utility_updates.c.ts >= since)
            .group_by(utility_updates.c.tenant, utility_updates.c.episode_id)
            .order_by(func.min(utility_updates.c.ts))
        )
        if tenant is not None:
            statement = statement.where(utility_updates.c.tenant == tenant)
        return [float(row[1]) for row in conn.execute(statement)]

    def postgres_sizes(self, conn: Connection) -> tuple[int, dict[str, int]]:
        """``pg_database_size`` and each ``dc_*`` table's size with its indexes and TOAST."""
        total = int(
            conn.execute(
                text("SELECT pg_database_size(current_database())")
            ).scalar_one()
        )
        rows = conn.execute(
            text(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relkind = 'r' AND c.relname LIKE 'dc\\_%' AND n.nspname = current_schema()"
            )
        ).all()
        return total, {str(name): int(size) for name, size in rows}


def _erasure_record(payload: dict[str, Any], state: str) -> dict[str, Any]:
    return {
        "request_id": payload.get("request_id", ""),
        "tenant": payload.get("tenant", ""),
        "mode": payload.get("mode", ""),
        "state": state,
        "phase": payload.get("phase", ""),
        "counts": {str(k): int(v) for k, v in (payload.get("counts") or {}).items()},
        "audit_hash": payload.get("audit_hash", ""),
        "created_at": payload.get("created_at"),
        "completed_at": payload.get("completed_at"),
    }


def folder_sizes(
    folder: Path,
    sqlite_names: Sequence[str] = (
        "deltacore.db",
        "deltacore.db-wal",
        "deltacore.db-shm",
    ),
) -> dict[str, int]:
    """Bytes of an embedded store's files: the SQLite database (with WAL), embedded Chroma, the rest."""
    parts = {"sqlite": 0, "chroma": 0, "other": 0}
    if not folder.is_dir():
        return parts
    for path in folder.rglob("*"):
        try:
            if not path.is_file():
                continue
            size = path.stat().st_size
        except (
            OSError
        ):  # removed while we walked (a WAL checkpoint, a Chroma compaction)
            continue
        relative = path.relative_to(folder)
        if relative.parts[0] == "chroma":
            parts["chroma"] += size
        elif relative.name in sqlite_names:
            parts["sqlite"] += size
        else:
            parts["other"] += size
    return parts
