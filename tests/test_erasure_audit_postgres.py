"""The erasure audit on PostgreSQL (Chroma embedded in the folder): what a client can check —
every text column by SQL and the text of ``pg_dump`` — and the limits it states."""

from __future__ import annotations

import importlib.util
import os
import shutil
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from deltacore import DeltaCore
from deltacore.compliance.audit import AuditVerdict, FileClass
from deltacore.testing import FakeEmbedder

POSTGRES_URL = os.environ.get("DELTACORE_TEST_POSTGRES_URL")
_spec = importlib.util.spec_from_file_location("erasure_cases", Path(__file__).with_name("test_erasure_audit.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)  # type: ignore[union-attr]


@pytest.fixture
def pg_store(tmp_path):
    if not POSTGRES_URL:
        pytest.skip("set DELTACORE_TEST_POSTGRES_URL to run the PostgreSQL audit")
    name = f"dc_audit_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    memory = DeltaCore.open(tmp_path / "store", database_url=url, embedder=FakeEmbedder())
    cases._fill(memory)
    yield memory
    memory.close()
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def test_delete_residue_is_seen_by_sql_and_pg_dump_and_forget_clears_both(pg_store):
    pg_store.delete(entity=cases.SUBJECT)
    after_delete = pg_store.verify_erasure(cases.SUBJECT, identifiers=[cases.EMAIL], controls=[cases.RETAINED])

    assert after_delete.verdict is AuditVerdict.ERASURE_INCOMPLETE
    assert ("dc_events", "text") in {(f.table, f.column) for f in after_delete.sql_findings}
    limits = {item.what for item in after_delete.not_checked}
    assert "PostgreSQL relation files, WAL, replicas and backups" in limits
    if shutil.which("pg_dump"):
        assert any(f.file_class is FileClass.PG_DUMP for f in after_delete.byte_findings)
        assert any(f.file == "pg_dump" for f in after_delete.files)

    certificate = pg_store.forget(cases.SUBJECT, identifiers=[cases.EMAIL])
    after_forget = pg_store.verify_erasure(
        certificate, identifiers=[cases.SUBJECT, cases.EMAIL], controls=[cases.RETAINED]
    )
    assert after_forget.sql_findings == () and after_forget.probe_findings == ()
    assert not [f for f in after_forget.byte_findings if f.file_class is FileClass.PG_DUMP]
    assert after_forget.controls[0].seen
    assert after_forget.certificate.chain_valid and after_forget.certificate.journal_match
