"""LangGraph checkpoints in the store's own database (``dc_checkpoints``, ``dc_checkpoint_writes``).

Storage only: rows in, rows out. The serialised checkpoint, its metadata and each pending write
are opaque ``(type, bytes)`` pairs made by LangGraph's serializer in the adapter
(``deltacore.adapters.langchain.checkpoint``); this module never looks inside them. Every row
carries the tenant, so one database holds the checkpoints of many tenants apart.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import JSON, Column, Float, Index, Integer, LargeBinary, String, Table, Text, delete, select

from deltacore.storage.database import Database
from deltacore.storage.tables import metadata

_KEY = String(256)

checkpoints = Table(
    "dc_checkpoints",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("thread_id", _KEY, primary_key=True),
    Column("checkpoint_ns", _KEY, primary_key=True, comment="'' for the root graph"),
    Column("checkpoint_id", _KEY, primary_key=True, comment="LangGraph's ids sort in time order"),
    Column("parent_id", _KEY),
    Column("type", String(64), nullable=False),
    Column("checkpoint", LargeBinary, nullable=False),
    Column("metadata_type", String(64), nullable=False),
    Column("metadata", LargeBinary, nullable=False),
    Column("metadata_json", JSON, comment="the metadata as JSON, for list(filter=…) without unpickling"),
    Column("created_at", Float, nullable=False),
    comment="LangGraph checkpoints (BaseCheckpointSaver): one row per checkpoint, values included",
)

checkpoint_writes = Table(
    "dc_checkpoint_writes",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("thread_id", _KEY, primary_key=True),
    Column("checkpoint_ns", _KEY, primary_key=True),
    Column("checkpoint_id", _KEY, primary_key=True),
    Column("task_id", _KEY, primary_key=True),
    Column("idx", Integer, primary_key=True, comment="the write's position, negative for special channels"),
    Column("channel", Text, nullable=False),
    Column("type", String(64), nullable=False),
    Column("value", LargeBinary, nullable=False),
    Column("task_path", Text, nullable=False, server_default=""),
    comment="pending writes of a checkpoint (put_writes)",
)
Index("ix_dc_checkpoints_thread", checkpoints.c.tenant, checkpoints.c.thread_id, checkpoints.c.checkpoint_ns, checkpoints.c.checkpoint_id)


def create_checkpoint_tables(conn: Any) -> None:
    checkpoints.create(conn, checkfirst=True)
    checkpoint_writes.create(conn, checkfirst=True)


class CheckpointRepository:
    """Reads and writes LangGraph checkpoints; every call is one short transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def put_checkpoint(self, row: dict[str, Any]) -> None:
        """Store one checkpoint (a repeated id replaces the stored one, as LangGraph's savers do)."""
        row = {**row, "created_at": time.time()}
        keys = ["tenant", "thread_id", "checkpoint_ns", "checkpoint_id"]
        with self.database.writer() as conn:
            statement = self.database.dialect.upsert(
                checkpoints, keys, {name: value for name, value in row.items() if name not in keys}, values=row
            )
            conn.execute(statement)

    def put_writes(self, rows: list[dict[str, Any]]) -> None:
        """Store pending writes: a regular write (idx ≥ 0) already stored is kept, a special one
        (error, interrupt…: idx < 0) replaces the stored one."""
        if not rows:
            return
        keys = ["tenant", "thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"]
        with self.database.writer() as conn:
            for row in rows:
                if row["idx"] >= 0:
                    conn.execute(self.database.dialect.insert_or_ignore(checkpoint_writes, keys).values(**row))
                else:
                    updates = {name: value for name, value in row.items() if name not in keys}
                    conn.execute(self.database.dialect.upsert(checkpoint_writes, keys, updates, values=row))

    def checkpoint(self, tenant: str, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None) -> Any | None:
        """One checkpoint row: ``checkpoint_id``, or the thread's latest when None."""
        statement = select(checkpoints).where(
            checkpoints.c.tenant == tenant, checkpoints.c.thread_id == thread_id, checkpoints.c.checkpoint_ns == checkpoint_ns
        )
        if checkpoint_id is not None:
            statement = statement.where(checkpoints.c.checkpoint_id == checkpoint_id)
        with self.database.reader() as conn:
            return conn.execute(statement.order_by(checkpoints.c.checkpoint_id.desc()).limit(1)).first()

    def checkpoints(
        self,
        tenant: str,
        thread_id: str | None,
        checkpoint_ns: str | None,
        checkpoint_id: str | None = None,
        before_id: str | None = None,
        limit: int | None = None,
    ) -> list[Any]:
        """Checkpoint rows, newest first."""
        statement = select(checkpoints).where(checkpoints.c.tenant == tenant)
        if thread_id is not None:
            statement = statement.where(checkpoints.c.thread_id == thread_id)
        if checkpoint_ns is not None:
            statement = statement.where(checkpoints.c.checkpoint_ns == checkpoint_ns)
        if checkpoint_id is not None:
            statement = statement.where(checkpoints.c.checkpoint_id == checkpoint_id)
        if before_id is not None:
            statement = statement.where(checkpoints.c.checkpoint_id < before_id)
        statement = statement.order_by(checkpoints.c.thread_id, checkpoints.c.checkpoint_ns, checkpoints.c.checkpoint_id.desc())
        if limit is not None:
            statement = statement.limit(limit)
        with self.database.reader() as conn:
            return list(conn.execute(statement).all())

    def writes(self, tenant: str, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> list[Any]:
        statement = select(checkpoint_writes).where(
            checkpoint_writes.c.tenant == tenant,
            checkpoint_writes.c.thread_id == thread_id,
            checkpoint_writes.c.checkpoint_ns == checkpoint_ns,
            checkpoint_writes.c.checkpoint_id == checkpoint_id,
        )
        with self.database.reader() as conn:
            return list(conn.execute(statement).all())

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        """Delete a thread's checkpoints and writes; returns the checkpoints deleted."""
        with self.database.writer() as conn:
            conn.execute(
                delete(checkpoint_writes).where(checkpoint_writes.c.tenant == tenant, checkpoint_writes.c.thread_id == thread_id)
            )
            return conn.execute(
                delete(checkpoints).where(checkpoints.c.tenant == tenant, checkpoints.c.thread_id == thread_id)
            ).rowcount
