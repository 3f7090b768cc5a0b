"""Creating a SQLAlchemy engine with the settings each dialect needs for durability and erasure."""

from __future__ import annotations

from urllib.parse import quote
from pathlib import Path

from sqlalchemy import Engine, create_engine, event

from deltacore.config import DeltaCoreConfig
from deltacore.errors import ConfigurationError, MissingExtraError


_SQLITE_CACHE_KIB = 64 * 1024
# Address space, not memory: how much of the database file SQLite may read through a memory map.
_SQLITE_MMAP_BYTES = 1 << 30


def create_sql_engine(config: DeltaCoreConfig) -> Engine:
    url = config.sql_url
    if config.is_sqlite:
        if config.read_only:
            return _read_only_sqlite(config)
        config.path.expanduser().mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60})
        _configure_sqlite(engine, config)
        return engine
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError("A PostgreSQL database_url", "postgres", "psycopg") from exc
    if config.read_only:
        # The server refuses every write of these sessions, whatever code path attempts it.
        options = {"options": "-c default_transaction_read_only=on"}
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, connect_args=options)
    from deltacore.storage.provision import ensure_database

    ensure_database(url)  # a missing database is created when the role may (else: what to run)
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


def _read_only_sqlite(config: DeltaCoreConfig) -> Engine:
    """SQLite opened with ``mode=ro``: SQLite itself refuses every write.

    A WAL database read with plain ``mode=ro`` still creates ``-wal`` and ``-shm`` files. When
    no write-ahead log is there (the store was closed cleanly: nobody is writing it), the file
    is read ``immutable=1`` instead, which writes nothing at all and works on a folder the user
    may not write. A log that is there holds committed pages the main file may lack, so it is
    read through SQLite's shared memory (which needs those files)."""
    from sqlalchemy.engine import make_url

    database = make_url(config.sql_url).database or ""
    path = Path(database)
    if not path.exists():
        raise ConfigurationError("read_only", f"there is no store at {path.parent} to open read-only")
    wal = path.with_name(path.name + "-wal")
    immutable = not (wal.exists() and wal.stat().st_size > 0)
    url = f"sqlite:///file:{quote(str(path.absolute()))}?mode=ro{'&immutable=1' if immutable else ''}&uri=true"
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60})
    _configure_sqlite(engine, config)
    return engine


def _configure_sqlite(engine: Engine, config: DeltaCoreConfig) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        # Take transaction control away from pysqlite so that BEGIN IMMEDIATE works (below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not config.read_only:  # setting the journal mode writes the file header
            cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer; several processes
        cursor.execute(f"PRAGMA synchronous={config.sqlite_synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")  # deltas, links and entities cascade with their event
        cursor.execute("PRAGMA busy_timeout=60000")
        # SQLite's default page cache is 2 MB per connection: in a store of 100k memories every
        # query's few hundred row and index reads then go to the OS page by page. A larger cache
        # (allocated only as pages are read) keeps the hot pages of the read path in process.
        cursor.execute(f"PRAGMA cache_size=-{_SQLITE_CACHE_KIB}")
        # Rows the page cache does not hold (an entity's memories spread over a large store) are
        # read through a memory map of the file instead of a read() call and a copy per page,
        # which makes such scattered reads markedly cheaper. The mapped pages are the OS's page
        # cache, shared by every connection and process.
        cursor.execute(f"PRAGMA mmap_size={_SQLITE_MMAP_BYTES}")
        if config.secure_delete:
            cursor.execute("PRAGMA secure_delete=ON")  # deleted text must not linger in free pages
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):  # type: ignore[no-untyped-def]
        # A write transaction takes the write lock up front: a deferred one that upgrades later
        # can fail at once with "database is locked" when another process writes concurrently.
        immediate = connection.get_execution_options().get("dc_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
