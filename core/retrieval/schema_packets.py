"""Schemas on the read path: the ``schema`` router's candidates and the packets they become.

A learned schema (``core/learning/schemas.py``, extracted and merged by NREM) is matched by the
texts that trigger it: the tasks of the episodes that back it and their text templates (for an
imported prior with no episode here, the examples it was imported with), plus a line naming its
steps. Everything a packet says is read live, at query time, from the episodes that survive in
the query's scope:

- **support** — the tenant's latest episodes whose pattern is the schema's (a merged-away
  schema's episodes count for its survivor, as plan recall pools them), with every call of the
  pattern inside the query's scope (agent, user, session, episode, time range, ``min_trust``;
  trusted only for ``for_decision``). A quarantined event is never part of an episode
  (``storage/plan_store.py``), so quarantined support never counts, whatever the query says;
  an erased episode has no events left and is never cited. A ``LEARNED`` schema without
  support does not surface (nothing here can vouch for it).
- **statistics** — the schema's prior (``utility``, ``confidence``) plus its supporting
  episodes' successes and failures (transient failures aside), as ``schema_get`` reports them.
- **fidelity** — REM's ``steps × rate`` against the same episodes (``consolidation/schemas.py``),
  flagged ``LOW_FIDELITY`` under the floor.

Why the stored ``support`` (what the last cycle saw) is not what the packet cites: it is written
once per cycle, so it can name an episode a forget has erased since; the live read cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from deltacore.consolidation.schemas import fidelity
from deltacore.governor import TokenCounter
from deltacore.learning import PlanRecall
from deltacore.learning.episodes import Trace
from deltacore.learning.evidence import prior_of
from deltacore.learning.merging import survivor_of
from deltacore.learning.recall import STALE_SECONDS
from deltacore.model import Delta, MemoryFlag, MemoryPacket, Namespace, PacketKind, QueryCriteria, SchemaMatch
from deltacore.model.plans import SchemaStep, Slot
from deltacore.storage.plan_store import PlanRepository

PREFIX = "schema:"
"""A schema packet's id is ``schema:<schema_id>``: it can never be taken for an event id."""
MIN_SIMILARITY = 0.35
"""A schema is proposed when the query's cosine to one of its trigger texts reaches this."""
SUPPORT_SHOWN = 20
"""Supporting episodes a packet names (the newest), as consolidation's ``support`` keeps."""
_CACHE = 20000


@dataclass
class SchemaCandidate:
    schema_id: str
    row: dict[str, Any]
    traces: list[Trace]
    """Supporting episodes in the query's scope, oldest first."""
    access: dict[str, tuple[str, float]] = field(default_factory=dict)
    """Supporting call id -> (namespace, trust)."""
    similarity: float = 0.0


class SchemaSource:
    """Finds the schemas a query's text triggers and builds their packets."""

    def __init__(
        self,
        plans: PlanRepository,
        recall: PlanRecall,
        embed: Callable[[list[str]], np.ndarray],
        tokens: TokenCounter,
        fidelity_floor: float = 0.7,
    ) -> None:
        self._plans = plans
        self._recall = recall
        self._embed = embed
        self._tokens = tokens
        self._floor = fidelity_floor
        self._vectors: dict[str, np.ndarray] = {}

    # ---- the router's search -----------------------------------------------------------------

    def search(self, conn: Any, criteria: QueryCriteria, scope: Any, query_vector: np.ndarray, limit: int) -> list[SchemaCandidate]:
        """The schemas the query triggers, best first (at most ``limit``)."""
        if not criteria.text or criteria.kinds:
            return []  # a schema is no event kind: a query for some kinds of events wants events
        tenant = criteria.tenant
        stored = self._plans.current_schemas(conn, tenant)
        live = {sid: row for sid, row in stored.items() if not row["body"].get("disabled") and not row["body"].get("merged_into")}
        if not live:
            return []
        by_schema: dict[str, list[Trace]] = {}
        for trace in self._recall.traces(conn, tenant):
            if not trace.plan:
                continue
            target = survivor_of(trace.schema_id, stored)
            if target in live:
                by_schema.setdefault(target, []).append(trace)
        calls = [c.event_id for traces in by_schema.values() for t in traces for c in t.plan]
        access = self._plans.events_within(
            conn, calls, scope, min_trust=criteria.min_trust, trusted_only=criteria.for_decision
        ) if calls else {}
        until = criteria.as_of.timestamp() if criteria.as_of is not None else None
        candidates = []
        for sid, row in live.items():
            traces = [
                t for t in by_schema.get(sid, ())
                if all(c.event_id in access for c in t.plan) and (until is None or t.ts <= until)
            ]  # fmt: skip
            if not traces and row["provenance"] != "PRIOR":
                continue
            candidate = SchemaCandidate(sid, row, traces, {c.event_id: access[c.event_id] for t in traces for c in t.plan})
            candidate.similarity = self._similarity(query_vector, _trigger_texts(candidate))
            if candidate.similarity >= MIN_SIMILARITY:
                candidates.append(candidate)
        candidates.sort(key=lambda c: (-c.similarity, c.schema_id))
        return candidates[:limit]

    def _similarity(self, query: np.ndarray, texts: Sequence[str]) -> float:
        wanted = [t for t in dict.fromkeys(texts) if t and t not in self._vectors]
        if wanted:
            if len(self._vectors) > _CACHE:
                self._vectors.clear()
            for text, vector in zip(wanted, np.asarray(self._embed(wanted), dtype=np.float32)):
                self._vectors[text] = vector / (float(np.linalg.norm(vector)) or 1.0)
        q = np.asarray(query, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        return max((float(np.dot(q, self._vectors[t])) for t in texts if t), default=0.0)

    # ---- packets ---------------------------------------------------------------------------------

    def packet(
        self,
        candidate: SchemaCandidate,
        score: float,
        routers: dict[str, int],
        criteria: QueryCriteria,
        delta_rows: dict[str, list[Any]],
        make_delta: Callable[[Any], Delta],
        now: float,
    ) -> MemoryPacket | None:
        """The schema as a packet, or None when the query's filters leave it out.

        ``delta_rows``: the deltas of the supporting calls (event id -> rows)."""
        flags: set[MemoryFlag] = set()
        traces = list(candidate.traces)
        if criteria.exclude_tainted:
            # A poisoned episode (a tainted delta in its plan) does not vouch for the schema.
            traces = [t for t in traces if not any("tainted" in (d.conflict_flags or ()) for c in t.plan for d in delta_rows.get(c.event_id, ()))]
        if not traces and candidate.row["provenance"] != "PRIOR":
            return None
        body = candidate.row["body"]
        successes = sum(t.status == "success" for t in traces)
        failures = sum(t.status == "failure" for t in traces)
        alpha0, beta0 = prior_of(body.get("utility", 0.5), body.get("confidence", 0.0))
        probability = (alpha0 + successes) / (alpha0 + beta0 + successes + failures)
        if criteria.min_utility is not None and probability < criteria.min_utility:
            return None
        score_fidelity = round(fidelity(body, traces), 4) if traces else None
        low = score_fidelity is not None and score_fidelity < self._floor
        if low:
            flags.add(MemoryFlag.LOW_FIDELITY)
        newest = max((t.ts for t in traces), default=None)
        if newest is not None and now - newest > STALE_SECONDS:
            if criteria.exclude_stale:
                return None
            flags.add(MemoryFlag.STALE)
        shown = sorted(traces, key=lambda t: -t.ts)[:SUPPORT_SHOWN]
        calls = [c.event_id for t in shown for c in t.plan]
        deltas = tuple(make_delta(d) for e in calls for d in delta_rows.get(e, ()))
        namespaces = {candidate.access[e][0] for e in calls if e in candidate.access}
        if namespaces - {Namespace.TRUSTED.value}:
            flags.add(MemoryFlag.UNVERIFIED)
        for delta in deltas:
            if "stale" in delta.conflict_flags or "schema_drift" in delta.conflict_flags:
                flags.add(MemoryFlag.SCHEMA_DRIFT if "schema_drift" in delta.conflict_flags else MemoryFlag.STALE)
        match = SchemaMatch(
            schema_id=candidate.schema_id,
            version=int(candidate.row["version"]),
            provenance=candidate.row["provenance"],
            kind=body.get("kind"),
            steps=tuple(SchemaStep.model_validate(s) for s in body.get("steps", ())),
            slots=tuple(Slot.model_validate(s) for s in body.get("slots", ())),
            successes=successes,
            failures=failures,
            transient_failures=len(traces) - successes - failures,
            probability=round(probability, 6),
            fidelity=score_fidelity,
            low_fidelity=low,
            episode_ids=tuple(t.episode_id for t in shown),
            event_ids=tuple(calls),
            similarity=round(candidate.similarity, 6),
        )
        text = schema_text(match, _examples(candidate))
        trust = min((candidate.access[e][1] for e in calls if e in candidate.access), default=1.0)
        return MemoryPacket(
            id=PREFIX + candidate.schema_id,
            text=text,
            kind=PacketKind.SCHEMA,
            ts=datetime.fromtimestamp(newest if newest is not None else float(candidate.row["created"]), timezone.utc),
            score=score,
            routers=routers,
            tenant=criteria.tenant,
            deltas=deltas if criteria.include_deltas else (),
            provenance=tuple(d.id for d in deltas),
            confidence=round(probability, 6),
            trust=trust,
            utility=round(probability, 6),
            namespace=Namespace.UNVERIFIED if MemoryFlag.UNVERIFIED in flags else Namespace.TRUSTED,
            flags=frozenset(flags),
            token_cost=self._tokens.count(text),
            meta={"schema_id": candidate.schema_id, "version": match.version},
            schema_match=match,
        )


def _examples(candidate: SchemaCandidate) -> list[str]:
    """Task texts with slots, newest first: from the live episodes; from the body only for an
    imported prior (a learned schema's stored examples may quote an erased episode)."""
    found = [t.text_template for t in sorted(candidate.traces, key=lambda t: -t.ts) if t.text_template]
    if candidate.row["provenance"] == "PRIOR":
        found += [str(t) for t in candidate.row["body"].get("text_templates") or ()]
    return list(dict.fromkeys(found))


def _trigger_texts(candidate: SchemaCandidate) -> list[str]:
    texts = [t.situation.text for t in candidate.traces] + _examples(candidate)
    if candidate.row["provenance"] == "PRIOR":
        texts += [str(s.get("text") or "") for s in candidate.row["body"].get("situations") or () if isinstance(s, dict)]
    steps = candidate.row["body"].get("steps") or ()
    texts.append(" then ".join(str(s.get("tool", "")).replace("_", " ") for s in steps))
    return [t for t in texts if t]


def schema_text(match: SchemaMatch, examples: Sequence[str]) -> str:
    """A schema packet as a model reads it: when it applies, its steps, how often it worked."""
    calls = " → ".join(
        f"{s.tool}({', '.join(f'{k}={v}' for k, v in sorted(s.template.items()))})" for s in match.steps
    )
    counted = match.successes + match.failures
    record = f"{match.successes} of {counted} episodes succeeded" if counted else "no outcome in this store yet"
    fid = "" if match.fidelity is None else f", fidelity {match.fidelity:.2f}" + (" (low)" if match.low_fidelity else "")
    when = f" for tasks like {examples[0]!r}" if examples else (f" for {match.kind} tasks" if match.kind else "")
    return f"Schema{when}: {calls} ({record}, p={match.probability:.2f}{fid})"


def is_schema_id(item_id: str) -> bool:
    return item_id.startswith(PREFIX)
