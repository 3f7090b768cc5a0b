"""The forget pipeline: select → journal → logical erase → physical pass → certificate.

1. **Select** (:mod:`~deltacore.compliance.selection`) every row the request reaches; a dry run
   stops here and reports counts and samples.
2. **Journal** the selection (ids and HMACs only) in its own transaction: from here a crash
   resumes on the next open (:meth:`Forgetter.resume`).
3. **Logical erase**, one transaction: events with their deltas, links, entity index, mentions,
   full-text rows and queued vector upserts; log rows; source reputation; retained deltas whose
   trigger quoted an erased one are re-derived from their remaining parents and flagged
   ``parent_erased``; retained events drop erased ids from ``parent_ids``; each
   :class:`~deltacore.compliance.derived.DerivedArtifactStore` re-derives what remains. The
   journal's phase moves to ``logical`` in the same transaction.
4. **Physical pass** (modes FULL and VERIFIED), once for a whole batch: vector deletes applied,
   the tenant's collection rebuilt from the live rows, orphan Chroma segments removed, then the
   SQL backend's own clean-up (``deltacore.storage.erasure``).
5. **Certificate**: counts, physical steps, the erasure log and its hash chain; the status
   (no content) replaces the journal row.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from deltacore.compliance.certificate import ErasureStep, ForgetCertificate, ForgetState, PhysicalStep, chain_hash, subject_hmac
from deltacore.compliance.journal import ForgetJournal, hmac_key, value_hmac
from deltacore.compliance.request import ForgetMode, ForgetRequest
from deltacore.compliance.selection import Selection, select_targets
from deltacore.delta.extract import summarize
from deltacore.storage.errors import is_deadlock
from deltacore.storage.erasure import ErasureRepository, chroma_folder_cleanup, postgres_physical, sqlite_physical

log = logging.getLogger(__name__)

TRIGGER_CHARS = 120
PARENT_ERASED = "parent_erased"

POSTGRES_LIMITS = [
    (
        "PostgreSQL: VACUUM FULL rewrites each table and its indexes into new relation files and CHECKPOINT writes "
        "pages out; the dropped files' blocks stay in the file system's free space, and neither reaches WAL segments "
        "already written, WAL archives, replicas or backups (pg_dump files taken before the erasure); erase those by "
        "their own retention"
    ),
]
CHROMA_SERVER_LIMITS = [
    (
        "Chroma server: the tenant's collection is rebuilt without the subject into a new collection and the old "
        "one deleted through the API; the certificate records that the server no longer lists it. A client cannot "
        "reach the server's files: measured with Chroma 1.5.9, a deleted collection's segment folder (HNSW files "
        "with its vectors) stays on the server's disk and its SQLite file keeps deleted rows in free pages. Give "
        "chroma_server_path when the server's --path is on this machine (forget then removes orphan segment "
        "folders and vacuums its SQLite file), or remove them on the server, and check with "
        "verify_erasure(extra_folders=[server path])"
    ),
]
CHROMA_SERVER_FOLDER_LIMITS = [
    (
        "Chroma server: the tenant's collection is rebuilt without the subject into a new collection, the old one "
        "deleted through the API, and in the server's folder (chroma_server_path) orphan segment folders removed and "
        "its SQLite file vacuumed; the server's own log output and the folder's file-system free space are outside "
        "a library's reach"
    ),
]


DEADLOCK_ATTEMPTS = 4
"""Runs of a forget's logical transaction when PostgreSQL keeps choosing it as a deadlock's victim."""


@dataclass
class _Run:
    """One request in flight."""

    request: ForgetRequest
    selection: Selection
    entry_id: int | None = None
    steps: list[ErasureStep] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    memories: int = 0
    dp_noised: int = 0
    dp_sigma: float = 0.0
    facts_modified: int = 0
    facts_deleted: int = 0
    schemas_modified: int = 0
    schemas_deleted: int = 0
    subject_hmac: str | None = None
    started_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def log(self, artifact: str, action: str, count: int, target: str = "", detail: str = "") -> None:
        self.steps.append(ErasureStep(artifact=artifact, action=action, count=count, target=target, detail=detail))
        if count:
            self.counts[artifact] = self.counts.get(artifact, 0) + count


class Forgetter:
    """Runs forget requests against one store's SQL database, vector index and caches."""

    def __init__(
        self,
        sql: Any,
        *,
        derived: Sequence[Any],
        invalidate: Callable[[str], None],
        apply_outbox: Callable[[], int],
        rebuild_vectors: Callable[[str], Any] | None,
        vector_kind: str,
        chroma_folder: Path | None,
        chroma_server_folder: Path | None = None,
        audit: Callable[[ForgetRequest, ForgetCertificate], Any] | None = None,
    ) -> None:
        self._sql = sql
        self._erasure = ErasureRepository()
        self._journal = ForgetJournal()
        self._derived = list(derived)
        self._invalidate = invalidate
        self._apply_outbox = apply_outbox
        self._rebuild_vectors = rebuild_vectors
        self._vector_kind = vector_kind
        self._chroma_folder = chroma_folder
        self._chroma_server_folder = chroma_server_folder
        self.audit = audit

    # ---- entry points ----------------------------------------------------------------------------

    def forget(self, requests: Sequence[ForgetRequest], *, dry_run: bool = False) -> list[ForgetCertificate]:
        runs = []
        for request in requests:
            runs.append(self._select(request, journal=not dry_run))
        if dry_run:
            return [self._dry_certificate(run) for run in runs]
        for run in runs:
            self._logical(run)
        physical = self._physical([run.request for run in runs if run.request.mode.physical and not run.selection.empty])
        return [self._finish(run, physical) for run in runs]

    def status(self, request_id: str) -> Any:
        with self._sql.reader() as conn:
            return self._journal.status(conn, request_id)

    def resume(self) -> int:
        """Finish what a crash interrupted (called on open); returns how many requests resumed."""
        with self._sql.reader() as conn:
            pending = self._journal.pending(conn)
        runs = []
        for entry_id, payload in pending:
            request = _journaled_request(payload["request"])
            run = _Run(request, Selection.from_json(payload["selection"]), entry_id=entry_id, subject_hmac=payload.get("subject_hmac"))
            run.started_at = datetime.fromtimestamp(payload["created_at"], timezone.utc)
            log.warning("resuming forget request %s from phase %s", request.request_id, payload.get("phase"))
            run.log("journal", "resumed", 0, detail=f"from phase {payload.get('phase')}")
            if payload.get("phase") == "selected":
                self._logical(run)
            runs.append(run)
        if runs:
            physical = self._physical([run.request for run in runs if run.request.mode.physical])
            for run in runs:
                self._finish(run, physical)
        return len(runs)

    # ---- phases ----------------------------------------------------------------------------------

    def _select(self, request: ForgetRequest, *, journal: bool) -> _Run:
        with self._sql.writer() as conn:
            key = hmac_key(conn)
            selection = select_targets(conn, self._erasure, request, key, self._derived, erase_events=request.mode.erases_events)
            digest = subject_hmac(key, request.terms()) if request.terms() else None
            run = _Run(request, selection, subject_hmac=digest)
            if journal:
                run.entry_id = self._journal.add(conn, request.tenant, self._payload(run, "selected"))
        run.log("selection", "selected", 0, detail=",".join(f"{k}={v}" for k, v in sorted(selection.counts().items())))
        return run

    def _payload(self, run: _Run, phase: str) -> dict[str, Any]:
        # The request without its terms: they are the content being erased.
        request = run.request.model_dump(mode="json", include={"request_id", "tenant", "mode", "dp_epsilon", "requester", "reason", "deadline", "created_at"})
        return {
            "request_id": run.request.request_id,
            "tenant": run.request.tenant,
            "mode": run.request.mode.value,
            "phase": phase,
            "subject_hmac": run.subject_hmac,
            "created_at": run.started_at.timestamp(),
            "request": request,
            "selection": run.selection.to_json(),
        }

    def _logical(self, run: _Run) -> None:
        """The logical erasure, one transaction. PostgreSQL may abort it to break a deadlock with
        a concurrent writer (a background step updating rows it deletes): nothing of it was
        committed, so it runs again from the same state, a few times."""
        for attempt in range(1, DEADLOCK_ATTEMPTS + 1):
            saved = replace(run, steps=list(run.steps), counts=dict(run.counts))
            try:
                return self._logical_once(run)
            except Exception as exc:
                if attempt == DEADLOCK_ATTEMPTS or not is_deadlock(exc):
                    raise
                log.warning("forget %s: transaction aborted by a deadlock, retrying (%d)", run.request.request_id, attempt)
                for name in (f.name for f in fields(run)):
                    setattr(run, name, getattr(saved, name))
                time.sleep(0.05 * attempt)

    def _logical_once(self, run: _Run) -> None:
        sel, erasure = run.selection, self._erasure
        with self._sql.writer() as conn:
            if sel.event_ids:
                run.memories = erasure.current_versions(conn, sel.event_ids)
                touched_rows = erasure.purge_outbox_upserts(conn, sel.event_ids)
                deleted, n_deltas, n_links = self._sql.delete_events(conn, sel.event_ids)
                run.log("events", "deleted", len(deleted), "dc_events", "with entity index, mentions and full-text rows")
                run.log("deltas", "deleted", n_deltas, "dc_deltas")
                run.log("provenance_links", "deleted", n_links, "dc_delta_links")
                run.log("vectors", "queued for deletion", len(deleted), "outbox", f"{touched_rows} pending upserts dropped")
            for table, keys in sel.rows.items():
                if keys:
                    removed = erasure.delete_rows(conn, table, [tuple(k) for k in keys])
                    run.log(table.removeprefix("dc_"), "deleted", removed, table)
                    if table == "dc_schemas":
                        run.schemas_deleted += removed
            if sel.source_hmacs:
                key = hmac_key(conn)
                wanted = set(sel.source_hmacs)
                rows = [k for k, _text in erasure.scan(conn, "dc_source_reputation", run.request.tenant) if value_hmac(key, k[1]) in wanted]
                run.log("source_reputation", "deleted", erasure.delete_rows(conn, "dc_source_reputation", rows), "dc_source_reputation")
            run.log("deltas_rederived", "rederived", self._rederive_deltas(conn, sel.rewrite_deltas), "dc_deltas", "trigger from remaining parents")
            run.log("events_relinked", "relinked", self._relink_events(conn, run.request.tenant, sel.event_ids), "dc_events", "erased parent ids removed")
            for store in self._derived:
                touched = sel.derived.get(store.artifact, [])
                if not touched:
                    continue
                change = store.rederive(conn, touched, sel.event_ids, dp_epsilon=run.request.dp_epsilon)
                run.log(f"{change.artifact}_rederived", "rederived", change.modified, detail="re-derived from remaining events")
                run.log(change.artifact, "deleted", change.deleted, detail="solely derived from erased events")
                run.log(f"{change.artifact}_approximated", "approximated", change.approximated, detail="history incomplete: steps subtracted")
                if change.noised:
                    run.dp_noised += change.noised
                    run.dp_sigma = max(run.dp_sigma, getattr(store, "last_sigma", 0.0))
                    run.log(f"{change.artifact}_noised", "noised", change.noised,
                            detail=f"gaussian, epsilon={run.request.dp_epsilon}, sigma<={run.dp_sigma:.3g}")  # fmt: skip
                if change.artifact in ("utilities", "reputation"):
                    pass
                elif change.artifact == "facts":
                    run.facts_modified += change.modified
                    run.facts_deleted += change.deleted
                else:
                    run.schemas_modified += change.modified
                    run.schemas_deleted += change.deleted
            if sel.event_ids or any(sel.rows.values()):
                self._sql.bump_version(conn, run.request.tenant)
            if run.entry_id is not None:
                self._journal.set_payload(conn, run.entry_id, self._payload(run, "logical"))
        self._invalidate(run.request.tenant)
        run.log("hot_tier", "invalidated", 0, run.request.tenant)

    def _rederive_deltas(self, conn: Any, delta_ids: Sequence[str]) -> int:
        """A retained delta's trigger is its first remaining parent's description, or says the
        parent was erased; the ``parent_erased`` flag tells a reader provenance was cut."""
        if not delta_ids:
            return 0
        rows = self._erasure.deltas(conn, delta_ids)
        parents = self._erasure.parents_of(conn, list(rows))
        parent_rows = self._erasure.deltas(conn, [p for ps in parents.values() for p in ps])
        for delta_id, row in rows.items():
            remaining = [p for p in parents.get(delta_id, []) if p in parent_rows]
            if remaining:
                parent = parent_rows[remaining[0]]
                trigger = f"{parent['action']}: {summarize(parent['result'], TRIGGER_CHARS)}"
            else:
                trigger = "(parent erased)"
            flags = list(row["conflict_flags"] or [])
            if PARENT_ERASED not in flags:
                flags.append(PARENT_ERASED)
            self._erasure.update_row(conn, "dc_deltas", (delta_id,), {"trigger": trigger, "conflict_flags": flags})
        return len(rows)

    def _relink_events(self, conn: Any, tenant: str, erased: Sequence[str]) -> int:
        if not erased:
            return 0
        gone = set(erased)
        found = self._erasure.events_with_parents(conn, tenant, erased)
        for event_id, parent_ids in found.items():
            self._erasure.update_row(conn, "dc_events", (event_id,), {"parent_ids": [p for p in parent_ids if p not in gone]})
        return len(found)

    def _physical(self, requests: Sequence[ForgetRequest]) -> list[PhysicalStep]:
        """One pass for the whole batch: vectors of every affected tenant, then the SQL files."""
        if not requests:
            return []
        steps: list[PhysicalStep] = []
        applied = self._apply_outbox()
        steps.append(PhysicalStep(backend=self._vector_kind, target="outbox", action="apply vector deletes", detail=f"{applied} rows"))
        for tenant in sorted({r.tenant for r in requests}):
            if self._rebuild_vectors is None:
                steps.append(PhysicalStep(backend=self._vector_kind, target=tenant, action="rebuild collection", ok=False,
                                          detail="another process owns the embedded vector index; run forget there"))
                continue
            steps.extend(self._rebuild(tenant))
        for backend, folder in (("chroma-embedded", self._chroma_folder), ("chroma-server", self._chroma_server_folder)):
            if folder is not None:
                for target, action, ok, detail in chroma_folder_cleanup(folder):
                    steps.append(PhysicalStep(backend=backend, target=target, action=action, ok=ok, detail=detail))
        engine = self._sql.engine
        backend = "sqlite" if self._sql.dialect.is_sqlite else "postgresql"
        results = sqlite_physical(engine) if backend == "sqlite" else postgres_physical(engine)
        steps.extend(PhysicalStep(backend=backend, target=target or backend, action=action, ok=ok, detail=detail)
                     for target, action, ok, detail in results)
        return steps

    def _rebuild(self, tenant: str) -> list[PhysicalStep]:
        """Rebuild the tenant's collection into a new one and delete the old, so a second process
        keeps querying the old one until the swap; the steps say what the index then lists."""
        assert self._rebuild_vectors is not None
        kind = self._vector_kind
        swap = self._rebuild_vectors(tenant)
        if isinstance(swap, int):  # an index without a collection pointer: dropped and refilled in place
            return [PhysicalStep(backend=kind, target=tenant, action="rebuild collection from live rows", detail=f"{swap} vectors")]
        steps = [PhysicalStep(backend=kind, target=tenant, action="rebuild collection from live rows into a new collection",
                              detail=f"{swap.written} vectors into {swap.name}; {swap.caught_up} written meanwhile copied")]
        steps.extend(PhysicalStep(backend=kind, target=tenant, action="rebuild collection: old collection deleted",
                                  ok=name not in swap.remaining, detail=name) for name in swap.dropped)
        steps.append(PhysicalStep(backend=kind, target=tenant, action="rebuild collection: index lists only the new one",
                                  ok=swap.ok, detail=", ".join(swap.remaining)))
        return steps

    # ---- certificates ----------------------------------------------------------------------------

    def _limits(self, request: ForgetRequest) -> list[str]:
        limits = []
        if not request.mode.physical:
            limits.append(f"mode {request.mode.value}: no physical pass; deleted bytes may remain in free pages, "
                          "WAL and vector index files until a FULL forget or reindex()")
        if not self._sql.dialect.is_sqlite:
            limits.extend(POSTGRES_LIMITS)
        if self._vector_kind == "chroma-server":
            limits.extend(CHROMA_SERVER_FOLDER_LIMITS if self._chroma_server_folder is not None else CHROMA_SERVER_LIMITS)
        if request.dp_epsilon is not None:
            limits.append(
                f"DP noise (epsilon={request.dp_epsilon}): the utilities the subject influenced are re-derived from a "
                "noised starting point (sigma = min(1, alpha * updates) / epsilon), so a utility seen before the erasure "
                "does not reveal the subject's contribution; trade-off: those memories rank on a degraded utility"
            )
        return limits

    def _dry_certificate(self, run: _Run) -> ForgetCertificate:
        request, counts = run.request, run.selection.counts()
        return ForgetCertificate(
            request_id=request.request_id, tenant=request.tenant, mode=request.mode, requester=request.requester,
            reason=request.reason, deadline=request.deadline, subject_hmac=run.subject_hmac, dry_run=True,
            nothing_found=run.selection.empty, counts={k: v for k, v in counts.items() if v},
            samples=run.selection.samples, limits=self._limits(request), started_at=run.started_at,
        )

    def _finish(self, run: _Run, physical: list[PhysicalStep]) -> ForgetCertificate:
        request = run.request
        # Every step of the shared pass, except other tenants' collection rebuilds.
        mine = [p for p in physical if not p.action.startswith("rebuild collection") or p.target == request.tenant]
        for step in mine:
            run.log("physical", step.action, 0, step.target, "ok" if step.ok else f"failed: {step.detail}")
        nothing = run.selection.empty
        certificate = ForgetCertificate(
            request_id=request.request_id, tenant=request.tenant, mode=request.mode, requester=request.requester,
            reason=request.reason, deadline=request.deadline, subject_hmac=run.subject_hmac, nothing_found=nothing,
            counts=dict(run.counts), memories=run.memories,
            dp_epsilon=run.request.dp_epsilon, dp_noised=run.dp_noised, dp_sigma=run.dp_sigma,
            facts_modified=run.facts_modified, facts_deleted=run.facts_deleted,
            schemas_modified=run.schemas_modified, schemas_deleted=run.schemas_deleted, physical=mine,
            steps=list(run.steps), audit_hash=chain_hash(request.request_id, run.steps), limits=self._limits(request),
            started_at=run.started_at,
        )
        if request.mode is ForgetMode.VERIFIED and self.audit is not None and not nothing:
            certificate = certificate.model_copy(update={"audit": self.audit(request, certificate)})
        status = {
            "request_id": request.request_id, "tenant": request.tenant, "mode": request.mode.value,
            "state": (ForgetState.NOTHING_FOUND if nothing else ForgetState.COMPLETED).value, "phase": "done",
            "subject_hmac": run.subject_hmac, "audit_hash": certificate.audit_hash, "counts": certificate.counts,
            "created_at": run.started_at.timestamp(), "completed_at": time.time(),
        }
        with self._sql.writer() as conn:
            self._journal.finish(conn, run.entry_id, request.tenant, status)
        return certificate


def _journaled_request(data: dict[str, Any]) -> ForgetRequest:
    """The journaled request, without its terms (never journaled): not re-validated, since it
    selects nothing by itself any more and its deadline may have passed during the crash."""
    deadline = datetime.fromisoformat(data["deadline"]) if data.get("deadline") else None
    return ForgetRequest.model_construct(
        request_id=data["request_id"], tenant=data["tenant"], mode=ForgetMode(data["mode"]), requester=data.get("requester"),
        reason=data.get("reason"), deadline=deadline, created_at=datetime.fromisoformat(data["created_at"]), subject=None,
        identifiers=(), event_ids=(), source=None, agent_id=None, user_id=None, session_id=None, within=None,
        dp_epsilon=data.get("dp_epsilon"),
    )
