"""``deltacore forget``: erase a subject from a store and print (or save) the certificate.

Without ``--yes`` it runs a dry run and asks for confirmation on a terminal (refuses when
stdin is not one); ``--dry-run`` only lists what would go. Exit status: 0 erased, 1 nothing
matched (an explicit answer, never a silent success) or a backend failed, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, UsageError
from deltacore.compliance import ForgetCertificate, ForgetMode, InvalidForgetRequestError, coerce_requests


def add_parser(commands: Any, store_options: Callable[..., None], timestamp: Callable[[str], Any]) -> None:
    """Register ``forget`` (called by ``deltacore.cli.parser``)."""
    forget = commands.add_parser(
        "forget",
        help="erase a subject everywhere and print the certificate",
        description="Erase a subject (a name, a user id), every copy of their data and everything "
        "derived from it; re-derive facts from what remains; run the physical pass on every backend "
        "file; print the ForgetCertificate. Asks for confirmation unless --yes.",
    )
    forget.add_argument("subject", nargs="?", default=None, help="the subject's name or id")
    forget.add_argument("--identifier", action="append", default=[], metavar="TEXT", help="another identifier (alias, e-mail, phone…; repeatable)")
    forget.add_argument("--event-id", action="append", default=[], metavar="ID", help="an event to erase (repeatable)")
    forget.add_argument("--source", default=None, help="erase a source's own writes and its reputation")
    forget.add_argument("--user-id", default=None, help="erase every event of this user")
    forget.add_argument("--mode", default="full", choices=[m.value for m in ForgetMode], help="how far the erasure goes (default full)")
    forget.add_argument("--requester", default=None, help="who asked (kept in the certificate)")
    forget.add_argument("--reason", default=None, help="why (e.g. 'GDPR art. 17')")
    forget.add_argument("--deadline", type=timestamp, default=None, metavar="ISO", help="the regulatory deadline (ISO 8601)")
    forget.add_argument("--dry-run", action="store_true", help="list what would be erased, erase nothing")
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    forget.add_argument("--certificate", metavar="FILE", default=None, help="also write the certificate (JSON) to FILE")
    store_options(forget, top_level=False)
    forget.set_defaults(handler=run_forget)


def run_forget(args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {
        "identifiers": args.identifier,
        "event_ids": args.event_id,
        "source": args.source,
        "user_id": args.user_id,
        "mode": args.mode,
        "requester": args.requester,
        "reason": args.reason,
        "deadline": args.deadline,
        "tenant": args.tenant if args.tenant is not None else "default",
    }
    if args.subject is not None:
        fields["subject"] = args.subject
    try:
        (request,) = coerce_requests(**{k: v for k, v in fields.items() if v not in (None, [])})
    except InvalidForgetRequestError as exc:
        raise UsageError(str(exc)) from None
    with open_store(args) as memory:
        preview = memory.forget(request, dry_run=True)
        if args.dry_run or preview.nothing_found:
            print(summary(preview))
            return EXIT_OK if args.dry_run and not preview.nothing_found else EXIT_FAILED
        if not args.yes:
            print(summary(preview))
            if not sys.stdin.isatty():
                raise UsageError("not a terminal: confirm with --yes (or look first with --dry-run)")
            if input("Erase all of this? [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing erased")
                return EXIT_FAILED
        certificate = memory.forget(request)
    print(summary(certificate))
    if args.certificate:
        Path(args.certificate).write_text(certificate.model_dump_json(indent=2), encoding="utf-8")
        print(f"certificate written to {args.certificate}")
    return EXIT_OK


def summary(cert: ForgetCertificate) -> str:
    """What a person reads: what was (or would be) erased, the physical steps, the hash."""
    if cert.nothing_found:
        return f"nothing found for request {cert.request_id}: no data of this subject in tenant {cert.tenant!r}"
    verb = "would erase" if cert.dry_run else "erased"
    lines = [f"request {cert.request_id} ({cert.mode.value}) {verb}:"]
    lines.extend(f"  {artifact:<22} {count}" for artifact, count in sorted(cert.counts.items()))
    for artifact, samples in sorted(cert.samples.items()):
        lines.extend(f"  sample {artifact}: {sample}" for sample in samples)
    if not cert.dry_run:
        lines.append(f"  facts re-derived {cert.facts_modified}, deleted {cert.facts_deleted}")
        failed = [p for p in cert.physical if not p.ok]
        lines.append(f"  physical steps: {len(cert.physical)} ({len(failed)} failed)")
        lines.extend(f"    FAILED {p.backend} {p.target}: {p.action}: {p.detail}" for p in failed)
        lines.append(f"  audit_hash {cert.audit_hash} (chain {'valid' if cert.verify_chain() else 'BROKEN'})")
        if cert.audit is not None:
            lines.append(f"  audit: {getattr(cert.audit, 'verdict', cert.audit)}")
    lines.extend(f"  limit: {limit}" for limit in cert.limits)
    return "\n".join(lines)
