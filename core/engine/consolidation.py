"""The consolidation part of the ``DeltaCore`` facade: ``consolidate``, ``consolidate_status``,
``register_probes``, COLD reads (``query(include_cold=True)``, ``get`` of an archived id) and
the automatic trigger thread. The layer itself lives in ``deltacore.consolidation``."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from deltacore.belief.layer import StoredEvent
from deltacore.belief.lexicon import value_key
from deltacore.consolidation import (
    ALL_PHASES,
    ConsolidationBusyError,
    Consolidator,
    InvalidConsolidationError,
)
from deltacore.consolidation.forgetting import MergedDerivation, cold_matches, thaw_for
from deltacore.consolidation.pacing import QueryActivity
from deltacore.consolidation.schemas import SchemaConsolidation
from deltacore.consolidation.tiering import cold_packet, cold_ranking, fuse
from deltacore.consolidation.triggers import (
    TriggerState,
    fired,
    miss_rate,
    utility_variance,
)
from deltacore.errors import ReadOnlyStoreError
from deltacore.gateway.consolidation_guard import TrustGuard
from deltacore.model import (
    ConsolidationPhase,
    ConsolidationReport,
    ConsolidationStatus,
    Event,
    MemoryPacket,
    QueryCriteria,
)
from deltacore.storage.cold_archive import ColdArchive
from deltacore.storage.consolidation_store import ConsolidationRepository
from deltacore.storage.records import event_from_row

log = logging.getLogger(__name__)


def _phases(phase: Any) -> tuple[ConsolidationPhase, ...]:
    if phase is None:
        return ALL_PHASES
    items = [phase] if isinstance(phase, (str, ConsolidationPhase)) else list(phase) if isinstance(phase, (list, tuple)) else None
    if not items:
        raise InvalidConsolidationError("phase", f"must be one of {[p.value for p in ConsolidationPhase]} (or None for all), got {phase!r}")
    out = []
    for item in items:
        try:
            out.append(ConsolidationPhase(str(getattr(item, "value", item)).lower()))
        except ValueError:
            raise InvalidConsolidationError(
                "phase", f"unknown phase {item!r}; use one of {[p.value for p in ConsolidationPhase]} or None for all"
            ) from None
    return tuple(p for p in ALL_PHASES if p in out)


class ConsolidationMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; wired by :meth:`_init_consolidation`."""

    _sql: Any
    _hot: Any
    _vectors: Any
    _beliefs: Any
    _retriever: Any
    _embedder: Any
    _plan_repo: Any
    _plan_recall: Any
    _meter: Any
    config: Any

    def _init_consolidation(self) -> None:
        policy = self.config.consolidation
        root = policy.cold_path or (self.config.path.expanduser() / "cold")
        self._cold = ColdArchive(root)
        self._cold_cache: dict[str, list[dict[str, Any]]] = {}
        self._consolidation_repo = ConsolidationRepository(self._sql)
        self._query_activity = QueryActivity()
        """This process's user queries in flight (``query`` marks them): a cycle steps aside for them."""
        self._consolidator = Consolidator(
            self._sql, self._cold, policy, TrustGuard(self.config.trust), self._fact_slots, self._probe_search,
            self._vectors.drain, self._hot.invalidate, self.config.decay_rate_per_hour,
            schemas=SchemaConsolidation(self._sql, self._plan_repo, self._plan_recall, min_episodes=policy.schema_min_episodes),
            activity=self._query_activity,
        )
        self._queries_at_last_cycle: dict[str, tuple[int, int]] = {}
        """Tenant -> (queries, empty queries) of this process's meter when its last cycle ended."""
        self._consolidation_stop = threading.Event()
        self._consolidation_thread: threading.Thread | None = None
        if not self.config.read_only:
            try:
                self._consolidator.recover()
            except Exception:
                log.exception("consolidation recovery failed; it is retried by the next cycle")
            if policy.automatic:
                self._consolidation_thread = threading.Thread(target=self._consolidation_loop, name="deltacore-consolidation", daemon=True)
                self._consolidation_thread.start()

    def _stop_consolidation(self) -> None:
        self._consolidation_stop.set()
        if self._consolidation_thread is not None:
            self._consolidation_thread.join(timeout=60)

    # ---- public ------------------------------------------------------------------------------------

    def consolidate(
        self,
        phase: ConsolidationPhase | str | Sequence[ConsolidationPhase | str] | None = None,
        *,
        budget: float | None = None,
        tenant: str = "default",
        progress: Callable[[str, int, int], None] | None = None,
    ) -> ConsolidationReport:
        """Run one sleep cycle for ``tenant`` and return what it did.

        ``phase``: ``"nrem"`` (near-duplicate merges), ``"prune"`` (low-utility, unretrieved
        memories to the COLD tier), ``"rem"`` (fidelity audit), a list of them, or ``None`` for
        all. ``budget``: seconds; past it the cycle stops planning, applies what it has and the
        next cycle resumes (``report.timed_out``). The cycle is applied in short transactions and
        then shadow-evaluated on the probe set (the retrieval log's recent queries and
        :meth:`register_probes`); when probe precision@5 falls by more than
        ``ConsolidationPolicy.regression_tolerance`` it is rolled back (``report.rolled_back``,
        a ``consolidation_regression`` system event) and the store is as before.

        ``progress(phase, done, total)``, on the cycle's thread: ``"nrem"``, ``"prune"`` and
        ``"rem"`` when their planning is done; ``"apply"`` with ``done = 0`` before the first
        apply transaction and after each commit (from ``done = 1`` on, queries see the cycle's
        changes; at ``done == total`` all of them); ``"gate"`` when the shadow evaluation after the
        apply is done (the keep-or-roll-back decision follows).

        >>> import tempfile
        >>> from deltacore import DeltaCore
        >>> from deltacore.testing import FakeEmbedder
        >>> with DeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
        ...     a = memory.add("the staging database lives on host db-7", kind="fact")
        ...     b = memory.add("the staging database lives on host db-7 now", kind="fact")
        ...     report = memory.consolidate("nrem")
        ...     merged = memory.query("where is the staging database?", top_k=1)[0]
        ...     (report.merged, sorted(merged.meta["derives_from"]) == sorted([a, b]))
        (1, True)
        """
        phases = _phases(phase)
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0):
            raise InvalidConsolidationError("budget", f"must be a number of seconds >= 0 (or None), got {budget!r}")
        if not isinstance(tenant, str) or not tenant:
            raise InvalidConsolidationError("tenant", f"must be a non-empty string, got {tenant!r}")
        if self.config.read_only:
            raise ReadOnlyStoreError("this store was opened with read_only=True: consolidate is refused")
        self._drain_for_read()  # background vector writes: a cycle compares vectors, so pending ones first
        report = self._consolidator.run(tenant, phases, budget, progress)
        self._cold_cache.clear()
        self._queries_at_last_cycle[tenant] = self._query_counts(tenant)
        return report

    def consolidate_status(self, *, tenant: str = "default") -> ConsolidationStatus:
        """Where consolidation stands for ``tenant``: the last cycle's report, whether a cycle
        is running or due, merged memories in live retrieval, COLD partitions and rows."""
        if not isinstance(tenant, str) or not tenant:
            raise InvalidConsolidationError("tenant", f"must be a non-empty string, got {tenant!r}")
        repo, policy = self._consolidation_repo, self.config.consolidation
        with self._sql.reader() as conn:
            rows = repo.cycles(conn, tenant)
            finished = [r for r in rows if r["status"] in ("accepted", "rolled_back")]
            last = finished[0] if finished else None
            since = repo.events_since(conn, tenant, int(last["high_water"]) if last else 0)
            merged_live = repo.merged_live(conn, tenant)
            cold_items = repo.cold_count(conn, tenant)
            partitions = len(repo.partitions(conn, tenant))
            probes = len(repo.probes(conn, tenant))
            cycle_start = float(last["started_at"]) if last else 0.0
            steps = repo.utility_steps_since(conn, tenant, cycle_start)
            shifts = repo.system_events_since(conn, tenant, "DISTRIBUTION_SHIFT", cycle_start)
        minutes = (time.time() - float(last["finished_at"] or last["started_at"])) / 60.0 if last else None
        queries, empty = self._query_counts(tenant)
        queries_then, empty_then = self._queries_at_last_cycle.get(tenant, (0, 0))
        state = TriggerState(since, minutes, steps, queries - queries_then, empty - empty_then, shifts)
        # A read-only open can never run the cycle a trigger asks for.
        triggers = () if self.config.read_only else fired(state, policy)
        variance, misses = utility_variance(state, policy), miss_rate(state, policy)
        report = ConsolidationReport(**last["report"]) if last and last["report"] else None
        return ConsolidationStatus(
            tenant=tenant,
            running=any(r["status"] in ("running", "applied") for r in rows),
            yielding=self._query_activity.waiting > 0,
            automatic=policy.automatic and not self.config.read_only,
            last_cycle=report,
            last_cycle_at=datetime.fromtimestamp(float(last["started_at"]), UTC) if last else None,
            cycles=len(finished),
            rolled_back=sum(r["status"] == "rolled_back" for r in finished),
            events_since_last=since,
            minutes_since_last=round(minutes, 3) if minutes is not None else None,
            utility_variance=round(variance, 6) if variance is not None else None,
            retrieval_miss_rate=round(misses, 4) if misses is not None else None,
            shifts_since_last=shifts,
            due=bool(triggers),
            triggers=tuple(t.value for t in triggers),
            merged_live=merged_live,
            cold_items=cold_items,
            cold_partitions=partitions,
            probes=probes,
        )

    def register_probes(self, probes: Sequence[str | dict[str, Any]], *, tenant: str = "default", replace: bool = False) -> int:
        """Add probe queries to the shadow evaluation of every cycle: a text (the answer before
        a cycle is the reference) or ``{"text": ..., "expected": [event ids]}``. ``replace``
        drops the registered ones first. Returns how many are registered now."""
        rows = []
        for index, probe in enumerate(probes):
            text, expected = (probe, []) if isinstance(probe, str) else (probe.get("text"), probe.get("expected") or [])
            if not isinstance(text, str) or not text.strip():
                raise InvalidConsolidationError(f"probes[{index}].text", "give a non-empty query text")
            if not isinstance(expected, (list, tuple)) or not all(isinstance(e, str) for e in expected):
                raise InvalidConsolidationError(f"probes[{index}].expected", "give a list of event ids")
            rows.append({"tenant": tenant, "text": text, "expected": list(expected), "created_at": time.time()})
        with self._sql.writer() as conn:
            if replace:
                self._consolidation_repo.clear_probes(conn, tenant)
            self._consolidation_repo.add_probes(conn, rows)
            return len(self._consolidation_repo.probes(conn, tenant))

    # ---- COLD reads --------------------------------------------------------------------------------

    def _cold_rows(self, tenant: str) -> list[dict[str, Any]]:
        with self._sql.reader() as conn:
            parts = self._consolidation_repo.partitions(conn, tenant)
        rows: list[dict[str, Any]] = []
        for part in parts:
            if part["id"] not in self._cold_cache:
                self._cold_cache[part["id"]] = self._cold.read(part["path"], part["sha256"])
            rows.extend(self._cold_cache[part["id"]])
        return rows

    def _with_cold(self, criteria: QueryCriteria, live: list[MemoryPacket]) -> list[MemoryPacket]:
        rows = self._cold_rows(criteria.tenant)
        if not rows:
            return live
        vector = self._embedder.embed_one(criteria.text) if criteria.text else None
        ranked = cold_ranking(rows, self._cold.vectors(rows), criteria, vector, criteria.top_k)
        cold = [cold_packet(row, score, rank, self.config.decay_rate_per_hour) for rank, (row, score) in enumerate(ranked, 1)]
        return fuse(live, cold, criteria.top_k)

    def _cold_event(self, event_id: str) -> Event | None:
        with self._sql.reader() as conn:
            where = self._consolidation_repo.cold_locations(conn, [event_id]).get(event_id)
            parts = self._consolidation_repo.partitions(conn, ids=[where]) if where else []
        if not parts:
            return None
        for row in self._cold.read(parts[0]["path"], parts[0]["sha256"]):
            if row["id"] == event_id:
                event = dict(row["bundle"]["event"])
                event["meta"] = {**(event.get("meta") or {}), "tier": "cold"}
                return event_from_row(SimpleNamespace(**event))
        return None

    # ---- wiring ------------------------------------------------------------------------------------

    def _fact_slots(self, row: dict[str, Any]) -> dict[tuple[str, str], str]:
        """(subject, attribute) -> value key of every fact the belief layer reads in a memory."""
        try:
            claims = self._beliefs.extractor.claims(StoredEvent.from_row(row))
        except Exception:  # noqa: BLE001 - a memory the extractor cannot read states no slot
            return {}
        return {(c.subject, c.attribute): value_key(c.value) for c in claims}

    def _query_counts(self, tenant: str) -> tuple[int, int]:
        meter = self._meter.tenant(tenant)
        with meter.lock:
            return meter.queries, meter.empty_queries

    def _probe_search(self, text: str, tenant: str, vectors: dict[str, Any]) -> list[str]:
        """A gate probe: a full query through every router, its text embedded once per cycle
        (``vectors``) so that the probe after the apply replays the very vector of the one before."""
        def embed(query: str) -> Any:
            if query not in vectors:
                vectors[query] = self._embedder.embed_one(query)
            return vectors[query]

        criteria = QueryCriteria(text=text, top_k=10, tenant=tenant)
        return [p.id for p in self._retriever.query(criteria, embed_query=embed)]

    def _with_merged_sources(self, event_ids: Sequence[str]) -> list[str]:
        """``event_ids`` with every original a merged memory among them hides (recursively):
        deleting a merged memory deletes its history, as deleting a memory deletes its versions."""
        found = dict.fromkeys(event_ids)
        frontier = list(event_ids)
        with self._sql.reader() as conn:
            while frontier:
                sources = self._consolidation_repo.derivations_of(conn, frontier)
                frontier = [s for members in sources.values() for s in members if s not in found]
                found.update(dict.fromkeys(frontier))
        return list(found)

    def _consolidation_derived(self) -> MergedDerivation:
        return MergedDerivation(self._consolidation_repo)

    def _thaw_for_forget(self, requests: Sequence[Any]) -> int:
        """Bring matching COLD rows back to SQL so the forget pipeline erases them too."""
        count = thaw_for(self._sql, self._consolidation_repo, self._cold, requests)
        self._cold_cache.clear()
        return count

    def _with_cold_counts(self, certificate: Any, request: Any) -> Any:
        """A dry run thaws nothing, so the COLD rows a real forget would erase are counted here."""
        ids = cold_matches(self._sql, self._consolidation_repo, self._cold, request)
        if not ids:
            return certificate
        samples = {**certificate.samples, "cold": ids[:5]}
        counts = {**certificate.counts, "cold": len(ids)}
        return certificate.model_copy(update={"counts": counts, "samples": samples, "nothing_found": False})

    def _consolidation_loop(self) -> None:
        policy = self.config.consolidation
        while not self._consolidation_stop.wait(policy.check_seconds):
            try:
                for tenant in self._sql.counts()["tenants"]:
                    if self._consolidation_stop.is_set():
                        return
                    if self.consolidate_status(tenant=tenant).due:
                        self.consolidate(tenant=tenant)
            except ConsolidationBusyError:
                continue
            except Exception:
                log.exception("automatic consolidation failed")
