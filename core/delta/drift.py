"""Tool-schema drift (E04): a tool called or offered with a schema other than the one its
earlier deltas were learned under.

Every schema a tool is seen with is kept (``dc_tool_schemas``), and the latest one is the
tool's *current* schema (``dc_tool_current``). Schemas are compared by their *interface*
(:func:`~deltacore.delta.migration.interface_signature`: parameter names, types, required,
allowed values), so two renderings of one tool — a framework's offered JSON and its pydantic
``args_schema``, or an edited description — are not a drift. When a call (``ingest``) or an
offer (``observe_tools``) brings a different interface, in one transaction:

1. a ``SCHEMA_DRIFT`` system event is logged;
2. every delta of that tool (same tenant, and only that tool — the propagation rule) learned
   under another schema is **demoted** (utility × :data:`MIGRATED_DEMOTION` when its arguments
   migrate, × :data:`FAILED_DEMOTION` when they do not; the step is kept in its history) and
   flagged ``schema_drift``;
3. its argument pattern is **migrated** (:mod:`deltacore.delta.migration`: renamed, retyped,
   new required parameter with a default); the migrated arguments are stored beside the
   original ones (``dc_delta_migrations``) and ``SCHEMA_MIGRATED`` is logged;
4. a delta whose migration fails is flagged ``migration_failed`` and put on the review queue
   (kind ``SCHEMA_DRIFT``) with the reason;
5. the tenant's change counter is bumped, so no cached result (the HOT tier) built before the
   drift is served again.

Re-running is harmless: a delta already migrated to the current hash is not touched again, so
a crash between an ingest and its drift check only delays the check to the next call or offer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection

from deltacore.delta.migration import interface_signature, migrate_args
from deltacore.delta.repositories import Database, DriftRepository, LearningRepository
from deltacore.delta.utility import decayed_utility
from deltacore.model import DriftReport, ToolDrift

SCHEMA_DRIFT = "schema_drift"
MIGRATION_FAILED = "migration_failed"
REVIEW_KIND = "SCHEMA_DRIFT"
MIGRATED_DEMOTION = 0.8
"""Utility factor of a drifted delta whose arguments migrated: likely still right, not yet re-proven."""
FAILED_DEMOTION = 0.5
"""Utility factor of a drifted delta whose arguments could not be migrated."""


class DriftMonitor:
    def __init__(self, database: Database, drift: DriftRepository, learning: LearningRepository, decay_rate_per_hour: float) -> None:
        self._database = database
        self._drift = drift
        self._learning = learning
        self._decay = decay_rate_per_hour

    def after_ingest(self, event_ids: Iterable[str]) -> list[ToolDrift]:
        """Check the tool schemas of newly stored events, oldest first."""
        ids = list(event_ids)
        if not ids:
            return []
        drifts: list[ToolDrift] = []
        with self._database.reader() as conn:
            seen = list(dict.fromkeys(self._drift.called_schemas(conn, ids)))
            # The common case — every tool called with its current schema — needs no write.
            seen = [key for key in seen if self._drift.current_hash(conn, key[0], key[1]) != key[2]]
        if not seen:
            return []
        with self._database.writer() as conn:
            for tenant, tool, schema_hash in seen:
                schema = self._drift.schema_of(conn, tenant, tool, schema_hash)
                drift = self.check(conn, tenant, tool, schema_hash, schema, source="call")
                if drift is not None:
                    drifts.append(drift)
        return drifts

    def check(
        self, conn: Connection, tenant: str, tool: str, schema_hash: str, schema: dict[str, Any] | None, *, source: str
    ) -> ToolDrift | None:
        """Make ``schema_hash`` the tool's current schema; handle the drift if it changed."""
        now = time.time()
        current = self._drift.current_hash(conn, tenant, tool)
        if current == schema_hash:
            return None
        self._drift.set_current(conn, tenant, tool, schema_hash, now)
        versions = self._drift.schemas_of_tools(conn, tenant, [tool])
        if schema is not None:
            versions[(tool, schema_hash)] = schema
        signature = _signatures(tool, versions)
        new_signature = signature(schema_hash)
        if current is not None and signature(current) == new_signature:
            return None  # the same interface rendered differently (titles, descriptions): no drift
        # The drift rule of propagation (``propagation.DRIFT``): only deltas of this very tool,
        # and only those learned under another interface and not yet migrated to this one.
        rows = [r for r in self._drift.affected_deltas(conn, tenant, tool, schema_hash) if signature(r.tool_schema_hash) != new_signature]
        history = self._drift.migrations_of(conn, [r.delta_id for r in rows])
        rows = [r for r in rows if not any(signature(m["to_hash"]) == new_signature for m in history.get(r.delta_id, ()))]
        if current is None and not rows:
            return None  # the first schema this tool is seen with
        migrated: list[str] = []
        failed: list[str] = []
        review_items: list[int] = []
        renames: dict[str, str] = {}
        for row in rows:
            # A delta already migrated to the interface being replaced starts from those
            # arguments: migrations chain (v1 → v2 → v3) instead of guessing from v1 again.
            from_hash, args = row.tool_schema_hash, row.tool_args
            for step in reversed(history.get(row.delta_id, ())):
                if current is not None and step["status"] == "migrated" and signature(step["to_hash"]) == signature(current):
                    from_hash, args = step["to_hash"], step["args"]
                    break
            result = migrate_args(args, versions.get((tool, from_hash)), schema or {})
            flags = [f for f in (row.conflict_flags or ()) if f != MIGRATION_FAILED]
            if SCHEMA_DRIFT not in flags:
                flags.append(SCHEMA_DRIFT)
            if not result.ok:
                flags.append(MIGRATION_FAILED)
            predicted = decayed_utility(row.utility, row.utility_ts, now, self._decay)
            factor = MIGRATED_DEMOTION if result.ok else FAILED_DEMOTION
            self._learning.set_utility(
                conn, row.delta_id, tenant, predicted=predicted, new=round(predicted * factor, 12), source="drift", now=now, flags=flags
            )
            self._drift.record_migration(
                conn,
                {
                    "delta_id": row.delta_id,
                    "to_hash": schema_hash,
                    "from_hash": from_hash,
                    "tenant": tenant,
                    "tool_name": tool,
                    "status": "migrated" if result.ok else "failed",
                    "args": result.args,
                    "mapping": result.mapping(),
                    "reason": result.reason,
                    "ts": now,
                },
            )
            if result.ok:
                migrated.append(row.delta_id)
                renames.update(result.renamed)
                continue
            failed.append(row.delta_id)
            if self._learning.open_item(conn, REVIEW_KIND, row.delta_id) is None:
                review_items.append(
                    self._learning.enqueue(
                        conn,
                        tenant,
                        REVIEW_KIND,
                        f"{tool} changed its schema; cannot migrate the call's arguments: {result.reason}",
                        {
                            "tool": tool,
                            "from_hash": from_hash,
                            "to_hash": schema_hash,
                            "args": args,
                            "reason": result.reason,
                        },
                        delta_id=row.delta_id,
                        event_id=row.event_id,
                    )
                )
        old_hashes = sorted({row.tool_schema_hash for row in rows} | ({current} if current else set()))
        self._database.log_system_event(
            conn,
            tenant,
            "SCHEMA_DRIFT",
            {
                "code": "E04",
                "tool": tool,
                "old_hashes": old_hashes,
                "new_hash": schema_hash,
                "source": source,
                "affected": len(rows),
                "migrated": len(migrated),
                "failed": len(failed),
            },
        )
        if migrated:
            self._database.log_system_event(
                conn, tenant, "SCHEMA_MIGRATED", {"tool": tool, "new_hash": schema_hash, "deltas": len(migrated), "renamed": renames}
            )
        # Cached results (the HOT tier's, keyed on this counter) must not outlive the drift.
        self._database.bump_version(conn, tenant)
        return ToolDrift(
            tenant=tenant,
            tool=tool,
            old_hashes=old_hashes,
            new_hash=schema_hash,
            affected=[row.delta_id for row in rows],
            migrated=migrated,
            failed=failed,
            mapping=renames,
            review_items=review_items,
        )

    def observe(
        self, specs: list[tuple[str, dict[str, Any], str]], tenant: str, source: str | None, rejected: list[Any]
    ) -> DriftReport:
        """Register offered tool schemas and handle every drift they reveal, in one transaction."""
        now = time.time()
        drifts: list[ToolDrift] = []
        with self._database.writer() as conn:
            rows = [
                {"tenant": tenant, "tool_name": name, "schema_hash": digest, "schema": schema, "first_seen": now, "last_seen": now}
                for name, schema, digest in specs
            ]
            fresh = self._drift.record_schemas(conn, rows)
            for name, schema, digest in specs:
                drift = self.check(conn, tenant, name, digest, schema, source=source or "offer")
                if drift is not None:
                    drifts.append(drift)
        return DriftReport(
            tenant=tenant,
            tools=[name for name, _, _ in specs],
            new_versions=sorted(fresh),
            drifts=drifts,
            rejected=rejected,
        )


def _signatures(tool: str, versions: dict[tuple[str, str], dict[str, Any]]) -> Any:
    """``hash -> interface signature`` (a hash with no stored schema stands for itself)."""
    cache: dict[str, str] = {}

    def signature(schema_hash: str) -> str:
        if schema_hash not in cache:
            schema = versions.get((tool, schema_hash))
            cache[schema_hash] = (interface_signature(schema) if schema is not None else None) or f"hash:{schema_hash}"
        return cache[schema_hash]

    return signature
