"""The database: its connections, its schema setup, its statistics and which embedder its vectors
come from. Repositories (``deltacore.storage.*_repository``, ``trust_store``, …) hold one
:class:`Database` and run their statements on the connections it hands out."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Connection, Engine, delete, func, insert, select

from deltacore.config import DeltaCoreConfig
from deltacore.errors import EmbedderMismatchError, ReadOnlyStoreError, StorageFullError
from deltacore.storage.dialect import Dialect
from deltacore.storage.engine_factory import create_sql_engine
from deltacore.storage.errors import translate_backend_errors
from deltacore.storage.fulltext import TermStatistics
from deltacore.storage.file_check import check_sqlite_file
from deltacore.storage.migrations import check_schema, run_migrations
from deltacore.storage.tables import store_meta, tenants


log = logging.getLogger(__name__)


class Database:
    """Connections (``reader``, ``writer``, ``side_reader``), ``setup()`` and store identity."""

    # SQLite plans a query without statistics as if "tenant = ?" matched ~10 rows, so a fetch by
    # id within a tenant scans the whole tenant. Statistics are refreshed as the store grows.
    _ANALYZE_EVERY = 2000

    def __init__(self, config: DeltaCoreConfig) -> None:
        self.config = config
        self.read_only = config.read_only
        if config.is_sqlite:
            from sqlalchemy.engine import make_url

            check_sqlite_file(Path(make_url(config.sql_url).database or ""))
        with translate_backend_errors("opening the database"):
            self.engine = create_sql_engine(config)
        self.dialect: Dialect = Dialect.of(self.engine)
        self.term_statistics = TermStatistics()
        self._inserted_since_analyze = 0
        self._side_engine: Engine | None = None
        self._side_lock = threading.Lock()

    def setup(self) -> int:
        """Create or migrate the schema (idempotent, safe under concurrency); read-only: check it."""
        if self.read_only:
            with translate_backend_errors("reading the schema version"):
                return check_schema(self.engine)
        with translate_backend_errors("setting up the database"):
            version = run_migrations(self.engine)
        try:
            self.refresh_statistics()
        except StorageFullError as exc:
            # Statistics only speed up plans; a full disk must not stop the store from opening.
            log.warning("could not refresh the query planner's statistics: %s", exc)
        return version

    def refresh_statistics(self) -> None:
        self._inserted_since_analyze = 0
        if not self.dialect.is_sqlite or self.read_only:
            return  # PostgreSQL's autovacuum keeps its own statistics
        with translate_backend_errors("refreshing statistics"), self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA analysis_limit=1000")
            conn.exec_driver_sql("ANALYZE")
            conn.commit()

    def note_inserted(self, rows: int) -> None:
        self._inserted_since_analyze += rows
        if self._inserted_since_analyze >= self._ANALYZE_EVERY:
            self.refresh_statistics()

    def close(self) -> None:
        self.engine.dispose()
        if self._side_engine is not None:
            self._side_engine.dispose()
            self._side_engine = None

    @contextlib.contextmanager
    def reader(self) -> Iterator[Connection]:
        with translate_backend_errors("reading"), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def side_reader(self) -> Iterator[Connection]:
        """A read connection from a pool of its own, for work a query hands to another thread.

        The query's thread holds a connection of the main pool while it waits for that work; if
        the helpers drew from the same pool, many simultaneous queries could hold every
        connection and wait for helpers that wait for a connection.
        """
        with self._side_lock:
            if self._side_engine is None:
                with translate_backend_errors("opening the database"):
                    self._side_engine = create_sql_engine(self.config)
            engine = self._side_engine
        with translate_backend_errors("reading"), engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def writer(self) -> Iterator[Connection]:
        """A write transaction; on SQLite it takes the write lock up front (BEGIN IMMEDIATE)."""
        if self.read_only:
            raise ReadOnlyStoreError(
                "this store was opened with read_only=True (CLI: --read-only): writing is refused; "
                "open it without read_only to write"
            )
        with translate_backend_errors("writing"), self.engine.connect() as conn:
            conn = conn.execution_options(dc_write=True)
            with conn.begin():
                yield conn

    # ---- store identity -------------------------------------------------------------------

    def check_embedder(self, name: str, dimension: int) -> None:
        """Refuse to mix vectors of two different embedders in one store."""
        if self.read_only:
            with self.reader() as conn:
                rows = dict(conn.execute(select(store_meta.c.key, store_meta.c.value)).all())
            stored_name, stored_dim = rows.get("embedder"), rows.get("embedding_dimension")
            if stored_name is not None and (stored_name != name or int(stored_dim or 0) != dimension):
                raise EmbedderMismatchError(stored_name, int(stored_dim or 0), name, dimension)
            return
        with self.writer() as conn:
            if self.dialect.advisory_locks:
                # Two processes' first writes must not both find no embedder and both insert it.
                conn.execute(select(func.pg_advisory_xact_lock(7305188033)))
            rows = dict(conn.execute(select(store_meta.c.key, store_meta.c.value)).all())
            stored_name, stored_dim = rows.get("embedder"), rows.get("embedding_dimension")
            if stored_name is None:
                conn.execute(
                    insert(store_meta),
                    [{"key": "embedder", "value": name}, {"key": "embedding_dimension", "value": str(dimension)}],
                )
                return
        if stored_name != name or int(stored_dim or 0) != dimension:
            raise EmbedderMismatchError(stored_name, int(stored_dim or 0), name, dimension)

    def stored_embedder(self) -> str | None:
        """Name of the embedder this store's vectors come from (None before the first write)."""
        with self.reader() as conn:
            return conn.execute(select(store_meta.c.value).where(store_meta.c.key == "embedder")).scalar_one_or_none()

    def set_embedder(self, name: str, dimension: int) -> None:
        with self.writer() as conn:
            conn.execute(delete(store_meta).where(store_meta.c.key.in_(["embedder", "embedding_dimension"])))
            conn.execute(
                insert(store_meta),
                [{"key": "embedder", "value": name}, {"key": "embedding_dimension", "value": str(dimension)}],
            )

    # ---- per-tenant change counter ------------------------------------------------------------

    def tenant_signature(self, conn: Connection, tenant: str) -> tuple[int, int]:
        """(rows, change counter) of a tenant: changes with every insert and delete, from any process."""
        row = conn.execute(select(tenants.c.events, tenants.c.version).where(tenants.c.tenant == tenant)).first()
        return (int(row.events), int(row.version)) if row else (0, 0)

    def bump_version(self, conn: Connection, tenant: str) -> None:
        """Mark a tenant changed without adding rows: every cache keyed on its signature is stale."""
        self.bump_tenants(conn, {tenant: 0})

    def bump_tenants(self, conn: Connection, changes: dict[str, int]) -> None:
        """Add each tenant's row change and bump its counter, in the caller's transaction."""
        for tenant, delta in changes.items():
            statement = self.dialect.upsert(
                tenants,
                ["tenant"],
                {"events": tenants.c.events + delta, "version": tenants.c.version + 1},
                values={"tenant": tenant, "events": max(delta, 0), "version": 1},
            )
            conn.execute(statement)
