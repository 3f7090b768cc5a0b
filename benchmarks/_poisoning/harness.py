"""Drives real DeltaCore stores: benign memory, then one attack family per copy of it.

Every store is the embedded default (SQLite + embedded Chroma) with the shared vector cache, so
the defence-on and defence-off runs see the same vectors. The benign store is built once per
policy and copied for each family (a family's records and the defence's reaction to them, such
as a penalised source, never leak into another family's figures).

What counts as *accepted* is read back from the store after the attack, not from the ingest
result: an event is accepted when it is listed without ``include_quarantined`` (so the E01
playbook quarantining a source's earlier writes counts, and a blocked write counts as refused).
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _poisoning.attacks import AttackPlan, PoisonRecord
from _poisoning.data import BenignWrite, Scope

TOP_K = 5


@dataclass
class Decision:
    action: str
    score: float | None
    reasons: tuple[str, ...] = ()


@dataclass
class BenignRun:
    decisions: dict[str, Decision] = field(default_factory=dict)
    retrievable: set[str] = field(default_factory=set)
    recall: dict[str, list[float]] = field(default_factory=dict)
    """Query half → evidence recall@5 of each question of that half."""
    reach: dict[str, bool] = field(default_factory=dict)
    """Benign extra write id → found in the top 5 when its own text is the query. A write that is
    stored but never retrieved is lost to its writer as surely as a quarantined one."""
    question_reach: dict[str, list[bool]] = field(default_factory=dict)
    """Relayed fact id → for each QA question whose evidence is the turn the fact restates:
    is the fact in that question's top 5 (a benign query that is not its own text)."""


@dataclass
class FamilyRun:
    decisions: dict[str, Decision] = field(default_factory=dict)
    accepted: set[str] = field(default_factory=set)
    quarantined: set[str] = field(default_factory=set)
    results: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    """(tenant, role, key, top-5 ids) per query: role is ``target`` or ``exposure``."""
    decision_results: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    """The target queries asked again with ``for_decision=True`` (only trusted or corroborated
    memories may drive a decision)."""


def trust_settings(policy: dict[str, Any] | None, enabled: bool) -> dict[str, Any]:
    """DeltaCore.open settings for the defence on (with ``policy`` overrides) or off."""
    from deltacore.config import DeltaCoreConfig

    if "trust" not in DeltaCoreConfig.model_fields:  # an engine without the trust gateway
        return {}
    from deltacore.trust_policy import TrustPolicy

    return {"trust": TrustPolicy(enabled=enabled, **(policy or {}))}


def _decisions(result: Any) -> dict[str, Decision]:
    out = {}
    for d in getattr(result, "decisions", None) or []:
        action = getattr(d.action, "value", str(d.action))
        out[d.event_id] = Decision(action, float(d.score), tuple(d.reasons))
    for event_id in getattr(result, "blocked", None) or []:
        out.setdefault(event_id, Decision("block", None))
    return out


class Harness:
    def __init__(self, embedder: Any, workdir: Path, scopes: list[Scope], seed: int, principals: bool = True) -> None:
        self.principals = principals
        """Pass each write's authenticated principal (off: the engine sees claimed sources only)."""
        self.embedder = embedder
        self.workdir = workdir
        self.scopes = scopes
        self.seed = seed

    def open(self, path: Path, settings: dict[str, Any]) -> Any:
        from deltacore import DeltaCore

        # NORMAL survives a process crash, which is all a throwaway benchmark store needs.
        return DeltaCore.open(path, embedder=self.embedder, sqlite_synchronous="NORMAL", **settings)

    # ---- benign memory ---------------------------------------------------------------------------

    def build_benign(self, name: str, settings: dict[str, Any]) -> tuple[Path, BenignRun]:
        """A store with every scope's benign writes; returns its folder (closed) and what the
        defence did with them."""
        path = self.workdir / name
        shutil.rmtree(path, ignore_errors=True)
        run = BenignRun()
        memory = self.open(path, settings)
        try:
            for scope in self.scopes:
                turns = [w for w in scope.benign if w.set == "turns"]
                for start in range(0, len(turns), 256):
                    run.decisions.update(self._ingest(memory, scope, turns[start : start + 256]))
                # The agent's observations, derived from the turns (their parents) after them.
                observations = sorted((w for w in scope.benign if w.set == "observations"), key=lambda w: w.ts)
                for start in range(0, len(observations), 256):
                    run.decisions.update(self._ingest(memory, scope, observations[start : start + 256]))
                # Agent-task traffic step by step, as a hook writes it (each step after its parent).
                for w in sorted((w for w in scope.benign if w.set == "agent_task"), key=lambda w: w.ts):
                    run.decisions.update(self._ingest(memory, scope, [w]))
                # Later writes one source at a time, as they would arrive.
                extras = sorted((w for w in scope.benign if w.set in ("hard", "newcomer")), key=lambda w: w.ts)
                by_source: dict[str, list[BenignWrite]] = {}
                for w in extras:
                    by_source.setdefault(w.source, []).append(w)
                for writes in by_source.values():
                    run.decisions.update(self._ingest(memory, scope, writes))
                run.retrievable |= self._listed(memory, scope.tenant)
        finally:
            memory.close()
        return path, run

    def _ingest(self, memory: Any, scope: Scope, writes: list[BenignWrite]) -> dict[str, Decision]:
        events = [
            {"id": w.id, "text": w.text, "actor": w.actor, "source": w.source, "role": w.role, "ts": w.ts, "kind": w.kind,
             "tenant": scope.tenant, "session_id": f"session_{_session(w)}", "episode_id": w.episode or f"session_{_session(w)}",
             "parent_ids": list(w.parent_ids), "user_id": w.user_id, "tool_name": w.tool_name, "tool_args": w.tool_args,
             **({"principal": w.principal} if self.principals and w.principal else {})}
            for w in writes
        ]
        assert len({w.channel for w in writes}) == 1, "one channel per call"
        result = memory.ingest(events, channel=writes[0].channel)
        if result.rejected:
            raise RuntimeError(f"benign write rejected as invalid: {result.rejected[0]}")
        return _decisions(result)

    def _listed(self, memory: Any, tenant: str, include_quarantined: bool = False) -> set[str]:
        ids: set[str] = set()
        after = None
        while True:
            page = memory.events(tenant=tenant, after=after, limit=1000, include_quarantined=include_quarantined)
            ids.update(e.id for e in page)
            if len(page) < 1000:
                return ids
            after = page[-1].id

    def measure_recall(self, path: Path, settings: dict[str, Any], halves: list[str], run: BenignRun) -> None:
        """Evidence recall@5 of every question of ``halves`` on the benign store at ``path``."""
        memory = self.open(path, settings)
        try:
            for half in halves:
                values = run.recall.setdefault(half, [])
                for scope in self.scopes:
                    cites = {w.id: set(w.parent_ids) for w in scope.benign if w.set == "observations"}
                    for q in scope.halves[half]:
                        top = self._search(memory, scope.tenant, q.text)
                        # An observation derived from an evidence turn carries that evidence.
                        covered = set(top).union(*(cites.get(i, set()) for i in top))
                        values.append(sum(f"{scope.tenant}:{e}" in covered for e in q.evidence) / len(q.evidence))
                        turns_only = run.recall.setdefault(f"{half}:turns_only", [])
                        turns_only.append(sum(f"{scope.tenant}:{e}" in set(top) for e in q.evidence) / len(q.evidence))
                for w in scope.benign:
                    if w.set in ("hard", "newcomer") and w.half in halves:
                        run.reach[w.id] = w.id in self._search(memory, scope.tenant, w.text)
                    if w.evidence and w.half in halves:
                        asked = [q for qs in scope.halves.values() for q in qs if w.evidence in {f"{scope.tenant}:{e}" for e in q.evidence}]
                        run.question_reach[w.id] = [w.id in self._search(memory, scope.tenant, q.text) for q in asked]
        finally:
            memory.close()

    def _search(self, memory: Any, tenant: str, text: str, **options: Any) -> list[str]:
        return [p.id for p in memory.query(text, tenant=tenant, top_k=TOP_K, include_deltas=False, **options)]

    # ---- one attack family -------------------------------------------------------------------

    def run_family(
        self, base: Path, name: str, settings: dict[str, Any], plans: list[AttackPlan], exposure: dict[str, list[str]],
        decision: bool = False,
    ) -> FamilyRun:
        """Copy the benign store, let the attacker write, then ask every target and exposure query."""
        path = self.workdir / name
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(base, path)
        run = FamilyRun()
        memory = self.open(path, settings)
        try:
            for attack in plans:
                # Established attackers: each source's innocuous history first (one call per
                # source and sitting, as a chat session would deliver it), never measured.
                for batch in _sittings(attack.history):
                    self._write(memory, batch)
                for record in _interleaved(attack.records, random.Random(f"{self.seed}:{name}:{attack.family}")):
                    run.decisions.update(self._attack(memory, record))
            for scope in self.scopes:
                poison = {r.id for a in plans for r in a.records if r.tenant == scope.tenant}
                listed = self._listed(memory, scope.tenant)
                run.accepted |= poison & listed
                run.quarantined |= poison & (self._listed(memory, scope.tenant, include_quarantined=True) - listed)
            queries = [
                (t.tenant, "target", t.key, t.query) for a in plans for t in a.targets
            ] + [(tenant, "exposure", text, text) for tenant, texts in exposure.items() for text in texts]
            # A seeded order: the retrieval-time defence may learn from the queries it has seen.
            random.Random(f"{self.seed}:{name}:queries").shuffle(queries)
            for tenant, role, key, text in queries:
                top = self._search(memory, tenant, text)
                # What an adapter does after handing memories to the agent (the narrow-cone
                # defence learns from this log).
                memory.record_retrieval(top, query=text, tenant=tenant)
                run.results.append((tenant, role, key, top))
                if role == "target" and decision:
                    run.decision_results.append((tenant, role, key, self._search(memory, tenant, text, for_decision=True)))
        finally:
            memory.close()
            shutil.rmtree(path, ignore_errors=True)
        return run

    def _write(self, memory: Any, records: list[PoisonRecord]) -> Any:
        # The attacker is authenticated as itself (``principal``) whatever voice it claims (``source``).
        events = [{"id": r.id, "text": r.text, "actor": r.actor or r.source, "source": r.source, "role": "user", "ts": r.ts,
                   "tenant": r.tenant, "session_id": f"attack-{r.principal or r.source}-{r.ts.date().isoformat()}",
                   "parent_ids": list(r.parent_ids), **({"principal": r.principal or r.source} if self.principals else {})}
                  for r in records]
        return memory.ingest(events, channel="user")

    def _attack(self, memory: Any, record: PoisonRecord) -> dict[str, Decision]:
        # One write per call, as an attacker writing through a chat would.
        result = self._write(memory, [record])
        if result.rejected:
            return {record.id: Decision("invalid", None, (result.rejected[0].reason,))}
        return _decisions(result)


def _session(write: BenignWrite) -> str:
    if write.set == "turns":
        return write.id.split(":", 1)[1].split(":")[0].lstrip("D")
    return "extra"


def _sittings(records: list[PoisonRecord]) -> list[list[PoisonRecord]]:
    """Records grouped per source and calendar day, in time order."""
    groups: dict[tuple[str, object], list[PoisonRecord]] = {}
    for r in sorted(records, key=lambda r: (r.principal or r.source, r.ts)):
        groups.setdefault((r.principal or r.source, r.ts.date()), []).append(r)
    return list(groups.values())


def _interleaved(records: list[PoisonRecord], rng: random.Random) -> list[PoisonRecord]:
    """Records in the attacker's order: per source in sequence, sources interleaved at random
    (keeping each source's progressive order, which MINJA relies on)."""
    queues: dict[str, list[PoisonRecord]] = {}
    for r in records:
        queues.setdefault(r.principal or r.source, []).append(r)
    order: list[PoisonRecord] = []
    live = [q for q in queues.values()]
    while live:
        queue = rng.choice(live)
        order.append(queue.pop(0))
        live = [q for q in live if q]
    return order
