"""What an erasure proves: :class:`ForgetCertificate`, its erasure log and hash chain.

The certificate holds no personal data. The subject appears only as an HMAC (key kept in the
store's meta), so a certificate can be handed to the requester, a DPO or an auditor. Every step
the erasure took is a :class:`ErasureStep` (what class of artifact, what was done, how many,
which file or table); ``audit_hash`` is the last link of a SHA-256 chain over those steps, so
anyone holding the certificate can check offline that no step was added, removed or changed
(:meth:`ForgetCertificate.verify_chain`), and anyone holding the store's key and the subject's
strings can check that the certificate is about them (:meth:`ForgetCertificate.is_about`).
The store keeps the same ``audit_hash`` in its forget journal (``forget_status``), which ties a
certificate to the store it was issued by.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from deltacore.compliance.request import ForgetMode
from deltacore.model.base import utc_now

__all__ = [
    "ErasureStep",
    "ForgetCertificate",
    "ForgetState",
    "ForgetStatus",
    "PhysicalStep",
    "chain_hash",
    "subject_hmac",
]


def subject_hmac(key: bytes, terms: Iterable[str]) -> str:
    """HMAC-SHA256 (hex) of a subject's identifying strings, case- and order-insensitive."""
    canonical = "\x1f".join(sorted({term.strip().casefold() for term in terms if term.strip()}))
    return hmac.new(key, canonical.encode("utf-8"), hashlib.sha256).hexdigest()


class ErasureStep(BaseModel):
    """One logged step of an erasure; never holds the erased content."""

    model_config = ConfigDict(frozen=True)

    artifact: str
    """The artifact class (``events``, ``deltas``, ``facts``, ``vectors``, ``retrievals``, …)."""
    action: str
    """``deleted``, ``rewritten``, ``rederived``, ``relinked``, ``scrubbed``, ``vacuumed``…"""
    count: int = 0
    target: str = ""
    """The table, collection or file the step touched."""
    detail: str = ""

    def canonical(self) -> bytes:
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":")).encode("utf-8")


class PhysicalStep(BaseModel):
    """One step of the physical pass on a backend file or relation."""

    model_config = ConfigDict(frozen=True)

    backend: str
    """``sqlite``, ``postgresql``, ``chroma-embedded``, ``chroma-server``."""
    target: str
    """The file, table or collection."""
    action: str
    """``secure_delete``, ``wal_checkpoint(TRUNCATE)``, ``fts5 optimize``, ``VACUUM``, ``rebuild``…"""
    ok: bool = True
    detail: str = ""


def chain_hash(request_id: str, steps: Sequence[ErasureStep]) -> str:
    """The last link of the SHA-256 chain over ``steps``, seeded with the request id."""
    link = hashlib.sha256(f"deltacore-forget:{request_id}".encode()).digest()
    for step in steps:
        link = hashlib.sha256(link + step.canonical()).digest()
    return link.hex()


class ForgetState(StrEnum):
    PENDING = "pending"
    """Journaled, not started (or interrupted before the first step)."""
    RUNNING = "running"
    """Interrupted mid-way: resumed on the next open of the store."""
    COMPLETED = "completed"
    NOTHING_FOUND = "nothing_found"
    """Completed, and nothing in the store matched the request."""


class ForgetCertificate(BaseModel):
    """What one forget request erased, and the proof of it.

    ``counts`` is per artifact class (what was deleted or rewritten); ``facts_*`` and
    ``schemas_*`` are what re-derivation changed; ``physical`` lists what the backend pass did to
    each file. For a dry run nothing was erased: ``counts`` is what *would* go and ``samples``
    shows a few of the matched texts (a dry-run certificate is for the operator's eyes only, and
    is the only one that carries content).
    """

    model_config = ConfigDict(frozen=True)

    request_id: str
    tenant: str
    mode: ForgetMode
    requester: str | None = None
    reason: str | None = None
    deadline: datetime | None = None
    subject_hmac: str | None = None
    """HMAC of the subject and identifiers (``subject_hmac``), ``None`` for id- or scope-only requests."""
    dry_run: bool = False
    nothing_found: bool = False
    """True when nothing in the store matched: an explicit answer, never a silent success."""
    counts: dict[str, int] = Field(default_factory=dict)
    memories: int = 0
    """Of the events erased, how many were a memory's current version (a memory updated twice
    is three events and one memory): what a framework counts as "records deleted"."""
    facts_modified: int = 0
    facts_deleted: int = 0
    schemas_modified: int = 0
    schemas_deleted: int = 0
    dp_epsilon: float | None = None
    """The request's ε when DP noise was applied to influenced utilities (the seed's ``dp_epsilon``)."""
    dp_noised: int = 0
    """Utilities given Gaussian noise; ``dp_sigma`` is the largest noise scale used."""
    dp_sigma: float = 0.0
    physical: list[PhysicalStep] = Field(default_factory=list)
    steps: list[ErasureStep] = Field(default_factory=list)
    """The erasure log, in order; ``audit_hash`` chains over it."""
    audit: Any = None
    """The ``AuditResult`` of ``deltacore.compliance.audit`` for mode ``VERIFIED``, else ``None``."""
    audit_hash: str = ""
    samples: dict[str, list[str]] = Field(default_factory=dict)
    """Dry run only: a few matched texts per artifact class."""
    limits: list[str] = Field(default_factory=list)
    """What this backend cannot guarantee (PostgreSQL WAL and backups, a Chroma server's files…)."""
    started_at: datetime = Field(default_factory=utc_now)
    completed_at: datetime = Field(default_factory=utc_now)

    @property
    def erased(self) -> int:
        """Total artifacts deleted or rewritten."""
        return sum(self.counts.values())

    def verify_chain(self) -> bool:
        """True when ``audit_hash`` is the chain over ``steps``: the log was not altered."""
        return bool(self.audit_hash) and hmac.compare_digest(self.audit_hash, chain_hash(self.request_id, self.steps))

    def is_about(self, key: bytes, terms: Iterable[str]) -> bool:
        """True when this certificate's subject is ``terms`` (needs the store's HMAC key)."""
        return self.subject_hmac is not None and hmac.compare_digest(self.subject_hmac, subject_hmac(key, terms))


class ForgetStatus(BaseModel):
    """Where a forget request stands, as the store's journal records it (no content)."""

    model_config = ConfigDict(frozen=True)

    request_id: str
    state: ForgetState
    tenant: str
    mode: ForgetMode
    subject_hmac: str | None = None
    phase: str = ""
    """The last durable phase reached (``selected``, ``logical``, ``physical``, ``audited``)."""
    audit_hash: str = ""
    counts: dict[str, int] = Field(default_factory=dict)
    created_at: datetime
    completed_at: datetime | None = None
