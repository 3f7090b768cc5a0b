"""What an erasure audit found: :class:`AuditResult` and its parts.

A result never holds the subject's strings: findings name the identifier by its position in the
``identifiers`` the caller passed (the caller has them; a certificate that embeds the result
must not). It does hold file paths (relative to the scanned folder) and byte offsets, so a person
can look at the bytes themselves.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from deltacore.model.base import FROZEN


class AuditVerdict(StrEnum):
    """The seed's two outcomes, plus the one a blind audit gets."""

    ERASURE_VERIFIED = "ERASURE_VERIFIED"
    """Nothing of the subject was found, and the controls show the audit could have found it."""
    ERASURE_INCOMPLETE = "ERASURE_INCOMPLETE"
    """Something of the subject was found (see the findings)."""
    INCONCLUSIVE = "INCONCLUSIVE"
    """Nothing was found, but a control the audit should have seen was not seen (or no control
    was given, or only a certificate without the subject's strings): the audit cannot tell an
    erased subject from a check that looked nowhere."""
    CERTIFICATE_INVALID = "CERTIFICATE_INVALID"
    """The certificate's hash chain does not match its log, the store's journal records another
    hash, or the certificate is about another subject."""


class FileClass(StrEnum):
    """Where a scanned file belongs, so residue can be reported per kind of store file."""

    SQLITE_DB = "sqlite-db"
    SQLITE_WAL = "sqlite-wal"
    SQLITE_SHM = "sqlite-shm"
    SQLITE_JOURNAL = "sqlite-journal"
    CHROMA_SQLITE = "chroma-sqlite"
    CHROMA_SQLITE_WAL = "chroma-sqlite-wal"
    HNSW_DATA = "hnsw-data"
    """``data_level0.bin``: vectors, links and labels of an HNSW segment."""
    HNSW_OTHER = "hnsw-other"
    """The segment's header, link lists, lengths and pickled metadata."""
    PG_DUMP = "pg-dump"
    """The text of ``pg_dump`` of the database (PostgreSQL)."""
    PG_RELATION = "pg-relation"
    """A PostgreSQL relation file read through ``pg_read_binary_file`` (heap, TOAST, index)."""
    OTHER = "other"


class RouterProbe(BaseModel):
    """What one router returned for the probes: how many probes, how many hit the subject."""

    model_config = FROZEN

    router: str
    probes: int = Field(ge=0)
    hits: int = Field(ge=0)
    """Probes for which this router returned a memory of the subject."""


class ProbeFinding(BaseModel):
    """A probe that returned a memory of the subject."""

    model_config = FROZEN

    router: str
    probe: int = Field(ge=0)
    """Position of the probe in the audit's probe list (``AuditResult.probe_count``)."""
    event_id: str
    rank: int = Field(ge=1)
    identifier: int = Field(ge=0)
    """Which identifier the returned memory holds (position in ``identifiers``)."""


class ByteFinding(BaseModel):
    """An identifier's bytes found in a file."""

    model_config = FROZEN

    file: str
    """Path relative to the scanned folder (or ``pg_dump``, or the relation's name)."""
    file_class: FileClass
    identifier: int = Field(ge=0)
    encoding: str
    """``utf-8``, ``utf-16-le``, ``utf-16-be``, ``json-escaped``, ``base64-0/1/2`` (the
    alignment), each optionally with ``+casefold`` / ``+nfkc`` / ``+token`` for the variant."""
    offset: int = Field(ge=0)
    """Byte offset of the first occurrence."""
    count: int = Field(ge=1)
    """Occurrences in this file with this encoding."""
    length: int = Field(ge=1)
    """Bytes of one occurrence (``count * length`` residue bytes)."""
    region: str | None = None
    """What holds the offset when it is known: a SQLite table or index (``dc_events_fts_data``),
    ``free page``, a ``-wal`` frame."""


class VectorFinding(BaseModel):
    """One of the given vectors found in a file, exactly or as a near-duplicate."""

    model_config = FROZEN

    file: str
    file_class: FileClass
    vector: int = Field(ge=0)
    """Position of the vector in ``vectors``."""
    match: str
    """``float32``, ``float16`` (exact byte pattern) or ``near-duplicate``."""
    offset: int = Field(ge=0)
    count: int = Field(ge=1)
    length: int = Field(ge=1)
    """Bytes of one occurrence (dimension × 4 or × 2)."""
    cosine: float
    """1.0 for an exact pattern; the best cosine of a near-duplicate."""


class SQLFinding(BaseModel):
    """An identifier found by an SQL scan of a text column (what a database client can see)."""

    model_config = FROZEN

    table: str
    column: str
    identifier: int = Field(ge=0)
    rows: int = Field(ge=1)


class MembershipTest(BaseModel):
    """The seed's membership-inference test: are probes about a subject answered with more
    confidence than the same probes about names never stored?

    Confidence of a probe = the best cosine between the probe and the memories it retrieved (the
    store's embedder); of a name, the mean over its probes. Samples are names. ``p_value`` is
    one-sided, by permutation (subject > baseline); the statistic is Welch's t."""

    model_config = FROZEN

    n_subject: int = Field(ge=0)
    n_baseline: int = Field(ge=0)
    subject_mean: float
    baseline_mean: float
    t_statistic: float
    p_value: float = Field(ge=0.0, le=1.0)
    detected: bool
    """``p_value < alpha``: the subject's influence is detectable."""


class Control(BaseModel):
    """A retained subject the audit must see; if it does not, the audit is blind."""

    model_config = FROZEN

    control: int = Field(ge=0)
    """Position in ``controls``."""
    probe_hits: int = Field(ge=0)
    byte_hits: int = Field(ge=0)
    sql_hits: int = Field(ge=0)
    seen: bool
    """Found by at least one check that ran (probes, byte scan or SQL scan)."""


class NotChecked(BaseModel):
    """Something the audit did not or could not look at, and why."""

    model_config = FROZEN

    what: str
    why: str


class CertificateCheck(BaseModel):
    """What was checked of a :class:`~deltacore.compliance.ForgetCertificate`."""

    model_config = FROZEN

    request_id: str
    chain_valid: bool
    """``audit_hash`` is the SHA-256 chain over the certificate's erasure log."""
    journal_match: bool | None = None
    """The store's forget journal records the same ``audit_hash`` (None: no record to compare)."""
    subject_match: bool | None = None
    """The certificate's subject HMAC is that of the identifiers given (None: not checked)."""
    steps: int = Field(default=0, ge=0)


class StoreCheck(BaseModel):
    """A property of the store a finished physical pass leaves true, whoever the subject was."""

    model_config = FROZEN

    name: str
    ok: bool
    detail: str = ""


class ScannedFile(BaseModel):
    model_config = FROZEN

    file: str
    file_class: FileClass
    size: int = Field(ge=0)
    unused_bytes: int = Field(default=0, ge=0)
    """Trailing bytes not searched for text: an HNSW segment's capacity past its element count,
    which holds uninitialised memory, not the store's data."""


class AuditResult(BaseModel):
    """Everything one erasure audit checked and found.

    ``passed`` is true only for ``ERASURE_VERIFIED``: no probe, byte, vector or SQL finding, the
    membership test does not detect the subject, and every control was seen (a blind audit
    cannot pass).
    """

    model_config = FROZEN

    verdict: AuditVerdict
    identifiers: int = Field(ge=0)
    """How many identifiers were searched for (their text is not kept)."""
    probe_count: int = Field(ge=0)
    routers: tuple[RouterProbe, ...] = ()
    probe_findings: tuple[ProbeFinding, ...] = ()
    files: tuple[ScannedFile, ...] = ()
    byte_findings: tuple[ByteFinding, ...] = ()
    vector_findings: tuple[VectorFinding, ...] = ()
    sql_findings: tuple[SQLFinding, ...] = ()
    membership: MembershipTest | None = None
    control_membership: MembershipTest | None = None
    """The same test for the retained controls: it must detect them."""
    controls: tuple[Control, ...] = ()
    control_vectors: int = Field(default=0, ge=0)
    """Retained vectors given as controls."""
    control_vectors_seen: int = Field(default=0, ge=0)
    """How many of them the byte scan found (all must be, or the audit is blind)."""
    not_checked: tuple[NotChecked, ...] = ()
    certificate: CertificateCheck | None = None
    store_checks: tuple[StoreCheck, ...] = ()
    encodings: tuple[str, ...] = ()
    """The encodings the byte scan searched for."""
    seconds: float = Field(default=0.0, ge=0.0)

    @property
    def passed(self) -> bool:
        return self.verdict is AuditVerdict.ERASURE_VERIFIED

    @property
    def failed(self) -> bool:
        return self.verdict is AuditVerdict.ERASURE_INCOMPLETE

    def residue_bytes(self) -> dict[str, int]:
        """Bytes of the subject found per file class (strings and vectors; overlapping
        encodings of one occurrence count once each)."""
        totals: dict[str, int] = {}
        for finding in (*self.byte_findings, *self.vector_findings):
            key = finding.file_class.value
            totals[key] = totals.get(key, 0) + finding.count * finding.length
        return totals
