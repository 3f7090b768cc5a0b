"""Failures by kind: a transient failure (timeout, rate limit, "temporarily unavailable", or a
later identical call that went through) says nothing about the plan; a permanent one (schema
error, permission denied, wrong arguments) counts against it.

Pure functions. A tool result reports a failure with ``meta["error"]`` — ``True``, a message, or
``{"kind": "transient" | "permanent" | None, "type": "<exception class>", "message": str}`` as
the adapters record it — or a failed ``status``. The kind is, in order: declared after the fact
(``declare_failure``), given in ``meta["error"]["kind"]``, a later identical call in the same
episode that succeeded (transient), then read from the exception type and message. An error
nothing explains is permanent: an unexplained failure is evidence against the plan.

>>> classify({"type": "TimeoutError", "message": "read timed out"})
'transient'
>>> classify({"type": "ValidationError", "message": "field required: env"})
'permanent'
>>> classify({"type": "RuntimeError", "message": "boom"}, retried_ok=True)
'transient'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from deltacore.errors import InvalidQueryError

KINDS = ("transient", "permanent")
FAILED_STATUS = frozenset({"error", "failed", "failure"})

_TRANSIENT_TYPES = re.compile(
    r"timeout|timedout|ratelimit|toomanyrequests|transient|temporar|unavailable|connection(reset|aborted|refused)?error"
    r"|serviceunavailable|throttl|retry|busy|brokenpipe",
    re.IGNORECASE,
)
_TRANSIENT_TEXT = re.compile(
    r"time[sd]?[ -]?out|timed out|rate[ -]?limit|too many requests|\b429\b|\b503\b|\b502\b|\b504\b|temporar(il)?y"
    r"|unavailable|try again|retry later|connection (reset|refused|aborted)|throttl|flak|overloaded|busy",
    re.IGNORECASE,
)
_PERMANENT_TYPES = re.compile(
    r"validation|schema|typeerror|valueerror|keyerror|permission|forbidden|unauthori[sz]ed|auth|notfound|invalid"
    r"|argument|parameter|notimplemented|lookup",
    re.IGNORECASE,
)


def error_of(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The error a tool result reports, as ``{"kind", "type", "message"}``; None when it did not fail."""
    meta = meta or {}
    error = meta.get("error")
    if isinstance(error, Mapping):
        kind = error.get("kind")
        return {
            "kind": kind if kind in KINDS else None,
            "type": str(error.get("type") or ""),
            "message": str(error.get("message") or ""),
        }
    if error is True or (isinstance(error, str) and error.strip()):
        return {
            "kind": None,
            "type": "",
            "message": error if isinstance(error, str) else "",
        }
    if str(meta.get("status", "")).lower() in FAILED_STATUS:
        return {"kind": None, "type": "", "message": str(meta.get("message") or "")}
    return None


def classify(
    error: Mapping[str, Any], *, retried_ok: bool = False, declared: str | None = None
) -> str:
    """``"transient"`` or ``"permanent"`` for one failed tool result (see the module)."""
    if declared in KINDS:
        return declared
    if error.get("kind") in KINDS:
        return str(error["kind"])
    if retried_ok:
        return "transient"
    kind_name, message = str(error.get("type") or ""), str(error.get("message") or "")
    if _TRANSIENT_TYPES.search(kind_name):
        return "transient"
    if _PERMANENT_TYPES.search(kind_name):
        return "permanent"
    if _TRANSIENT_TEXT.search(message):
        return "transient"
    return "permanent"


def check_kind(kind: Any) -> str:
    """A declared kind, or a field-named error."""
    if kind not in KINDS:
        raise InvalidQueryError(
            "kind", f"must be 'transient' or 'permanent', got {kind!r}"
        )
    return str(kind)
