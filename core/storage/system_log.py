"""The store's logs: tool schemas seen, memories handed to agents (retrievals) and system events
(``CAUSAL_LOOP``, ``SCHEMA_DRIFT``, …)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, insert, select

from deltacore.storage.database import Database
from deltacore.storage.event_writes import existing_event_ids
from deltacore.storage.tables import retrievals, system_events, tool_schemas


class SystemLog:
    """Tool-schema versions, the retrieval log and system events."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def record_tool_schemas(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        """Remember each (tool, schema hash) seen, with the schema itself; refresh last_seen."""
        if not rows:
            return
        statement = self.database.dialect.upsert(
            tool_schemas, ["tenant", "tool_name", "schema_hash"], lambda excluded: {"last_seen": excluded.last_seen}
        )
        conn.execute(statement, rows)

    def tool_schemas(self, tenant: str, tool_name: str | None = None) -> list[dict[str, Any]]:
        statement = select(tool_schemas).where(tool_schemas.c.tenant == tenant).order_by(
            tool_schemas.c.tool_name, tool_schemas.c.first_seen
        )
        if tool_name is not None:
            statement = statement.where(tool_schemas.c.tool_name == tool_name)
        with self.database.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def record_retrievals(self, conn: Connection, rows: list[dict[str, Any]]) -> int:
        """Log which stored events were handed to an agent (unknown ids are skipped)."""
        present = existing_event_ids(conn, [row["event_id"] for row in rows])
        rows = [row for row in rows if row["event_id"] in present]
        if rows:
            conn.execute(insert(retrievals), rows)
        return len(rows)

    def retrievals(self, tenant: str, episode_id: str | None = None) -> list[dict[str, Any]]:
        statement = select(retrievals).where(retrievals.c.tenant == tenant).order_by(retrievals.c.id)
        if episode_id is not None:
            statement = statement.where(retrievals.c.episode_id == episode_id)
        with self.database.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def log_system_event(self, conn: Connection, tenant: str, kind: str, payload: dict[str, Any]) -> None:
        conn.execute(insert(system_events).values(ts=time.time(), tenant=tenant, kind=kind, payload=payload))

    def bump_version(self, conn: Connection, tenant: str) -> None:
        """Mark a tenant changed without adding rows: every cache keyed on its signature is stale."""
        self.database.bump_version(conn, tenant)

    def system_events(self, kind: str | None = None, tenant: str | None = None) -> list[dict[str, Any]]:
        statement = select(system_events).order_by(system_events.c.id)
        if kind is not None:
            statement = statement.where(system_events.c.kind == kind)
        if tenant is not None:
            statement = statement.where(system_events.c.tenant == tenant)
        with self.database.reader() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]
