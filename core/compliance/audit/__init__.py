"""Layer 8's audit: is anything of an erased subject left? (``audit_erasure``)

Probes through every router, a byte scan of every store file, SQL scans and ``pg_dump``, and the
membership-inference test, each run for retained controls too (a blind audit cannot pass).
``DeltaCore.verify_erasure`` runs it on a store, ``deltacore verify-erasure`` from the shell.
"""

from deltacore.compliance.audit.audit import audit_erasure
from deltacore.compliance.audit.certificate_check import audit_certificate, store_hygiene
from deltacore.compliance.audit.result import (
    AuditResult,
    AuditVerdict,
    ByteFinding,
    CertificateCheck,
    Control,
    FileClass,
    MembershipTest,
    NotChecked,
    ProbeFinding,
    RouterProbe,
    ScannedFile,
    SQLFinding,
    StoreCheck,
    VectorFinding,
)
from deltacore.compliance.audit.target import DEFAULT_ROUTE, AuditTarget, ProbeHit

__all__ = [
    "DEFAULT_ROUTE",
    "AuditResult",
    "AuditTarget",
    "AuditVerdict",
    "ByteFinding",
    "CertificateCheck",
    "Control",
    "FileClass",
    "MembershipTest",
    "NotChecked",
    "ProbeFinding",
    "ProbeHit",
    "RouterProbe",
    "SQLFinding",
    "ScannedFile",
    "StoreCheck",
    "VectorFinding",
    "audit_certificate",
    "audit_erasure",
    "store_hygiene",
]
