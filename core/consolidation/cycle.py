"""One consolidation cycle: plan (reads only), apply (short transactions), shadow-evaluate, keep
or roll back.

Crash safety: everything a cycle changes — merged memories, hidden originals, derivations,
COLD partitions listed and their events removed from SQL — is written in short transactions
(``apply.py``), each of which also rewrites the cycle's undo journal and marks it ``applied``. A
Parquet file is written inside its transaction before it commits; if the process dies first,
the file is an orphan nobody lists and the next open removes it. A cycle left ``applied`` by a
dead process never passed its gate, so the next open rolls it back from its journal: after a
``kill -9`` the store is as before the cycle or as after an accepted one, never half.

The cycle steps aside for user queries of its process (``pacing.py``): its probe queries,
planning slices and apply transactions each wait, boundedly, while a query is in flight.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from deltacore.config import ConsolidationPolicy
from deltacore.consolidation import gate
from deltacore.consolidation.apply import apply_plan
from deltacore.consolidation.errors import ConsolidationBusyError
from deltacore.consolidation.nrem import (
    Candidate,
    PlanCounters,
    is_anchor,
    plan_merges,
    reconstruct,
)
from deltacore.consolidation.pacing import Pacer, QueryActivity
from deltacore.consolidation.schemas import (
    SchemaAudit,
    SchemaConsolidation,
    SchemaPlan,
)
from deltacore.consolidation.tiering import prune_candidates
from deltacore.gateway.consolidation_guard import TrustGuard
from deltacore.model import ConsolidationPhase, ConsolidationReport, new_id
from deltacore.storage.cold_archive import ColdArchive
from deltacore.storage.cold_archive import available as cold_available
from deltacore.storage.consolidation_store import ConsolidationRepository
from sqlalchemy import func, select

log = logging.getLogger(__name__)

ALL_PHASES = (ConsolidationPhase.NREM, ConsolidationPhase.PRUNE, ConsolidationPhase.REM)
RECENT_DAYS = 7.0
"""Spindles: a memory retrieved within this many days is 'recently used'."""
PLAN_SLICE = 25
"""Candidates read (their fact slots extracted: ~10 ms each) between two pacing yield points."""

ProbeSearch = Callable[[str, str, dict[str, Any]], list[str]]
"""(probe text, tenant, the cycle's probe vectors by text) -> event ids, best first. The vectors
dict is filled by the first search of a text and replayed by the second, so the gate embeds each
probe once: the same vector before and after the apply."""


def owner_tag() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname():
        return True  # another machine's cycle: only it knows (its next open recovers it)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return True


class Consolidator:
    """Runs cycles for the facade; every collaborator is passed in (nothing above this layer)."""

    def __init__(
        self,
        sql: Any,
        archive: ColdArchive,
        policy: ConsolidationPolicy,
        guard: TrustGuard,
        claims: Callable[[dict[str, Any]], dict[tuple[str, str], str]],
        search: ProbeSearch,
        drain: Callable[[], int],
        invalidate: Callable[[str], None],
        rate_per_hour: float,
        schemas: SchemaConsolidation | None = None,
        activity: QueryActivity | None = None,
    ) -> None:
        self.sql = sql
        self.repo = ConsolidationRepository(sql)
        self.archive = archive
        self.policy = policy
        self.guard = guard
        self.claims = claims
        self.search = search
        self.drain = drain
        self.invalidate = invalidate
        self.rate = rate_per_hour
        self.schemas = schemas
        self.activity = activity
        """This process's user queries in flight: what the cycle steps aside for (None: never)."""

    def pacer(self) -> Pacer:
        policy = self.policy
        return Pacer(self.activity, wait_seconds=policy.yield_wait_seconds, total_seconds=policy.yield_total_seconds,
                     enabled=policy.yield_to_queries)

    def _probe(self, pacer: Pacer, tenant: str, vectors: dict[str, Any]) -> Callable[[str], list[str]]:
        """One gate probe per pacing step, each a full query through every router."""
        def search(text: str) -> list[str]:
            pacer.step()
            return self.search(text, tenant, vectors)
        return search

    # ---- a cycle ---------------------------------------------------------------------------------

    def run(self, tenant: str, phases: Sequence[ConsolidationPhase], budget: float | None = None,
            progress: Callable[[str, int, int], None] | None = None) -> ConsolidationReport:
        started = time.monotonic()
        deadline = started + budget if budget is not None else None
        cycle_id = new_id()
        threshold = self.threshold(tenant)
        with self.sql.writer() as conn:
            if self.sql.dialect.advisory_locks:
                # Two processes must not both find no running cycle and both start one.
                key = int(hashlib.sha256(tenant.encode()).hexdigest()[:12], 16)
                conn.execute(select(func.pg_advisory_xact_lock(key)))
            for row in self.repo.cycles(conn, tenant, statuses=("running", "applied")):
                if owner_alive(row["owner"]):
                    raise ConsolidationBusyError(f"a consolidation cycle of tenant {tenant!r} is running ({row['owner']})")
            high_water = self.repo.high_water(conn, tenant)
            self.repo.start_cycle(conn, {
                "id": cycle_id, "tenant": tenant, "phase": ",".join(p.value for p in phases), "status": "running",
                "owner": owner_tag(), "started_at": time.time(), "high_water": high_water, "report": {}, "undo": {},
            })
        self.recover(tenant)  # a dead process's cycle of this tenant goes first
        try:
            report = self._cycle(cycle_id, tenant, phases, threshold, deadline, progress, started)
        except BaseException:
            self._abandon(cycle_id)
            raise
        return report

    def _cycle(self, cycle_id: str, tenant: str, phases: Sequence[ConsolidationPhase], threshold: float,
               deadline: float | None, progress: Callable[[str, int, int], None] | None, started: float) -> ConsolidationReport:
        now = time.time()
        notes: list[str] = []
        pacer = self.pacer()
        probe_vectors: dict[str, Any] = {}
        pacer.step()
        with self.sql.reader() as conn:
            rows = [r for r in self.repo.live_rows(conn, tenant) if r.get("embedding") is not None]
            ids = [r["id"] for r in rows]
            deltas_of = self.repo.delta_rows(conn, ids)
            depths = self.repo.depths(conn, ids)
            last_retrieved = self.repo.last_retrieved(conn, tenant)
            probes = gate.probe_set(self.repo.recent_retrieval_queries(conn, tenant, self.policy.probe_limit),
                                    self.repo.probes(conn, tenant))
        raw_utility = {i: tuple((d["utility"], d["utility_ts"]) for d in deltas_of.get(i, ())) for i in ids}
        before_snapshot = gate.snapshot(rows, raw_utility)
        baseline = gate.evaluate(probes, self._probe(pacer, tenant, probe_vectors))
        references = [p.expected or tuple(b) for p, b in zip(probes, baseline)]
        precision_before = gate.precision_at_k(baseline, references)

        counters = PlanCounters()
        plans: list[Any] = []
        vectors = {r["id"]: np.frombuffer(r["embedding"], dtype=np.float32) for r in rows}
        if ConsolidationPhase.NREM in phases and rows:
            recent = now - RECENT_DAYS * 86_400
            candidates = []
            for n, r in enumerate(rows):
                if n % PLAN_SLICE == 0:
                    pacer.step()
                flags = {f for d in deltas_of.get(r["id"], ()) for f in (d.get("conflict_flags") or ())}
                decision = self.guard.admit(namespace=r["namespace"], trust=float(r["trust"]), flags=flags)
                depth = depths.get(r["id"], 0)
                candidates.append(Candidate(
                    id=r["id"], row=r, vector=vectors[r["id"]], depth=depth, slots=self.claims(r),
                    admitted=decision.allowed, anchor=depth == 0 and is_anchor(r["id"], self.policy.anchor_fraction),
                    retrieved_recently=last_retrieved.get(r["id"], 0.0) > recent,
                ))
            plans = plan_merges(candidates, threshold, max_merge=self.policy.max_merge,
                                max_depth=self.policy.max_depth, deadline=deadline, counters=counters)
            plans = reconstruct(plans, ids, np.stack([vectors[i] for i in ids]), counters)
            if progress:
                progress("nrem", len(rows), len(rows))
        schema_plan, schema_audit = self._schema_pass(cycle_id, tenant, phases, deadline, counters)
        merging = {i for p in plans for i in p.ids}
        archive_ids: list[str] = []
        anchors = counters.anchors
        if ConsolidationPhase.PRUNE in phases:
            if not cold_available():
                notes.append("prune skipped: the COLD tier needs pyarrow (the 'cold' extra)")
            elif deadline is not None and time.monotonic() > deadline:
                counters.timed_out = True
            else:
                archive_ids, kept = prune_candidates(
                    [r for r in rows if r["id"] not in merging], deltas_of, last_retrieved,
                    threshold=self.policy.prune_utility, after_days=self.policy.prune_after_days,
                    anchor_fraction=self.policy.anchor_fraction, rate_per_hour=self.rate, now=now)
                anchors += kept
            if progress:
                progress("prune", len(rows), len(rows))
        audited_low = 0
        if ConsolidationPhase.REM in phases:
            audited_low = self._audit(rows)
            if progress:
                progress("rem", len(rows), len(rows))

        applied = apply_plan(self.sql, self.repo, self.archive, cycle_id, tenant, plans, archive_ids, before_snapshot,
                             rate_per_hour=self.rate, step=pacer.step, drain=self.drain,
                             committed=(lambda done, total: progress("apply", done, total)) if progress else None,
                             ) if (plans or archive_ids) else None
        merged = applied["merged"] if applied else []
        pruned = applied["archived"] if applied else 0
        if applied:
            self.drain()
            self.invalidate(tenant)
        fidelities = [p.fidelity for p in plans if any(m["members"] == p.ids for m in merged)]
        report = dict(
            cycle_id=cycle_id, tenant=tenant, phases=tuple(phases), merged=len(merged),
            originals_hidden=sum(len(m["members"]) for m in merged), pruned=pruned, anchors_kept=anchors,
            refused_by_guard=counters.refused, slot_conflicts=counters.slot_conflicts,
            depth_limited=counters.depth_limited, reconstruction_failed=counters.reconstruction_failed,
            fidelity=round(sum(fidelities) / len(fidelities), 4) if fidelities else None,
            low_fidelity=audited_low + sum(f < self.policy.fidelity_floor for f in fidelities),
            probes=len(probes), precision_before=precision_before, timed_out=counters.timed_out,
            merge_threshold=threshold, notes=tuple(notes),
        )
        if schema_audit is not None:
            scores = list(schema_audit.fidelity.values())
            report.update(schema_fidelity=round(sum(scores) / len(scores), 4) if scores else None,
                          low_fidelity_schemas=schema_audit.low)
        if applied and probes:
            after = gate.evaluate(probes, self._probe(pacer, tenant, probe_vectors))
            covers = self._covers(after, {m["id"]: m for m in merged}, vectors)
            report["precision_after"] = gate.precision_at_k(after, references, covers)
            if progress:
                progress("gate", len(probes), len(probes))
            if gate.regressed(precision_before, report["precision_after"], self.policy.regression_tolerance):
                verified = self.rollback(cycle_id, reason="consolidation_regression")
                report.update(rolled_back=True, reason="consolidation_regression: probe precision@5 fell from "
                              f"{precision_before:.3f} to {report['precision_after']:.3f}",
                              notes=(*notes, f"store equal to the snapshot after rollback: {verified}"))
        elif not applied:
            report["precision_after"] = precision_before
        pacer.step()
        report.update(pacer.report(), apply_transactions=applied["transactions"] if applied else 0)
        with self.sql.writer() as conn:
            if self.schemas is not None and schema_plan is not None and schema_plan.versions and not report.get("rolled_back"):
                written = self.schemas.write(conn, tenant, schema_plan)
                report.update(schemas_created=written["created"], schemas_updated=written["updated"],
                              schemas_merged=written["merged"])
            report["seconds"] = round(time.monotonic() - started, 3)
            final = ConsolidationReport(**report)
            values: dict[str, Any] = {"report": final.model_dump(mode="json"), "finished_at": time.time()}
            if not final.rolled_back:
                values["status"] = "accepted"
            self.repo.set_cycle(conn, cycle_id, **values)
            if final.rolled_back:
                self.sql.log_system_event(conn, tenant, "consolidation_regression", {
                    "cycle_id": cycle_id, "precision_before": precision_before,
                    "precision_after": final.precision_after, "merge_threshold": threshold})
        return final

    def _schema_pass(self, cycle_id: str, tenant: str, phases: Sequence[ConsolidationPhase], deadline: float | None,
                     counters: PlanCounters) -> tuple[SchemaPlan | None, SchemaAudit | None]:
        """NREM plans the schema versions (written only when the cycle is accepted); REM audits
        the schemas as NREM leaves them (or as stored, when NREM does not run)."""
        nrem, rem = ConsolidationPhase.NREM in phases, ConsolidationPhase.REM in phases
        if self.schemas is None or not (nrem or rem):
            return None, None
        if deadline is not None and time.monotonic() > deadline:
            counters.timed_out = True
            return None, None
        plan = self.schemas.plan(tenant, cycle_id, extract=nrem)
        audit = self.schemas.audit(plan, self.policy.fidelity_floor, planned=nrem) if rem else None
        return plan, audit

    def _covers(self, results: list[list[str]], merged: dict[str, dict[str, Any]],
                vectors: dict[str, np.ndarray]) -> dict[str, set[str]]:
        """Which originals each merged memory in the results stands for (faithful ones only)."""
        wanted = {i for top in results for i in top}
        with self.sql.reader() as conn:
            sources = self.repo.derivations_of(conn, list(wanted))
            stored = self.repo.embeddings(conn, [*sources, *{s for ss in sources.values() for s in ss}])
        covers: dict[str, set[str]] = {}
        for merged_id, members in sources.items():
            if merged_id not in stored:
                continue
            vector = np.frombuffer(stored[merged_id], dtype=np.float32)
            covers[merged_id] = {
                s for s in members
                if s in stored and float(vector @ np.frombuffer(stored[s], dtype=np.float32)) >= self.policy.fidelity_floor
            }
        return covers

    def _audit(self, rows: Sequence[dict[str, Any]]) -> int:
        """REM: merged memories whose fidelity to an original fell under the floor."""
        merged = [r for r in rows if (r.get("meta") or {}).get("derives_from")]
        if not merged:
            return 0
        with self.sql.reader() as conn:
            stored = self.repo.embeddings(conn, [s for r in merged for s in r["meta"]["derives_from"]])
        low = 0
        for r in merged:
            vector = np.frombuffer(r["embedding"], dtype=np.float32)
            scores = [float(vector @ np.frombuffer(stored[s], dtype=np.float32)) for s in r["meta"]["derives_from"] if s in stored]
            low += bool(scores) and min(scores) < self.policy.fidelity_floor
        return low

    # ---- rollback and recovery ------------------------------------------------------------------------

    def rollback(self, cycle_id: str, reason: str = "rolled back") -> bool:
        """Undo an applied cycle from its journal; returns whether the store equals its snapshot."""
        removed: list[str] = []
        with self.sql.writer() as conn:
            rows = [r for r in self.repo.cycles(conn) if r["id"] == cycle_id]
            if not rows or rows[0]["status"] not in ("applied", "running", "accepted"):
                return False
            cycle = rows[0]
            undo = cycle["undo"] or {}
            tenant = cycle["tenant"]
            for merged in undo.get("merged", ()):
                self.repo.delete_events(conn, [merged["id"]])
                self.repo.unhide(conn, tenant, merged["members"], merged["id"])
                self.repo.drop_derivations(conn, [merged["id"]])
            for part in undo.get("partitions", ()):
                listed = self.repo.partitions(conn, ids=[part["id"]])
                if listed:
                    entries = self.archive.read(listed[0]["path"], listed[0]["sha256"])
                    self.repo.restore(conn, [e["bundle"] for e in entries])
                    self.repo.drop_partition(conn, part["id"])
                removed.append(part["path"])
            self.repo.set_cycle(conn, cycle_id, status="rolled_back", finished_at=time.time())
            live = self.repo.live_rows(conn, tenant)
            deltas_of = self.repo.delta_rows(conn, [r["id"] for r in live])
        for path in removed:
            self.archive.remove(path)
        self.drain()
        self.invalidate(tenant)
        log.warning("consolidation cycle %s of tenant %s rolled back: %s", cycle_id, tenant, reason)
        now_snapshot = gate.snapshot(
            [r for r in live if r.get("embedding") is not None],
            {r["id"]: tuple((d["utility"], d["utility_ts"]) for d in deltas_of.get(r["id"], ())) for r in live})
        before = undo.get("snapshot") or {}
        merged_ids = {m["id"] for m in undo.get("merged", ())}
        return all(now_snapshot.get(i) == h for i, h in before.items()) and not (merged_ids & set(now_snapshot))

    def _abandon(self, cycle_id: str) -> None:
        try:
            with self.sql.reader() as conn:
                rows = [r for r in self.repo.cycles(conn) if r["id"] == cycle_id]
            if rows and rows[0]["status"] == "applied":
                self.rollback(cycle_id, reason="the cycle failed")
            with self.sql.writer() as conn:
                self.repo.set_cycle(conn, cycle_id, status="failed" if rows and rows[0]["status"] == "running"
                                    else "rolled_back", finished_at=time.time())
        except Exception:
            log.exception("could not mark consolidation cycle %s failed", cycle_id)

    def recover(self, tenant: str | None = None) -> int:
        """Roll back cycles a dead process left applied, mark its running ones failed, remove
        orphan COLD files. Returns how many cycles were recovered."""
        with self.sql.reader() as conn:
            open_cycles = [r for r in self.repo.cycles(conn, tenant, statuses=("running", "applied"))
                           if not owner_alive(r["owner"])]
        for row in open_cycles:
            if row["status"] == "applied":
                self.rollback(row["id"], reason="its process died before the gate")
            with self.sql.writer() as conn:
                self.repo.set_cycle(conn, row["id"], status="failed" if row["status"] == "running" else "rolled_back",
                                    finished_at=time.time())
        tenants = [tenant] if tenant else list({r["tenant"] for r in open_cycles})
        for name in tenants:
            with self.sql.reader() as conn:
                listed = [p["path"] for p in self.repo.partitions(conn, name)]
            for orphan in self.archive.orphans(name, listed):
                self.archive.remove(orphan)
        return len(open_cycles)

    def threshold(self, tenant: str) -> float:
        """The policy's threshold, raised halfway to 1 after a cycle the gate rolled back."""
        value = self.policy.merge_threshold
        with self.sql.reader() as conn:
            last = self.repo.cycles(conn, tenant, statuses=("accepted", "rolled_back"), limit=1)
        report = (last[0]["report"] or {}) if last else {}
        # Only a regression says the threshold was too loose; a crash recovery says nothing.
        if last and last[0]["status"] == "rolled_back" and str(report.get("reason") or "").startswith("consolidation_regression"):
            previous = float(report.get("merge_threshold", value))
            value = max(value, (previous + 1.0) / 2.0)
        return value
