"""The erasure audit part of the ``DeltaCore`` facade: ``verify_erasure``.

The audit itself lives in ``deltacore.compliance.audit``, below the engine; this mixin hands it
the store as an :class:`~deltacore.compliance.audit.AuditTarget` (folder, database URL, a probe
through one router of the read path, the embedder) and picks retained controls when the caller
gives none.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deltacore.compliance import ForgetCertificate
from deltacore.compliance.audit import DEFAULT_ROUTE, AuditResult, ProbeHit, audit_certificate, audit_erasure
from deltacore.config import DeltaCoreConfig
from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.gateway.normalization import fold
from deltacore.model import MemoryPacket, RouterName
from deltacore.retrieval.routers import ROUTERS, Stage

AUTO_CONTROLS = 3
"""Retained subjects the audit picks from the store when the caller names none."""
_CONTROL_SAMPLE = 2000
_FINDING_ROUTERS = tuple(e.name.value for e in ROUTERS if e.stage is Stage.FIND)
_EXPANDERS = frozenset(e.name.value for e in ROUTERS if e.stage is Stage.EXPAND)


class ErasureAuditMethods:
    """Mixed into :class:`~deltacore.DeltaCore`."""

    config: DeltaCoreConfig

    def verify_erasure(
        self,
        subject: Any = None,
        *,
        identifiers: Sequence[str] = (),
        vectors: Sequence[Sequence[float]] | np.ndarray = (),
        controls: Sequence[str] | None = None,
        questions: Sequence[str] = (),
        baseline: Sequence[str] = (),
        erased_event_ids: Sequence[str] = (),
        tenant: str = "default",
        top_k: int = 10,
        alpha: float = 0.05,
        scan_files: bool = True,
        extra_folders: Sequence[Path | str] = (),
    ) -> AuditResult:
        """Audit that a subject is gone: probes through every router, a byte scan of every store
        file (SQLite, ``-wal``, Chroma's SQLite and HNSW files) for the identifiers in UTF-8,
        UTF-16, JSON-escaped, case-folded and base64 forms and for ``vectors``, SQL scans of
        every text column (and ``pg_dump`` on PostgreSQL), and the membership-inference test.

        ``subject`` is the subject's name (added to ``identifiers``), or a
        :class:`~deltacore.compliance.ForgetCertificate`: its hash chain is checked, and its
        ``audit_hash`` against the store's forget journal; a certificate holds only an HMAC of
        the subject, so the probes and scans for the subject run only when ``identifiers`` are
        given (and the HMAC is checked against them). ``controls`` are retained subjects the
        audit must still see; None = a few entities picked from the store.

        >>> import tempfile
        >>> from deltacore import DeltaCore
        >>> from deltacore.testing import FakeEmbedder
        >>> with DeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
        ...     _ = memory.add("Quentin Marlowe asked for a refund", entities=["Quentin Marlowe"])
        ...     _ = memory.add("Beatrix Olafsson renewed her plan", entities=["Beatrix Olafsson"])
        ...     memory.verify_erasure("Quentin Marlowe", controls=["Beatrix Olafsson"]).verdict.value
        'ERASURE_INCOMPLETE'
        """
        # The byte scan reads Chroma's files: a retained control's vector must be there, not pending.
        self._drain_for_read()  # type: ignore[attr-defined]
        certificate = subject if isinstance(subject, ForgetCertificate) else None
        names = _identifiers(None if certificate is not None else subject, identifiers, certificate is not None)
        chosen = list(controls) if controls is not None else self._retained_controls(names, tenant) if names else []
        options: dict[str, Any] = dict(
            vectors=vectors,
            controls=chosen,
            questions=questions,
            baseline=baseline,
            erased_event_ids=erased_event_ids,
            top_k=top_k,
            alpha=alpha,
            scan_files=scan_files,
            extra_folders=extra_folders,
        )
        target = _StoreTarget(self, certificate.tenant if certificate is not None else tenant)
        if certificate is None:
            return audit_erasure(target, names, **options)  # type: ignore[arg-type]
        return audit_certificate(
            target,  # type: ignore[arg-type]
            certificate,
            identifiers=names,
            key=self._erasure_key(),
            journal_hash=self._journal_hash(certificate.request_id),
            **options,
        )

    def _erasure_key(self) -> bytes | None:
        """The store's HMAC key for subjects (kept by the forget layer), or None."""
        reader = getattr(self, "_forget_hmac_key", None)
        return reader() if callable(reader) else None

    def _journal_hash(self, request_id: str) -> str | None:
        """The ``audit_hash`` the store's forget journal holds for ``request_id``, or None."""
        status = getattr(self, "forget_status", None)
        if not callable(status):
            return None
        try:
            return status(request_id).audit_hash or None
        except NotFoundError:
            return None

    def _retained_controls(self, identifiers: Sequence[str], tenant: str) -> list[str]:
        """The most frequent entities of the store that are not the subject's (a retained
        subject the audit must see)."""
        folded = [fold(i) for i in identifiers]
        counts: Counter[str] = Counter()
        for event in self.events(tenant=tenant, limit=_CONTROL_SAMPLE):  # type: ignore[attr-defined]
            for entity in event.entities:
                name = fold(entity)
                if len(name) >= 5 and not any(i in name or name in i for i in folded):
                    counts[entity] += 1
        return [name for name, _ in counts.most_common(AUTO_CONTROLS)]


def _identifiers(subject: Any, identifiers: Sequence[str], certificate: bool) -> list[str]:
    if isinstance(identifiers, str):
        raise InvalidQueryError("identifiers", "give a list of strings, not one string")
    names = list(identifiers)
    if isinstance(subject, str):
        names.insert(0, subject)
    elif subject is not None:
        raise InvalidQueryError(
            "subject", f"give the subject's name or a ForgetCertificate, got {type(subject).__name__}"
        )
    if not names and not certificate:
        raise InvalidQueryError("subject", "name the subject (or give identifiers=[…], or a ForgetCertificate)")
    return names


@dataclass
class _StoreTarget:
    """A ``DeltaCore`` as the audit sees it."""

    memory: Any
    tenant: str

    @property
    def folder(self) -> Path | None:
        config: DeltaCoreConfig = self.memory.config
        # The folder holds SQLite unless a database URL is given, and Chroma unless a server is.
        if config.database_url and config.chroma_url:
            return None
        return config.path.expanduser().absolute()

    @property
    def sql_url(self) -> str:
        return self.memory.config.sql_url

    @property
    def routers(self) -> Sequence[str]:
        return [name.value for name in RouterName]

    def probe(self, text: str, router: str, top_k: int) -> list[ProbeHit]:
        # An expander proposes the neighbours of the finding routers' results, as in a query.
        routers: tuple[str, ...] = ()
        if router in _EXPANDERS:
            routers = (*_FINDING_ROUTERS, router)
        elif router != DEFAULT_ROUTE:
            routers = (router,)
        # A probe names the subject: a honeypot alert it raised would log the probe's text in the
        # security log, a new copy of the subject (measured: dc_security_events.payload after an
        # audit at 10,000 memories). Probes raise none; other threads' queries still do.
        with self.memory._alerts_muted():
            packets = self.memory.query(
                text,
                routers=routers,
                top_k=top_k,
                tenant=self.tenant,
                include_quarantined=True,
                exclude_tainted=False,
            )
        if router in _EXPANDERS:
            packets = [p for p in packets if router in p.routers]
        return [ProbeHit(event_id=p.id, rank=rank, text=_readable(p)) for rank, p in enumerate(packets, start=1)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.memory.embed(texts)


def _readable(packet: MemoryPacket) -> str:
    """Everything of a memory a reader sees: text, names, tool data, deltas."""
    parts = [
        packet.text,
        " ".join(packet.entities),
        packet.actor or "",
        packet.scope.user_id or "",
        packet.tool_name or "",
    ]
    parts.append(json.dumps(packet.meta, ensure_ascii=False, default=str))
    for delta in packet.deltas:
        parts.append(json.dumps(delta.model_dump(mode="json"), ensure_ascii=False))
    return "\n".join(parts)
