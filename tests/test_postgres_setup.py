"""Opening PostgreSQL as a new user would: a missing database is created when the role may,
else the error says what to run; the vector location must be said explicitly for scale-out."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from deltacore import DeltaCore
from deltacore.errors import ConfigurationError
from deltacore.testing import FakeEmbedder

ADMIN_URL = os.environ.get("DELTACORE_TEST_POSTGRES_URL")
needs_postgres = pytest.mark.skipif(not ADMIN_URL, reason="set DELTACORE_TEST_POSTGRES_URL")


def test_a_postgres_url_without_a_vector_location_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError, match=r"chroma_url: .*chroma_url='http://host:8000'.*path=") as caught:
        DeltaCore.open("postgresql+psycopg://app@db.invalid:5432/memory", embedder=FakeEmbedder())
    assert caught.value.field == "chroma_url"
    assert not (tmp_path / "deltacore_data").exists()  # nothing quietly created in the cwd


def _admin():
    return create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")


@needs_postgres
def test_a_missing_database_is_created_when_the_role_may(tmp_path):
    name = f"dc_new_{uuid.uuid4().hex[:10]}"
    url = make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        with DeltaCore.open(url, path=tmp_path / "vectors", embedder=FakeEmbedder()) as memory:
            memory.add("the first memory")
        with DeltaCore.open(url, path=tmp_path / "vectors", embedder=FakeEmbedder()) as memory:
            assert memory.stats().events == 1 and memory.stats().backend == "postgresql"
    finally:
        with _admin().connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@needs_postgres
def test_a_role_that_may_not_create_it_is_told_what_to_run(tmp_path):
    role, name = f"dc_role_{uuid.uuid4().hex[:8]}", f"dc_missing_{uuid.uuid4().hex[:8]}"
    with _admin().connect() as conn:
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN NOCREATEDB'))
    try:
        url = make_url(ADMIN_URL).set(username=role, password=None, database=name).render_as_string(hide_password=False)
        with pytest.raises(ConfigurationError, match=rf"createdb .*-O {role} {name}.*CREATE DATABASE") as caught:
            DeltaCore.open(url, path=tmp_path / "vectors", embedder=FakeEmbedder())
        assert caught.value.field == "database_url"
    finally:
        with _admin().connect() as conn:
            conn.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
