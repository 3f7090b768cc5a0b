"""NREM: near-duplicate merges, planned without writing anything.

Spindles order the candidates (recently retrieved memories first, so the clusters that matter
form first, and their merged memory gets a utility boost). Two memories join only when their
cosine passes the threshold **and** they share scope and kind **and** no fact slot holds two
different values between them (the belief layer's extraction) **and** the trust guard admits
both. Clusters are complete-linkage: every member passes the threshold with every other, so a
chain of small steps cannot drift a merge far from any of its members. Ripples (the
reconstruction test) then decide whether the originals may leave live retrieval: the merged
vector must rank in the top five for each original's own vector.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

RECONSTRUCTION_K = 5
"""The merged memory must be among this many best answers to each original's own text."""


@dataclass
class Candidate:
    """A live memory that may take part in a merge."""

    id: str
    row: dict[str, Any]
    vector: np.ndarray
    depth: int = 0
    slots: dict[tuple[str, str], str] = field(default_factory=dict)
    admitted: bool = True
    anchor: bool = False
    retrieved_recently: bool = False

    @property
    def scope(self) -> tuple[Any, ...]:
        r = self.row
        return (r["tenant"], r.get("agent_id"), r.get("user_id"), r.get("session_id"), r["kind"])


@dataclass
class MergePlan:
    """One merged memory to write: its members, the member whose text it keeps, its vector."""

    members: list[Candidate]
    medoid: Candidate
    vector: np.ndarray
    fidelity: float
    depth: int
    boost: float = 0.0

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.members]


@dataclass
class PlanCounters:
    refused: int = 0
    slot_conflicts: int = 0
    depth_limited: int = 0
    anchors: int = 0
    reconstruction_failed: int = 0
    timed_out: bool = False


def is_anchor(event_id: str, fraction: float) -> bool:
    """A fixed share of events, chosen by id hash (the same on every run and every process)."""
    if fraction <= 0:
        return False
    bucket = int(hashlib.sha256(event_id.encode()).hexdigest()[:8], 16) % 10_000
    return bucket < fraction * 10_000


def unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def conflicting(a: dict[tuple[str, str], str], b: dict[tuple[str, str], str]) -> bool:
    """Whether two memories state different values of one fact slot (subject, attribute)."""
    return any(slot in b and b[slot] != value for slot, value in a.items())


def plan_merges(
    candidates: Sequence[Candidate],
    threshold: float,
    *,
    max_merge: int,
    max_depth: int,
    deadline: float | None = None,
    counters: PlanCounters | None = None,
) -> list[MergePlan]:
    """Complete-linkage clusters of near-duplicates within each (scope, kind), spindles first."""
    counters = counters if counters is not None else PlanCounters()
    groups: dict[tuple[Any, ...], list[Candidate]] = {}
    for c in candidates:
        if not c.admitted:
            counters.refused += 1
        elif c.anchor:
            counters.anchors += 1
        elif c.depth >= max_depth:
            counters.depth_limited += 1
        else:
            groups.setdefault(c.scope, []).append(c)
    plans: list[MergePlan] = []
    for members in groups.values():
        if deadline is not None and time.monotonic() > deadline:
            counters.timed_out = True
            break
        if len(members) < 2:
            continue
        members.sort(key=lambda c: not c.retrieved_recently)  # spindles: recently used first (stable)
        matrix = np.stack([c.vector for c in members])
        sims = matrix @ matrix.T
        taken = np.zeros(len(members), dtype=bool)
        for i in range(len(members)):
            if taken[i]:
                continue
            cluster = [i]
            for j in np.nonzero(sims[i] > threshold)[0]:
                if len(cluster) >= max_merge:
                    break
                if j == i or taken[j] or not all(sims[j, k] > threshold for k in cluster):
                    continue
                if any(conflicting(members[j].slots, members[k].slots) for k in cluster):
                    counters.slot_conflicts += 1
                    continue
                cluster.append(int(j))
            if len(cluster) < 2:
                continue
            taken[cluster] = True
            plans.append(_plan([members[k] for k in cluster], sims[np.ix_(cluster, cluster)]))
    return plans


def _plan(members: list[Candidate], sims: np.ndarray) -> MergePlan:
    medoid = members[int(np.argmax(sims.sum(axis=1)))]
    vector = unit(np.mean(np.stack([m.vector for m in members]), axis=0)).astype(np.float32)
    fidelity = float(min(float(vector @ m.vector) for m in members))
    boost = 0.05 * sum(m.retrieved_recently for m in members) / len(members)
    return MergePlan(members, medoid, vector, fidelity, max(m.depth for m in members) + 1, boost)


def reconstruct(
    plans: list[MergePlan], live_ids: Sequence[str], live: np.ndarray, counters: PlanCounters, batch: int = 256
) -> list[MergePlan]:
    """Ripples: keep the plans whose merged vector ranks in the top five for every member's own
    vector, against every memory that stays live after all plans are applied."""
    if not plans:
        return []
    hidden = {i for p in plans for i in p.ids}
    keep_rows = np.array([i not in hidden for i in live_ids], dtype=bool)
    others = live[keep_rows] if live.size else live
    merged = np.stack([p.vector for p in plans])
    pool = np.concatenate([others, merged]) if others.size else merged
    offset = len(pool) - len(plans)
    queries = [(n, m.vector) for n, p in enumerate(plans) for m in p.members]
    failed: set[int] = set()
    for start in range(0, len(queries), batch):
        chunk = queries[start : start + batch]
        scores = np.stack([q for _, q in chunk]) @ pool.T
        k = min(RECONSTRUCTION_K, pool.shape[0])
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        for row, (plan_no, _) in enumerate(chunk):
            own = scores[row, offset + plan_no]
            # Ties count as found: equal vectors rank in storage order, which is no evidence.
            if offset + plan_no not in top[row] and own < scores[row, top[row]].min():
                failed.add(plan_no)
    counters.reconstruction_failed += len(failed)
    return [p for n, p in enumerate(plans) if n not in failed]


def merged_rows(
    plan: MergePlan,
    new_id: str,
    cycle_id: str,
    deltas_of: Callable[[str], Iterable[dict[str, Any]]],
    delta_id_for: Callable[[str], str],
    utility_now: Callable[[dict[str, Any]], float],
    mention_rows: Callable[[str], Iterable[dict[str, Any]]],
    now: float | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows of the merged memory: an event (the medoid's text, the members' centroid
    vector, ``meta["derives_from"]``), its delta, entity and mention rows."""
    now = time.time() if now is None else now
    base = plan.medoid.row
    rows = [m.row for m in plan.members]
    ids = plan.ids
    entities = list(dict.fromkeys(e for r in rows for e in (r.get("entities") or [])))
    parents = [p for p in dict.fromkeys(p for r in rows for p in (r.get("parent_ids") or [])) if p not in ids]
    meta = {
        **{k: v for k, v in (base.get("meta") or {}).items() if k not in ("derives_from", "consolidation")},
        "derives_from": ids,
        "consolidation": {"cycle": cycle_id, "depth": plan.depth, "fidelity": round(plan.fidelity, 4)},
    }
    digest = hashlib.sha256(("merged\0" + "\0".join(sorted(ids))).encode()).hexdigest()
    event = {
        **{k: v for k, v in base.items() if k not in ("seq", "about", "replaced_by", "replaced_at")},
        "id": new_id,
        "ts": max(float(r["ts"]) for r in rows),
        "created_at": now,
        "content_hash": digest,
        "confidence": max(float(r["confidence"]) for r in rows),
        "trust": min(float(r["trust"]) for r in rows),
        "entities": entities,
        "parent_ids": parents,
        "meta": meta,
        "embedding": plan.vector.astype(np.float32).tobytes(),
        "replaced_by": None,
        "replaced_at": None,
    }
    delta_rows: list[dict[str, Any]] = []
    template = next(iter(deltas_of(base["id"])), None)
    if template is not None:
        utility = max(utility_now(d) for m in plan.members for d in deltas_of(m.id) or [template])
        delta_rows.append({
            **template,
            "id": delta_id_for(new_id),
            "event_id": new_id,
            "ts": event["ts"],
            "utility": min(1.0, utility + plan.boost),
            "utility_ts": now,
        })
    entity_rows = [{"event_id": new_id, "entity": e.casefold(), "tenant": base["tenant"]} for e in dict.fromkeys(
        e.casefold() for e in entities)]
    mentions = [{**m, "event_id": new_id} for m in mention_rows(base["id"])]
    return event, delta_rows, entity_rows, mentions
