"""Verifying a :class:`~deltacore.compliance.ForgetCertificate` against the store that issued it.

A certificate holds no personal data: its subject is an HMAC. So, from the certificate alone,
the audit can check

- the hash chain over the erasure log (``audit_hash``): no step was added, removed or changed;
- that the store's forget journal holds the same ``audit_hash`` for the request (the
  certificate was issued by this store);
- what the physical pass must have left true, whoever the subject was: no free page of the
  SQLite database still holds bytes (``secure_delete``), no Chroma segment folder is left over
  from a dropped or rebuilt collection (such folders keep every vector they ever held).

It cannot look for the subject: the probes, the byte scan and the membership test need the
subject's strings. Given them (``identifiers``), it checks that the certificate is about them
(the HMAC, with the store's key) and runs the full :func:`audit_erasure`.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deltacore.compliance.audit.audit import audit_erasure
from deltacore.compliance.audit.result import AuditResult, AuditVerdict, CertificateCheck, NotChecked, StoreCheck
from deltacore.compliance.audit.target import AuditTarget
from deltacore.compliance.certificate import ForgetCertificate

_SQLITE_MAGIC = b"SQLite format 3\0"


def audit_certificate(
    memory: AuditTarget,
    certificate: ForgetCertificate,
    *,
    identifiers: Sequence[str] = (),
    key: bytes | None = None,
    journal_hash: str | None = None,
    **audit: Any,
) -> AuditResult:
    """Check ``certificate`` offline and against ``memory``; with ``identifiers``, audit them too.

    ``key`` is the store's HMAC key (to check the certificate is about ``identifiers``);
    ``journal_hash`` the ``audit_hash`` the store's journal recorded for the request (None when
    the store has no record). Other keyword arguments go to :func:`audit_erasure`.
    """
    started = time.perf_counter()
    check = CertificateCheck(
        request_id=certificate.request_id,
        chain_valid=certificate.verify_chain(),
        journal_match=None if journal_hash is None else journal_hash == certificate.audit_hash,
        subject_match=(
            certificate.is_about(key, identifiers)
            if identifiers and key is not None and certificate.subject_hmac
            else None
        ),
        steps=len(certificate.steps),
    )
    store_checks = tuple(store_hygiene(memory.folder)) if memory.folder is not None else ()
    hygiene_failed = any(not c.ok for c in store_checks)
    invalid = not check.chain_valid or check.journal_match is False or check.subject_match is False
    if identifiers:
        result = audit_erasure(memory, identifiers, **audit)
        verdict = result.verdict
        if hygiene_failed and verdict is AuditVerdict.ERASURE_VERIFIED:
            verdict = AuditVerdict.ERASURE_INCOMPLETE
        if invalid:
            verdict = AuditVerdict.CERTIFICATE_INVALID
        return result.model_copy(
            update={
                "verdict": verdict,
                "certificate": check,
                "store_checks": store_checks,
                "seconds": round(time.perf_counter() - started, 3),
            }
        )
    not_checked = [
        NotChecked(
            what="probes, byte scan, SQL scan and membership test for the subject",
            why="the certificate holds only an HMAC of the subject: "
            "pass identifiers= (the subject's strings) to run them",
        )
    ]
    if journal_hash is None:
        not_checked.append(NotChecked(what="the store's forget journal", why="the store has no record of this request"))
    if memory.folder is None:
        not_checked.append(NotChecked(what="store files", why="the store keeps no local folder"))
    verdict = (
        AuditVerdict.CERTIFICATE_INVALID
        if invalid
        else AuditVerdict.ERASURE_INCOMPLETE
        if hygiene_failed
        else AuditVerdict.INCONCLUSIVE
    )
    return AuditResult(
        verdict=verdict,
        identifiers=0,
        probe_count=0,
        certificate=check,
        store_checks=store_checks,
        not_checked=tuple(not_checked),
        seconds=round(time.perf_counter() - started, 3),
    )


def store_hygiene(folder: Path) -> list[StoreCheck]:
    """What a finished physical pass leaves true in an embedded store folder, subject or not."""
    checks = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.stat().st_size >= 100 and _starts_with(path, _SQLITE_MAGIC):
            checks.append(_free_pages_zeroed(path, folder))
    chroma = folder / "chroma" / "chroma.sqlite3"
    if chroma.exists():
        checks.append(_orphan_segments(chroma, folder))
    return checks


def _free_pages_zeroed(path: Path, folder: Path) -> StoreCheck:
    """Every page on the freelist holds only zeros (``secure_delete`` zeroes what it frees; a
    trunk page keeps its list of page numbers)."""
    name = f"free pages of {path.relative_to(folder).as_posix()} hold no bytes"
    with path.open("rb") as handle:
        header = handle.read(100)
        page_size = int.from_bytes(header[16:18], "big") or 65536
        page_size = 65536 if page_size == 1 else page_size
        trunk = int.from_bytes(header[32:36], "big")
        dirty, free, seen = [], 0, set()
        while trunk and trunk not in seen:
            seen.add(trunk)
            handle.seek((trunk - 1) * page_size)
            page = handle.read(page_size)
            leaves = int.from_bytes(page[4:8], "big")
            free += 1 + leaves
            if any(page[8 + 4 * leaves :]):
                dirty.append(trunk)
            for n in range(leaves):
                leaf = int.from_bytes(page[8 + 4 * n : 12 + 4 * n], "big")
                handle.seek((leaf - 1) * page_size)
                if any(handle.read(page_size)):
                    dirty.append(leaf)
            trunk = int.from_bytes(page[:4], "big")
    detail = f"{free} free page(s) in the file"
    if dirty:
        detail += f"; {len(dirty)} hold data (first: page {dirty[0]})"
    # Only pages checkpointed into the file are seen; the -wal is the byte scan's business.
    return StoreCheck(name=name, ok=not dirty, detail=detail)


def _orphan_segments(chroma: Path, folder: Path) -> StoreCheck:
    name = "no Chroma segment folder outlives its segment"
    try:
        conn = sqlite3.connect(f"{chroma.as_uri()}?mode=ro", uri=True)
        try:
            live = {str(row[0]) for row in conn.execute("SELECT id FROM segments")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return StoreCheck(name=name, ok=False, detail=f"cannot read {chroma.name}: {exc}")
    orphans = []
    for child in sorted(chroma.parent.iterdir()):
        if child.is_dir() and _is_uuid(child.name) and child.name not in live:
            orphans.append(child.relative_to(folder).as_posix())
    detail = f"{len(live)} segment(s) listed"
    if orphans:
        detail += f"; orphan folder(s): {', '.join(orphans[:5])}"
    return StoreCheck(name=name, ok=not orphans, detail=detail)


def _starts_with(path: Path, magic: bytes) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(magic)) == magic


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True
