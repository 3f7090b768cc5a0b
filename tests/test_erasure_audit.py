"""The erasure audit (issue 16, "Audit") on real stores: SQLite + embedded Chroma.

The scanner must see every encoding a store can write a name in, and the vectors; a plain
``delete(entity=…)`` leaves residue it must report; a name never stored must not be reported;
the membership test must tell a retained subject from an erased or never-stored one; a blind
audit (a control it cannot see) must not pass; a tampered certificate must be caught.
"""

from __future__ import annotations

import base64
import json
import sqlite3

import numpy as np
import pytest

from deltacore import DeltaCore, InvalidQueryError
from deltacore.cli import main
from deltacore.compliance import ErasureStep, ForgetCertificate, ForgetMode, chain_hash
from deltacore.compliance.audit import AuditVerdict, FileClass, store_hygiene
from deltacore.testing import FakeEmbedder

SUBJECT = "Quentin Marlowe"
EMAIL = "quentin.marlowe@example.org"
ACCENTED = "Zoë Quimby-Laurent"
RETAINED = "Beatrix Olafsson"
NEVER = "Ingmar Vasquez-Toller"


def _fill(memory: DeltaCore) -> None:
    """A small store: the subject in a message, a tool call (args and result), a note naming
    them only in its text; a retained subject; unrelated memories."""
    memory.ingest(
        [
            {"text": f"{SUBJECT} asked for a refund of order 4411", "entities": [SUBJECT], "role": "user"},
            {
                "text": "looked up the customer",
                "kind": "tool_call",
                "tool_name": "crm_lookup",
                "tool_args": {"email": EMAIL},
            },
            {"text": f"crm_lookup returned {SUBJECT}, premium plan", "kind": "tool_result", "tool_name": "crm_lookup"},
            {"text": "note: quentin marlowe prefers e-mail over phone calls", "role": "assistant"},
            {"text": f"{RETAINED} renewed her plan for two years", "entities": [RETAINED]},
            {"text": f"{RETAINED} lives in Reykjavik", "kind": "fact", "entities": [RETAINED]},
        ]
        + [{"text": f"routine deploy note {i} for the billing service"} for i in range(30)]
    )


@pytest.fixture
def store(tmp_path):
    memory = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    _fill(memory)
    yield memory
    memory.close()


def _encodings(result) -> set[str]:
    return {finding.encoding for finding in result.byte_findings}


def test_the_scanner_finds_every_encoding_of_a_planted_string_and_vector(store, tmp_path):
    folder = tmp_path / "store"
    name = ACCENTED.encode()
    # Base64 at each of the three alignments a blob can start at, through ingest.
    store.ingest(
        [{"text": f"attachment {base64.b64encode(b'x' * shift + name + b'!').decode()} end"} for shift in range(3)]
        # A non-ASCII name in tool arguments: JSON columns keep it \\u-escaped.
        + [{"text": "sent the invoice", "kind": "tool_call", "tool_name": "mailer", "tool_args": {"to": ACCENTED}}]
        + [{"text": f"{ACCENTED} paid"}, {"text": f"{ACCENTED.upper()} called about the invoice"}]
    )
    # What another tool may leave in the store folder: an export in UTF-16 (both byte orders),
    # and a vector saved as float16.
    vector = store.embed([f"{RETAINED} renewed her plan for two years"])[0]
    (folder / "exports").mkdir()
    (folder / "exports" / "le.txt").write_bytes(f"row: {ACCENTED}".encode("utf-16-le"))
    (folder / "exports" / "be.txt").write_bytes(f"row: {ACCENTED}".encode("utf-16-be"))
    (folder / "exports" / "vectors.f16").write_bytes(b"\x01\x02" + vector.astype("<f2").tobytes())
    nearby = vector + np.random.default_rng(1).normal(0, 0.002, vector.shape).astype(np.float32)

    result = store.verify_erasure(ACCENTED, vectors=[vector, nearby], controls=[RETAINED])

    encodings = _encodings(result)
    for expected in ("utf-8", "json-escaped", "base64-0", "base64-1", "base64-2", "utf-16-le", "utf-16-be"):
        assert expected in encodings, (expected, sorted(encodings))
    # The upper-case text is found through its case-folded form (FTS5 keeps tokens lower-cased).
    assert any("+casefold" in e or "+lower" in e or "+token" in e for e in encodings)
    assert {f.file for f in result.byte_findings if f.encoding.startswith("utf-16")} == {
        "exports/le.txt",
        "exports/be.txt",
    }
    matches = {(f.vector, f.match) for f in result.vector_findings}
    assert (0, "float32") in matches or (0, "float32-normalised") in matches
    assert (0, "float16") in matches
    assert (1, "near-duplicate") in matches  # the perturbed copy: no exact bytes, cosine >= 0.99
    assert any(f.file_class is FileClass.CHROMA_SQLITE for f in result.vector_findings)
    assert result.verdict is AuditVerdict.ERASURE_INCOMPLETE


def test_a_plain_delete_leaves_residue_and_the_audit_reports_it(store):
    before = store.verify_erasure(SUBJECT, identifiers=[EMAIL], controls=[RETAINED])
    assert before.verdict is AuditVerdict.ERASURE_INCOMPLETE
    assert before.membership.detected

    store.delete(entity=SUBJECT)
    after = store.verify_erasure(SUBJECT, identifiers=[EMAIL], controls=[RETAINED])

    assert after.verdict is AuditVerdict.ERASURE_INCOMPLETE
    # The note naming the subject only in its text, and the tool call's arguments, survive the
    # entity delete (the measurement): the read path still returns them.
    assert after.probe_findings
    tables = {(f.table, f.column) for f in after.sql_findings}
    assert ("dc_events", "text") in tables
    assert ("dc_events", "tool_args") in tables
    assert after.byte_findings
    # The audit could see: the retained subject is found by probes, bytes and SQL.
    assert after.controls[0].seen and after.controls[0].byte_hits and after.controls[0].probe_hits
    assert after.control_membership.detected


def test_a_name_never_stored_is_not_reported(store):
    result = store.verify_erasure(NEVER, controls=[RETAINED])

    assert result.byte_findings == () and result.sql_findings == () and result.probe_findings == ()
    assert result.vector_findings == ()
    assert not result.membership.detected
    assert result.controls[0].seen
    assert result.verdict is AuditVerdict.ERASURE_VERIFIED and result.passed
    assert len(result.files) >= 3  # deltacore.db, its -wal, Chroma's SQLite at least
    assert {"utf-8", "utf-16-le", "utf-16-be", "base64-0", "base64-1", "base64-2"} <= set(result.encodings)


def test_membership_tells_a_retained_subject_from_erased_and_never_stored_ones(store):
    store.delete([e.id for e in store.events(limit=1000) if "quentin" in (e.text or "").lower() or e.tool_args])
    erased = store.verify_erasure(SUBJECT, controls=[RETAINED])
    never = store.verify_erasure(NEVER, controls=[RETAINED])
    retained = store.verify_erasure(RETAINED, controls=["billing service"])

    assert retained.membership.detected and retained.membership.p_value < 0.05
    assert not erased.membership.detected
    assert not never.membership.detected
    assert retained.membership.subject_mean > max(erased.membership.subject_mean, never.membership.subject_mean)
    # Every event naming the subject is gone from the read path (bytes may remain: the
    # physical pass is forget's job).
    assert erased.probe_findings == () and erased.sql_findings == ()


def test_a_blind_audit_cannot_pass(store):
    # A control the store does not hold cannot be seen: nothing found proves nothing.
    blind = store.verify_erasure(NEVER, controls=["Name Nobody Stored"])
    assert blind.verdict is AuditVerdict.INCONCLUSIVE and not blind.passed
    assert not blind.controls[0].seen
    # Without any control, and without the store's files, neither.
    no_control = store.verify_erasure(NEVER, controls=[], scan_files=False)
    assert no_control.verdict is AuditVerdict.INCONCLUSIVE
    assert any(item.what == "retained-subject control" for item in no_control.not_checked)
    assert any(item.what == "store files" for item in no_control.not_checked)


def test_hnsw_capacity_garbage_is_not_taken_for_the_store_s_data(store, tmp_path):
    # Chroma writes an HNSW segment at its whole capacity; the slots past its element count hold
    # the process's uninitialised heap. A word there (planted here, found there by chance in a
    # long test run) must neither count as a copy of the subject nor make a control "seen".
    store.apply_outbox()
    store.close()
    segments = sorted((tmp_path / "store" / "chroma").glob("*/data_level0.bin"))
    assert segments, "the embedded index keeps an HNSW segment"
    planted = b"".join(f"{NEVER} | Name Nobody Stored | ".encode() for _ in range(3))
    for data_file in segments:
        size = data_file.stat().st_size
        with data_file.open("r+b") as handle:
            handle.seek(size - len(planted) - 8)
            handle.write(planted)
    reopened = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    try:
        result = reopened.verify_erasure(NEVER, controls=["Name Nobody Stored"])
        assert result.byte_findings == ()
        assert not result.controls[0].seen and result.verdict is AuditVerdict.INCONCLUSIVE
        assert any("HNSW capacity" in item.what for item in result.not_checked)
    finally:
        reopened.close()


def test_a_tampered_certificate_is_caught(store):
    steps = [
        ErasureStep(artifact="events", action="deleted", count=4, target="dc_events"),
        ErasureStep(artifact="vectors", action="rebuilt", count=4, target="chroma"),
    ]
    certificate = ForgetCertificate(
        request_id="req-1", tenant="default", mode=ForgetMode.FULL, steps=steps, audit_hash=chain_hash("req-1", steps)
    )
    sound = store.verify_erasure(certificate)
    assert sound.certificate.chain_valid
    # Without the subject's strings the audit cannot look for them, and says so.
    assert sound.verdict is AuditVerdict.INCONCLUSIVE
    assert any("HMAC" in item.why for item in sound.not_checked)
    assert all(check.ok for check in sound.store_checks)

    fewer = [steps[0].model_copy(update={"count": 3}), steps[1]]
    tampered = certificate.model_copy(update={"steps": fewer})
    result = store.verify_erasure(tampered)
    assert result.verdict is AuditVerdict.CERTIFICATE_INVALID and not result.certificate.chain_valid
    dropped = certificate.model_copy(update={"steps": steps[:1]})
    assert store.verify_erasure(dropped).verdict is AuditVerdict.CERTIFICATE_INVALID


def test_store_hygiene_sees_deleted_bytes_in_free_pages(tmp_path):
    # A SQLite file written without secure_delete (the upstream default) keeps deleted rows.
    path = tmp_path / "legacy.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA secure_delete=OFF")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.executemany("INSERT INTO notes VALUES (?)", [(f"{SUBJECT} " * 200,) for _ in range(50)])
    conn.commit()
    conn.execute("DELETE FROM notes")
    conn.commit()
    conn.close()

    (check,) = store_hygiene(tmp_path)
    assert not check.ok and "hold data" in check.detail


def test_bad_input_names_the_field(store):
    with pytest.raises(InvalidQueryError, match="subject"):
        store.verify_erasure()
    with pytest.raises(InvalidQueryError, match="identifiers"):
        store.verify_erasure(SUBJECT, identifiers="not a list")
    with pytest.raises(InvalidQueryError, match="controls"):
        store.verify_erasure(SUBJECT, controls=[SUBJECT])
    with pytest.raises(InvalidQueryError, match=r"identifiers\[0\]"):
        store.verify_erasure(None, identifiers=["  "])


def test_cli_exit_statuses(store, tmp_path, capsys):
    store.close()
    base = ["--embedder", "fake", "--path", str(tmp_path / "store"), "verify-erasure"]
    assert main([*base, SUBJECT, "--control", RETAINED]) == 1
    assert "ERASURE_INCOMPLETE" in capsys.readouterr().out
    assert main([*base, NEVER, "--control", RETAINED, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "ERASURE_VERIFIED"
    assert main([*base, NEVER, "--control", "Name Nobody Stored", "--no-files"]) == 3
    capsys.readouterr()
    steps = [ErasureStep(artifact="events", action="deleted", count=1)]
    certificate = ForgetCertificate(
        request_id="r", tenant="default", mode=ForgetMode.FULL, steps=steps, audit_hash=chain_hash("r", steps)
    )
    forged = certificate.model_copy(update={"steps": [ErasureStep(artifact="events", action="deleted", count=9)]})
    (tmp_path / "cert.json").write_text(forged.model_dump_json())
    assert main([*base, "--certificate", str(tmp_path / "cert.json")]) == 4
    assert "BROKEN" in capsys.readouterr().out
    assert main(base) == 2
    assert "name the subject" in capsys.readouterr().err


def test_forget_then_verify_its_certificate(store):
    certificate = store.forget(SUBJECT, identifiers=[EMAIL])

    result = store.verify_erasure(certificate, identifiers=[SUBJECT, EMAIL], controls=[RETAINED])

    assert result.certificate.chain_valid and result.certificate.journal_match and result.certificate.subject_match
    assert all(check.ok for check in result.store_checks)
    # Every byte of the subject is gone from every file, the read path returns nothing of them,
    # and the audit could see: the retained control is found.
    assert result.byte_findings == () and result.sql_findings == () and result.probe_findings == ()
    assert result.controls[0].seen and result.control_membership.detected
    assert result.verdict is AuditVerdict.ERASURE_VERIFIED
    # The HMAC is of the request's exact identifiers: a different set is another subject.
    other = store.verify_erasure(certificate, identifiers=[SUBJECT], controls=[RETAINED])
    assert other.certificate.subject_match is False and other.verdict is AuditVerdict.CERTIFICATE_INVALID
