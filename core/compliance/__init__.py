"""Layer 8: forget verifiably.

``forget`` finds a subject everywhere (entity index, mentions, tool arguments and results,
folded text, the request's identifiers, a source's own writes), erases every copy and what was
derived from it, re-derives what remains, runs the physical pass on each backend and issues a
:class:`ForgetCertificate`. ``deltacore.compliance.audit`` verifies it.
"""

from deltacore.compliance.certificate import (
    ErasureStep,
    ForgetCertificate,
    ForgetState,
    ForgetStatus,
    PhysicalStep,
    chain_hash,
    subject_hmac,
)
from deltacore.compliance.request import ForgetMode, ForgetRequest, ForgetWithin, InvalidForgetRequestError, coerce_requests

__all__ = [
    "ErasureStep",
    "ForgetCertificate",
    "ForgetMode",
    "ForgetRequest",
    "ForgetState",
    "ForgetWithin",
    "ForgetStatus",
    "InvalidForgetRequestError",
    "PhysicalStep",
    "chain_hash",
    "coerce_requests",
    "subject_hmac",
]
