"""The forget journal: what a request will erase, by id only, so a crash mid-way resumes.

A forget runs in phases (select → logical erase → physical pass → done). The selection is
written to the after-commit journal (``dc_after_commit``, step ``forget``; the after-commit
replay only runs the steps it has registered, so it leaves these rows alone) before anything is
erased; the logical erase commits the phase change in its own transaction; the store re-runs
whatever a crash interrupted when it is opened again (``DeltaCore.__init__`` → ``resume``).

The journal holds no content: event, delta and row ids (random or sequence numbers), the
request's selectors by name, and HMACs (key in ``dc_store_meta``) of the subject's strings and of
the sources to erase. A finished request leaves a ``FORGET`` system event with its status and
``audit_hash``: what ``forget_status`` answers afterwards, still without content.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection

from deltacore.compliance.certificate import ForgetState, ForgetStatus
from deltacore.compliance.request import ForgetMode
from deltacore.storage.erasure import ErasureLog
from deltacore.storage.journal import AfterCommitJournal

STEP = "forget"
STATUS_KIND = "FORGET"
_KEY_NAME = "forget_hmac_key"


def hmac_key(conn: Connection) -> bytes:
    """The store's HMAC key, created on first use (kept in ``dc_store_meta``)."""
    log = ErasureLog()
    stored = log.meta(conn, _KEY_NAME)
    if stored is not None:
        return bytes.fromhex(stored)
    key = secrets.token_bytes(32)
    log.set_meta(conn, _KEY_NAME, key.hex())
    return key


def value_hmac(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


class ForgetJournal:
    """Journal rows of pending forgets and the status records of finished ones."""

    def __init__(self) -> None:
        self._journal = AfterCommitJournal()
        self._log = ErasureLog()

    def add(self, conn: Connection, tenant: str, payload: dict[str, Any]) -> int:
        return self._journal.add(conn, tenant, STEP, payload)

    def set_payload(self, conn: Connection, entry_id: int, payload: dict[str, Any]) -> None:
        self._log.set_journal_payload(conn, entry_id, payload)

    def pending(self, conn: Connection) -> list[tuple[int, dict[str, Any]]]:
        return [(entry.id, entry.payload) for entry in self._journal.pending(conn, [STEP])]

    def finish(self, conn: Connection, entry_id: int | None, tenant: str, status: dict[str, Any]) -> None:
        """Record the final status and remove the journal row, in one transaction."""
        if entry_id is not None:
            self._journal.claim(conn, entry_id)
        self._log.log(conn, tenant, STATUS_KIND, status)

    def status(self, conn: Connection, request_id: str) -> ForgetStatus | None:
        for _entry_id, payload in self.pending(conn):
            if payload.get("request_id") == request_id:
                state = ForgetState.PENDING if payload.get("phase") == "selected" else ForgetState.RUNNING
                return _status(payload, state)
        for payload in self._log.logged(conn, STATUS_KIND):
            if payload.get("request_id") == request_id:
                return _status(payload, ForgetState(payload["state"]))
        return None


def _status(payload: dict[str, Any], state: ForgetState) -> ForgetStatus:
    completed = payload.get("completed_at")
    return ForgetStatus(
        request_id=payload["request_id"],
        state=state,
        tenant=payload["tenant"],
        mode=ForgetMode(payload["mode"]),
        subject_hmac=payload.get("subject_hmac"),
        phase=payload.get("phase", ""),
        audit_hash=payload.get("audit_hash", ""),
        counts=dict(payload.get("counts", {})),
        created_at=datetime.fromtimestamp(payload["created_at"], timezone.utc),
        completed_at=datetime.fromtimestamp(completed, timezone.utc) if completed else None,
    )
