"""Backend-parametrized fixtures: every store test runs on each configured backend.

- ``sqlite``: a SQLite file and embedded Chroma in a temp folder (always).
- ``postgres``: a throwaway PostgreSQL database per test and a Chroma server, when
  ``DELTACORE_TEST_POSTGRES_URL`` (an admin URL allowed to CREATE DATABASE) and
  ``DELTACORE_TEST_CHROMA_URL`` are set. With ``CI=true`` a configured backend that does not
  answer fails the run instead of being skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import column, func, literal_column, select, table

from deltacore import DeltaCore
from deltacore.storage.tables import events
from deltacore.testing import FakeEmbedder

POSTGRES_URL = os.environ.get("DELTACORE_TEST_POSTGRES_URL")
CHROMA_URL = os.environ.get("DELTACORE_TEST_CHROMA_URL")
IN_CI = os.environ.get("CI", "").lower() == "true"


@dataclass
class Backend:
    """Settings for one throwaway store; ``settings`` is plain data a child process can reuse."""

    name: str
    settings: dict[str, Any]
    _cleanups: list[Callable[[], None]] = field(default_factory=list)

    def open(self, **overrides: Any) -> DeltaCore:
        values = {"embedder": FakeEmbedder(), **self.settings, **overrides}
        return DeltaCore.open(**values)


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"CI=true and a configured backend is unreachable: {reason}")
    pytest.skip(reason)


def _postgres_database(admin_url: str) -> tuple[str, Callable[[], None]]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"dc_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def _drop_collections(prefix: str) -> None:
    import chromadb
    from urllib.parse import urlparse

    parsed = urlparse(CHROMA_URL)
    client = chromadb.HttpClient(host=parsed.hostname, port=parsed.port)
    for collection in client.list_collections():
        name = getattr(collection, "name", collection)
        if name.startswith(prefix + "-"):
            client.delete_collection(name)


BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", {"path": tmp_path / "store"})
        return
    if not POSTGRES_URL or not CHROMA_URL:
        pytest.skip("set DELTACORE_TEST_POSTGRES_URL and DELTACORE_TEST_CHROMA_URL to run the PostgreSQL + Chroma server backend")
    try:
        database_url, drop_database = _postgres_database(POSTGRES_URL)
    except Exception as exc:  # noqa: BLE001 - any failure to reach the server
        _unavailable(f"PostgreSQL at {POSTGRES_URL}: {exc}")
    prefix = f"t{uuid.uuid4().hex[:10]}"
    settings = {
        "path": tmp_path / "store",
        "database_url": database_url,
        "chroma_url": CHROMA_URL,
        "collection_prefix": prefix,
    }
    try:
        DeltaCore.open(embedder=FakeEmbedder(), **settings).close()
    except Exception as exc:  # noqa: BLE001
        drop_database()
        _unavailable(f"Chroma server at {CHROMA_URL}: {exc}")
    yield Backend("postgres", settings)
    drop_database()
    _drop_collections(prefix)


@pytest.fixture
def memory(backend: Backend) -> Iterator[DeltaCore]:
    store = backend.open()
    yield store
    store.close()


_fts = table("dc_events_fts", column("rowid"))


def _lexical_by_join(conn: Any, terms: list[str], filters: list, limit: int) -> list[tuple[str, float]]:
    """The plain way (SQLite): rank every text match that passes the filters by the text's bm25."""
    match = "text : (" + " OR ".join(f'"{t}"' for t in terms) + ")"
    rank = func.bm25(literal_column("dc_events_fts"), 1.0, 0.0)
    statement = (
        select(events.c.id, rank.label("rank"))
        .select_from(_fts.join(events, events.c.seq == _fts.c.rowid))
        .where(literal_column("dc_events_fts").op("MATCH")(match), *filters)
        .order_by(rank, events.c.seq)
        .limit(limit)
    )
    return [(row.id, -float(row.rank)) for row in conn.execute(statement)]


@pytest.fixture
def lexical_by_join() -> Callable[..., list[tuple[str, float]]]:
    """What the fast lexical paths must return: the reference they are compared with."""
    return _lexical_by_join
