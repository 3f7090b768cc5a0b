"""A PostgreSQL database named in ``database_url`` that does not exist yet is created.

A new user's first ``DeltaCore.open("postgresql+psycopg://…/memory")`` otherwise fails with
"database does not exist" although the server answered. When the role may create databases,
the database is created through the ``postgres`` maintenance database; when it may not, the
error says exactly what an administrator runs.
"""

from __future__ import annotations

import logging

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from deltacore.errors import ConfigurationError

log = logging.getLogger(__name__)

_MISSING_DATABASE = "3D000"  # invalid_catalog_name
_DUPLICATE_DATABASE = "42P04"  # another process created it first
_NO_PRIVILEGE = "42501"  # insufficient_privilege


def ensure_database(url: str) -> bool:
    """Create the database of ``url`` when it is missing; True when it was created here."""
    target = make_url(url)
    if not target.database:
        return False
    probe = create_engine(target, poolclass=NullPool)
    try:
        with probe.connect():
            return False
    except DBAPIError as exc:
        # A failed connection carries no SQLSTATE in psycopg: the server's message says it.
        missing = _sqlstate(exc) == _MISSING_DATABASE or f'database "{target.database}" does not exist' in str(exc)
        if not missing:
            return False  # unreachable, bad password…: the normal open reports it
    finally:
        probe.dispose()
    return _create(target)


def _create(target) -> bool:  # type: ignore[no-untyped-def]
    name, user = target.database, target.username or "<your role>"
    admin = create_engine(target.set(database="postgres"), poolclass=NullPool, isolation_level="AUTOCOMMIT")
    quoted = '"' + name.replace('"', '""') + '"'
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {quoted}"))
    except DBAPIError as exc:
        if _sqlstate(exc) == _DUPLICATE_DATABASE:
            return False
        host = f"-h {target.host} " if target.host else ""
        port = f"-p {target.port} " if target.port else ""
        raise ConfigurationError(
            "database_url",
            f'database "{name}" does not exist and role "{user}" cannot create it ({_first_line(exc)}). '
            f"Ask an administrator to run: createdb {host}{port}-U postgres -O {user} {name}  "
            f'(or in psql: CREATE DATABASE {quoted} OWNER "{user}";)',
        ) from exc
    finally:
        admin.dispose()
    log.info("created PostgreSQL database %s", name)
    return True


def _sqlstate(exc: DBAPIError) -> str | None:
    return getattr(exc.orig, "sqlstate", None)


def _first_line(exc: DBAPIError) -> str:
    return str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc)
