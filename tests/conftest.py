"""Backend-parametrized fixtures: every store test runs on each configured backend.

- ``sqlite``: a SQLite file and embedded Chroma in a temp folder (always).
- ``postgres``: a throwaway PostgreSQL database per test and a Chroma server, when
  ``DELTACORE_TEST_POSTGRES_URL`` (an admin URL allowed to CREATE DATABASE) and
  ``DELTACORE_TEST_CHROMA_URL`` are set. With ``CI=true`` a configured backend that does not
  answer fails the run instead of being skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def _postgres_database(admin_url: str, template: str | None = None) -> tuple[str, Callable[[], None]]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"dc_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
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


@pytest.fixture(scope="session")
def _postgres_template() -> Iterator[str | None]:
    """A database whose schema is set up once per run: each test's database is a copy of it
    (``CREATE DATABASE ... TEMPLATE``), the state a fresh database has after its first
    ``setup()``, without running every migration again per test (seconds each on a loaded
    machine). None when PostgreSQL is not configured or does not answer (each test then says so)."""
    if not POSTGRES_URL or not CHROMA_URL:
        yield None
        return
    from sqlalchemy import create_engine

    from deltacore.storage.migrations import run_migrations

    try:
        url, drop = _postgres_database(POSTGRES_URL)
    except Exception:  # noqa: BLE001 - the backend fixture reports an unreachable server
        yield None
        return
    from sqlalchemy.engine import make_url

    name = make_url(url).database
    engine = create_engine(url)
    try:
        run_migrations(engine)
    finally:
        engine.dispose()  # a template must have no open connection when it is copied
    yield name
    drop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", {"path": tmp_path / "store"})
        return
    if not POSTGRES_URL or not CHROMA_URL:
        pytest.skip("set DELTACORE_TEST_POSTGRES_URL and DELTACORE_TEST_CHROMA_URL to run the PostgreSQL + Chroma server backend")
    try:
        database_url, drop_database = _postgres_database(POSTGRES_URL, request.getfixturevalue("_postgres_template"))
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


# Snippets run as a reader runs them (a fresh process, `python snippet.py` in its own folder), but
# many in ONE child process: a process each paid the Python, Chroma and torch imports every time.
_SNIPPET_RUNNER = """
import contextlib, io, json, os, runpy, sys, traceback

results = {}
for folder in sys.argv[2:]:
    os.chdir(folder)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path("snippet.py", run_name="__main__")
        error = None
    except BaseException:  # a snippet that exits or fails: reported, the next one still runs
        error = traceback.format_exc()
    results[folder] = {"stdout": out.getvalue(), "error": error}
with open(sys.argv[1], "w") as report:
    json.dump(results, report)
"""


def _run_snippets(folders: list[Path], report: Path, *, timeout: float) -> dict[str, dict[str, Any]]:
    """Run ``snippet.py`` of each folder, in order, in one child process: ``{folder: {"stdout",
    "error"}}`` (``error`` is the traceback a snippet ended with, or None)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    result = subprocess.run(
        [sys.executable, "-c", _SNIPPET_RUNNER, str(report), *map(str, folders)],
        check=False, capture_output=True, text=True, env=env, timeout=timeout,
    )  # fmt: skip
    assert result.returncode == 0 and report.is_file(), result.stderr[-3000:]
    return json.loads(report.read_text())


@pytest.fixture(scope="session")
def run_snippets() -> Callable[..., dict[str, dict[str, Any]]]:
    """``run_snippets(folders, report, timeout=…)``: see ``_run_snippets``."""
    return _run_snippets
