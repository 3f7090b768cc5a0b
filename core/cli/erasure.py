"""``deltacore verify-erasure``: audit that a subject is gone from a store.

Exit status: 0 ``ERASURE_VERIFIED``; 1 ``ERASURE_INCOMPLETE`` (something of the subject was
found: the findings are printed) or a backend failed; 2 usage error; 3 ``INCONCLUSIVE`` (nothing
found, but a retained control was not seen either: the audit could not have seen the subject;
or only a certificate was given, without the subject's strings); 4 ``CERTIFICATE_INVALID``
(its hash chain is broken, or the store's journal or the subject HMAC disagree).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from deltacore.compliance import ForgetCertificate
from deltacore.compliance.audit import AuditResult, AuditVerdict

EXIT_INCONCLUSIVE = 3
EXIT_CERTIFICATE_INVALID = 4
_EXIT = {
    AuditVerdict.ERASURE_VERIFIED: EXIT_OK,
    AuditVerdict.ERASURE_INCOMPLETE: EXIT_FAILED,
    AuditVerdict.INCONCLUSIVE: EXIT_INCONCLUSIVE,
    AuditVerdict.CERTIFICATE_INVALID: EXIT_CERTIFICATE_INVALID,
}


def add_parser(commands: Any, store_options: Callable[..., None]) -> None:
    """Register ``verify-erasure`` (called by ``deltacore.cli.parser`` with its store options)."""
    verify = commands.add_parser(
        "verify-erasure",
        help="audit that a subject is gone (probes, byte scan, membership test)",
        description="Audit that a subject is gone from the store: probe every router with its "
        "identifiers, scan every file under the store folder (SQLite, -wal, Chroma) for them in "
        "UTF-8, UTF-16, JSON-escaped, case-folded and base64 forms, scan every text column with "
        "SQL (and pg_dump on PostgreSQL), and run the membership-inference test. Retained "
        "controls must still be found, or the audit is INCONCLUSIVE. Exit 0 verified, 1 "
        "something of the subject was found, 3 inconclusive, 4 the certificate is invalid.",
    )
    verify.add_argument("subject", nargs="?", default=None, help="the subject's name")
    verify.add_argument(
        "--identifier",
        action="append",
        default=[],
        metavar="TEXT",
        help="another identifier (alias, e-mail…; repeatable)",
    )
    verify.add_argument(
        "--control",
        action="append",
        default=None,
        metavar="NAME",
        help="a retained subject the audit must still see (repeatable; default: the store's most frequent entities)",
    )
    verify.add_argument(
        "--question",
        action="append",
        default=[],
        metavar="TEXT",
        help="a question the erased memories answered (repeatable)",
    )
    verify.add_argument(
        "--certificate",
        metavar="FILE",
        default=None,
        help="a ForgetCertificate (JSON): check its hash chain and the store's journal; with the subject's "
        "name or --identifier, check it is about them and audit them",
    )
    verify.add_argument("--no-files", action="store_true", help="skip the byte scan of the store's files")
    verify.add_argument("--json", action="store_true", help="print the full AuditResult as JSON")
    store_options(verify, top_level=False)
    verify.set_defaults(handler=run_verify_erasure)


def run_verify_erasure(args: argparse.Namespace) -> int:
    if args.subject is None and not args.identifier and args.certificate is None:
        raise UsageError("name the subject: deltacore verify-erasure NAME [--identifier TEXT …] [--certificate FILE]")
    tenant = args.tenant if args.tenant is not None else "default"
    certificate = _read_certificate(args.certificate) if args.certificate is not None else None
    identifiers = list(args.identifier)
    if certificate is not None and args.subject is not None:
        identifiers.insert(0, args.subject)
    with open_store(args) as memory:
        result = memory.verify_erasure(
            certificate if certificate is not None else args.subject,
            identifiers=identifiers,
            controls=args.control,
            questions=args.question,
            tenant=tenant,
            scan_files=not args.no_files,
        )
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(summary(result))
    return _EXIT[result.verdict]


def _read_certificate(path: str) -> ForgetCertificate:
    from pydantic import ValidationError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the certificate {path}: {exc.strerror or exc}") from exc
    try:
        return ForgetCertificate.model_validate_json(text)
    except ValidationError as exc:
        raise UsageError(f"{path} is not a ForgetCertificate (JSON): {exc.errors()[0]['msg']}") from exc


def summary(result: AuditResult) -> str:
    """A few lines a person reads: the verdict, then where anything was found."""
    lines = [f"{result.verdict.value}  ({result.identifiers} identifier(s), {result.seconds:.1f} s)"]
    if result.certificate is not None:
        cert = result.certificate
        lines.append(
            f"  certificate {cert.request_id}: hash chain {'valid' if cert.chain_valid else 'BROKEN'} over "
            f"{cert.steps} step(s); journal {_yes_no(cert.journal_match)}; subject {_yes_no(cert.subject_match)}"
        )
    for check in result.store_checks:
        lines.append(f"  {'ok' if check.ok else 'FAILED'}: {check.name} ({check.detail})")
    for probe in result.routers:
        lines.append(f"  router {probe.router:<9} {probe.hits}/{probe.probes} probes returned the subject")
    lines.append(f"  files scanned: {len(result.files)} ({sum(f.size for f in result.files)} bytes)")
    for finding in result.byte_findings:
        where = f" in {finding.region}" if finding.region else ""
        lines.append(
            f"  residue: {finding.file} [{finding.file_class.value}] identifier {finding.identifier} "
            f"as {finding.encoding} at byte {finding.offset}{where} (x{finding.count})"
        )
    for vector in result.vector_findings:
        lines.append(
            f"  vector {vector.vector}: {vector.file} {vector.match} at byte {vector.offset} cos {vector.cosine:.3f}"
        )
    for row in result.sql_findings:
        lines.append(f"  sql: {row.table}.{row.column} holds identifier {row.identifier} ({row.rows} rows)")
    if result.membership is not None:
        m = result.membership
        lines.append(
            f"  membership: subject {m.subject_mean:.3f} vs baseline {m.baseline_mean:.3f}, p={m.p_value:.3f}"
            f" ({'detected' if m.detected else 'not detected'})"
        )
    if result.control_membership is not None:
        c = result.control_membership
        lines.append(f"  control membership: p={c.p_value:.3f} ({'detected' if c.detected else 'NOT detected'})")
    for control in result.controls:
        lines.append(
            f"  control {control.control}: {'seen' if control.seen else 'NOT SEEN'} "
            f"(probes {control.probe_hits}, bytes {control.byte_hits}, sql {control.sql_hits})"
        )
    for item in result.not_checked:
        lines.append(f"  not checked: {item.what}: {item.why}")
    return "\n".join(lines)


def _yes_no(value: bool | None) -> str:
    return "not checked" if value is None else "matches" if value else "DOES NOT MATCH"
