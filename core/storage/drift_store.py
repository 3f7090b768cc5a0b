"""The drift repository: each tool's current schema, the deltas learned under an older one, and
their argument migrations. Everything runs in the caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, exists, select

from deltacore.storage.database import Database
from deltacore.storage.tables import delta_migrations, deltas, events, tool_current, tool_schemas


class DriftRepository:
    """Tool-schema drift's statements; every method runs in the caller's transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def called_schemas(self, conn: Connection, event_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """(tenant, tool, schema hash) of the given tool calls that carry a schema, in time order."""
        ids = list(event_ids)
        found: list[tuple[str, str, str]] = []
        for start in range(0, len(ids), 500):
            found.extend(
                tuple(row)
                for row in conn.execute(
                    select(events.c.tenant, events.c.tool_name, events.c.tool_schema_hash)
                    .where(events.c.id.in_(ids[start : start + 500]), events.c.tool_schema_hash.is_not(None))
                    .order_by(events.c.ts, events.c.seq)
                )
            )
        return found

    def current_hash(self, conn: Connection, tenant: str, tool: str) -> str | None:
        return conn.execute(
            select(tool_current.c.schema_hash).where(tool_current.c.tenant == tenant, tool_current.c.tool_name == tool)
        ).scalar_one_or_none()

    def current_hashes(self, conn: Connection, tenant: str, tools: Sequence[str]) -> dict[str, str]:
        if not tools:
            return {}
        statement = select(tool_current.c.tool_name, tool_current.c.schema_hash).where(
            tool_current.c.tenant == tenant, tool_current.c.tool_name.in_(list(set(tools)))
        )
        return dict(conn.execute(statement).all())

    def set_current(self, conn: Connection, tenant: str, tool: str, schema_hash: str, now: float) -> None:
        statement = self.database.dialect.insert(tool_current).values(tenant=tenant, tool_name=tool, schema_hash=schema_hash, since=now)
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["tenant", "tool_name"], set_={"schema_hash": schema_hash, "since": now}
            )
        )

    def record_schemas(self, conn: Connection, rows: list[dict[str, Any]]) -> set[str]:
        """Upsert (tenant, tool, hash, schema) rows; returns the tools whose hash was new."""
        rows = list({(r["tenant"], r["tool_name"], r["schema_hash"]): r for r in rows}.values())
        if not rows:
            return set()
        fresh: set[str] = set()
        for row in rows:
            known = conn.execute(
                select(tool_schemas.c.schema_hash).where(
                    tool_schemas.c.tenant == row["tenant"],
                    tool_schemas.c.tool_name == row["tool_name"],
                    tool_schemas.c.schema_hash == row["schema_hash"],
                )
            ).first()
            if known is None:
                fresh.add(row["tool_name"])
        statement = self.database.dialect.insert(tool_schemas)
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["tenant", "tool_name", "schema_hash"], set_={"last_seen": statement.excluded.last_seen}
            ),
            rows,
        )
        return fresh

    def schema_of(self, conn: Connection, tenant: str, tool: str, schema_hash: str) -> dict[str, Any] | None:
        return conn.execute(
            select(tool_schemas.c.schema).where(
                tool_schemas.c.tenant == tenant, tool_schemas.c.tool_name == tool, tool_schemas.c.schema_hash == schema_hash
            )
        ).scalar_one_or_none()

    def affected_deltas(self, conn: Connection, tenant: str, tool: str, new_hash: str) -> list[Any]:
        """Deltas of ``tool`` learned under another schema and not yet migrated to ``new_hash``."""
        already = exists(
            select(delta_migrations.c.delta_id).where(
                delta_migrations.c.delta_id == deltas.c.id, delta_migrations.c.to_hash == new_hash
            )
        )
        statement = (
            select(
                deltas.c.id.label("delta_id"),
                deltas.c.event_id,
                deltas.c.tool_schema_hash,
                deltas.c.utility,
                deltas.c.utility_ts,
                deltas.c.credit,
                deltas.c.conflict_flags,
                deltas.c.episode_id,
                events.c.tool_args,
            )
            .join(events, events.c.id == deltas.c.event_id)
            .where(
                deltas.c.tenant == tenant,
                deltas.c.tool_name == tool,
                deltas.c.tool_schema_hash.is_not(None),
                deltas.c.tool_schema_hash != new_hash,
                ~already,
            )
            .order_by(deltas.c.ts, deltas.c.id)
        )
        return list(conn.execute(statement))

    def record_migration(self, conn: Connection, row: dict[str, Any]) -> None:
        statement = self.database.dialect.insert(delta_migrations).values(**row)
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["delta_id", "to_hash"],
                set_={k: row[k] for k in ("from_hash", "status", "args", "mapping", "reason", "ts")},
            )
        )

    def migrations_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Every migration of each delta, oldest first."""
        found: dict[str, list[dict[str, Any]]] = {}
        ids = list(dict.fromkeys(delta_ids))
        for start in range(0, len(ids), 500):
            statement = (
                select(delta_migrations)
                .where(delta_migrations.c.delta_id.in_(ids[start : start + 500]))
                .order_by(delta_migrations.c.ts)
            )
            for row in conn.execute(statement):
                found.setdefault(row.delta_id, []).append(dict(row._mapping))
        return found

    def schemas_of_tools(self, conn: Connection, tenant: str, tools: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]:
        """``(tool, hash) -> schema`` for every version of the given tools."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        names = sorted(set(tools))
        for start in range(0, len(names), 500):
            statement = select(tool_schemas.c.tool_name, tool_schemas.c.schema_hash, tool_schemas.c.schema).where(
                tool_schemas.c.tenant == tenant, tool_schemas.c.tool_name.in_(names[start : start + 500])
            )
            for tool, schema_hash, schema in conn.execute(statement):
                found[(tool, schema_hash)] = schema
        return found
