"""The write path: gateway → validate → normalise → dedupe → extract deltas → one SQL
transaction (events, deltas, provenance links, entity and full-text index, vector outbox).

Bad events are reported with their index and reason and the rest of the batch is stored; a
batch's good events are committed together or not at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from deltacore.delta import DeltaExtractor, break_cycles
from deltacore.delta.extract import summarize
from deltacore.delta.mentions import has_time_expression, mentioned_names
from deltacore.embedding import embed_texts
from deltacore.errors import InvalidEventError
from deltacore.gateway import Admission, Gateway
from deltacore.gateway.playbook import apply_decisions
from deltacore.gateway.scoring import TrustScorer, Verdict
from deltacore.governor import TokenCounter
from deltacore.ingest.normalize import content_hash, normalize_event
from deltacore.ingest.validation import coerce_event
from deltacore.model import Channel, Event, IngestResult, Rejection, TrustAction, TrustDecision
from deltacore.storage import SQLStore

log = logging.getLogger(__name__)


def delta_id_for(event_id: str) -> str:
    """Deterministic, so replaying a batch after a crash cannot create a second delta."""
    return hashlib.sha1(event_id.encode()).hexdigest()[:32]


def embedding_text(event: Event) -> str:
    if event.tool_name:
        args = json.dumps(event.tool_args, sort_keys=True, default=str) if event.tool_args else ""
        return " ".join(part for part in (event.text, event.tool_name, args) if part)
    return event.text


@dataclass
class _Candidate:
    index: int
    event: Event
    admission: Admission
    content_hash: str
    parents: list[str] = field(default_factory=list)  # delta ids
    trigger: str | None = None
    verdict: Verdict | None = None

    @property
    def namespace(self) -> str:
        if self.verdict is not None and self.verdict.namespace is not None:
            return self.verdict.namespace.value
        return self.admission.namespace.value

    @property
    def trust(self) -> float:
        return self.verdict.score if self.verdict is not None else self.admission.trust


class IngestPipeline:
    def __init__(
        self,
        sql: SQLStore,
        gateway: Gateway,
        extractor: DeltaExtractor,
        embedder: Any,
        tokens: TokenCounter,
        max_text_chars: int,
        scorer: TrustScorer | None = None,
        trust_store: Any = None,
    ) -> None:
        self._scorer = scorer
        self._trust_store = trust_store
        self._sql = sql
        self._gateway = gateway
        self._extractor = extractor
        self._embedder = embedder
        self._tokens = tokens
        self._max_text_chars = max_text_chars

    def run(self, raw_events: Sequence[Any], channel: Channel | None = None) -> IngestResult:
        event_ids: list[str | None] = [None] * len(raw_events)
        rejected: list[Rejection] = []
        duplicates: list[str] = []
        warnings: list[str] = []

        # 1. gateway, validation, normalisation; in-batch dedupe (first copy wins).
        candidates: list[_Candidate] = []
        first_with_id: dict[str, int] = {}
        first_with_hash: dict[tuple[str, str], int] = {}
        copies: list[tuple[int, int]] = []  # (index of a copy, index of the first occurrence)
        for index, raw in enumerate(raw_events):
            try:
                event = normalize_event(coerce_event(raw, index, self._max_text_chars))
            except InvalidEventError as exc:
                rejected.append(Rejection(index=index, field=exc.field, reason=exc.reason, event_id=_raw_id(raw)))
                continue
            digest = content_hash(event)
            first = first_with_id.get(event.id, first_with_hash.get((event.tenant, digest)))
            if first is not None:
                copies.append((index, first))
                continue
            first_with_id[event.id] = index
            first_with_hash[(event.tenant, digest)] = index
            candidates.append(_Candidate(index, event, self._gateway.admit(event, channel), digest))

        # 2. dedupe against the store (cheap pre-check so duplicates are never embedded), then
        # the trust gateway scores what is new; blocked events are never embedded nor stored.
        blocked: list[_Candidate] = []
        with self._sql.reader() as conn:
            candidates = self._drop_stored(conn, candidates, event_ids, duplicates)
            if candidates and self._scorer is not None:
                verdicts = self._scorer.evaluate(conn, [(c.event, c.admission) for c in candidates])
                for c, verdict in zip(candidates, verdicts):
                    c.verdict = verdict
                blocked = [c for c in candidates if c.verdict is not None and c.verdict.action is TrustAction.BLOCK]
                candidates = [c for c in candidates if c not in blocked]
        if not candidates and not blocked:
            _resolve_copies(event_ids, copies, duplicates)
            return IngestResult(event_ids=event_ids, duplicates=duplicates, rejected=rejected)

        # 3. embed outside any transaction: it is the slow part and needs no lock.
        vectors: dict[str, np.ndarray] = {}
        if candidates:
            matrix = embed_texts(self._embedder, [embedding_text(c.event) for c in candidates])
            vectors = {c.event.id: row for c, row in zip(candidates, matrix)}

        # 4. causal parents and deltas, then 5. one transaction (with the gateway's log,
        # reputation and E01 playbook, so a decision and its consequences commit together).
        loops: list[list[str]] = []
        inserted: set[str] = set()
        with self._sql.writer() as conn:
            # Re-check inside the write lock: another process may have stored a copy meanwhile.
            candidates = self._drop_stored(conn, candidates, event_ids, duplicates)
            if candidates:
                loops = self._link_parents(conn, candidates, warnings)
                rows = self._rows(candidates, vectors)
                inserted = self._sql.insert_batch(conn, *rows)
                self._sql.record_tool_schemas(conn, _tool_schema_rows(candidates, inserted))
                for loop in loops:
                    tenant = candidates[0].event.tenant
                    self._sql.log_system_event(conn, tenant, "CAUSAL_LOOP", {"cycle": loop, "code": "E02"})
            decided = [c for c in candidates if c.event.id in inserted] + blocked
            decided.sort(key=lambda c: c.index)
            if self._scorer is not None and decided:
                playbook = apply_decisions(
                    conn,
                    self._trust_store,
                    self._scorer.policy,
                    [(c.event, c.verdict) for c in decided if c.verdict is not None],
                    delta_id_for,
                )
                if playbook.quarantined:
                    warnings.append(f"{len(playbook.quarantined)} earlier events quarantined by the E01 playbook")
        self._sql.note_inserted(len(inserted))
        stored: list[str] = []
        delta_ids: list[str] = []
        for candidate in candidates:
            event_ids[candidate.index] = candidate.event.id
            if candidate.event.id in inserted:
                stored.append(candidate.event.id)
                delta_ids.append(delta_id_for(candidate.event.id))
            else:
                duplicates.append(candidate.event.id)
        for c in blocked:
            # A blocked write looks accepted to its writer (the seed: never reveal detection).
            event_ids[c.index] = c.event.id
        _resolve_copies(event_ids, copies, duplicates)
        decisions = [
            TrustDecision(
                index=c.index,
                event_id=c.event.id,
                source=c.event.source,
                score=c.verdict.score,
                action=c.verdict.action,
                namespace=c.verdict.namespace,
                reasons=c.verdict.reasons,
                signals=c.verdict.signals,
            )
            for c in decided
            if c.verdict is not None
        ]
        for loop in loops:
            message = f"E02 CIRCULAR_CAUSAL_CHAIN: {' -> '.join(loop)}; broken at its lowest-utility edge"
            log.warning(message)
            warnings.append(message)
        return IngestResult(
            event_ids=event_ids,
            stored=stored,
            duplicates=duplicates,
            rejected=rejected,
            delta_ids=delta_ids,
            warnings=warnings,
            causal_loops=loops,
            decisions=decisions,
            quarantined=[d.event_id for d in decisions if d.action is TrustAction.QUARANTINE],
            blocked=[c.event.id for c in blocked],
        )

    def _drop_stored(
        self, conn: Any, candidates: list[_Candidate], event_ids: list[str | None], duplicates: list[str]
    ) -> list[_Candidate]:
        if not candidates:
            return candidates
        existing_ids = self._sql.existing_event_ids(conn, [c.event.id for c in candidates])
        by_tenant: dict[str, list[str]] = {}
        for c in candidates:
            by_tenant.setdefault(c.event.tenant, []).append(c.content_hash)
        existing_hashes = {
            (tenant, digest): event_id
            for tenant, digests in by_tenant.items()
            for digest, event_id in self._sql.existing_hashes(conn, tenant, digests).items()
        }
        kept = []
        for c in candidates:
            existing = c.event.id if c.event.id in existing_ids else existing_hashes.get((c.event.tenant, c.content_hash))
            if existing is None:
                kept.append(c)
            else:
                event_ids[c.index] = existing
                duplicates.append(existing)
        return kept

    def _link_parents(self, conn: Any, candidates: list[_Candidate], warnings: list[str]) -> list[list[str]]:
        """Resolve each event's causal parents to delta ids; break loops among the new ones."""
        new_by_event = {c.event.id: c for c in candidates}
        wanted_parents = {p for c in candidates for p in c.event.parent_ids if p not in new_by_event}
        stored_parents = self._sql.delta_ids_for_events(conn, wanted_parents)
        # Steps of one episode without explicit parents are chained in time order.
        order = sorted(candidates, key=lambda c: (c.event.ts, c.index))
        tails = {}
        for tenant in {c.event.tenant for c in candidates}:
            episodes = {c.event.episode_id for c in candidates if c.event.tenant == tenant and c.event.episode_id}
            for episode_id, tail in self._sql.episode_tails(conn, tenant, episodes).items():
                tails[(tenant, episode_id)] = tail
        last_in_episode: dict[tuple[str, str], str] = {}
        for c in order:
            event = c.event
            if event.parent_ids:
                for parent in event.parent_ids:
                    if parent in new_by_event:
                        c.parents.append(delta_id_for(parent))
                    elif parent in stored_parents:
                        c.parents.append(stored_parents[parent])
                    else:
                        warnings.append(
                            f"event[{c.index}].parent_ids: '{parent}' is not stored; the causal link was dropped"
                        )
            elif event.episode_id:
                key = (event.tenant, event.episode_id)
                if key in last_in_episode:
                    c.parents.append(last_in_episode[key])
                elif key in tails and tails[key][1] <= event.ts.timestamp():
                    c.parents.append(tails[key][0])
            if event.episode_id:
                last_in_episode[(event.tenant, event.episode_id)] = delta_id_for(event.id)
            c.parents = list(dict.fromkeys(p for p in c.parents if p != delta_id_for(event.id)))

        graph = {delta_id_for(c.event.id): c.parents for c in candidates}
        drafts_utility = {delta_id_for(c.event.id): self._extractor.extract(c.event, None).utility for c in candidates}
        loops = break_cycles(graph, list(graph), lambda node: drafts_utility.get(node, 0.5))
        for c in candidates:
            c.parents = graph[delta_id_for(c.event.id)]
        self._set_triggers(conn, candidates, new_by_event)
        return loops

    def _set_triggers(self, conn: Any, candidates: list[_Candidate], new_by_event: dict[str, _Candidate]) -> None:
        new_by_delta = {delta_id_for(event_id): c for event_id, c in new_by_event.items()}
        stored = self._sql.fetch_deltas(conn, [p for c in candidates for p in c.parents if p not in new_by_delta])
        for c in candidates:
            if not c.parents:
                continue
            first = c.parents[0]
            if first in new_by_delta:
                parent_event = new_by_delta[first].event
                c.trigger = f"{parent_event.actor or parent_event.role or parent_event.kind.value}: {summarize(parent_event.text or parent_event.tool_name or '', 160)}"
            elif first in stored:
                row = stored[first]
                c.trigger = f"{row.action}: {summarize(row.result, 160)}"

    def _rows(
        self, candidates: list[_Candidate], vectors: dict[str, np.ndarray]
    ) -> tuple[list[dict], list[dict], list[dict], list[dict], list[dict]]:
        now = time.time()
        event_rows, delta_rows, link_rows, entity_rows, mention_rows = [], [], [], [], []
        for c in candidates:
            event = c.event
            vector = vectors[event.id]
            ts = event.ts.timestamp()
            # Events and their deltas carry the same scope, so a delete or forget finds both.
            scope = {
                "tenant": event.tenant,
                "agent_id": event.agent_id,
                "user_id": event.user_id,
                "session_id": event.session_id,
                "episode_id": event.episode_id,
                "ts": ts,
                "kind": event.kind.value,
            }
            event_rows.append(
                {
                    "id": event.id,
                    **scope,
                    "role": event.role,
                    "actor": event.actor,
                    "source": event.source,
                    "channel": c.admission.channel.value,
                    "namespace": c.namespace,
                    "text": event.text,
                    "content_hash": c.content_hash,
                    "confidence": event.confidence,
                    "trust": c.trust,
                    "tool_name": event.tool_name,
                    "tool_args": event.tool_args,
                    "tool_schema_hash": event.tool_schema_hash,
                    "entities": list(event.entities),
                    "parent_ids": list(event.parent_ids),
                    "meta": event.meta,
                    # What the memory costs in a prompt: a tool call with no text is shown as its
                    # tool and arguments, never as free.
                    "token_count": self._tokens.count(event.text or embedding_text(event)),
                    "has_time": int(has_time_expression(event.text)),
                    "embedding": np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
                    "created_at": now,
                }
            )
            draft = self._extractor.extract(event, c.trigger)
            delta_id = delta_id_for(event.id)
            delta_rows.append(
                {
                    "id": delta_id,
                    "event_id": event.id,
                    **scope,
                    "trigger": draft.trigger,
                    "action": draft.action,
                    "result": draft.result,
                    "subject": draft.subject,
                    "predicate": draft.predicate,
                    "object": draft.object,
                    "utility": draft.utility,
                    "utility_ts": ts,
                    "credit": 0.0,
                    "namespace": c.namespace,
                    "tool_name": event.tool_name,
                    "tool_schema_hash": event.tool_schema_hash,
                    "conflict_flags": [],
                }
            )
            relation = "parent" if event.parent_ids else "sequence"
            link_rows.extend({"child_id": delta_id, "parent_id": p, "relation": relation} for p in c.parents)
            entity_rows.extend(
                {"event_id": event.id, "entity": e.casefold(), "tenant": event.tenant}
                for e in dict.fromkeys(e.casefold() for e in event.entities)
            )
            names = {name: "mention" for name in mentioned_names(event.text)}
            if event.actor:
                names[event.actor.casefold()] = "actor"  # who spoke outranks being mentioned
            mention_rows.extend(
                {"event_id": event.id, "name": name[:256], "role": role, "tenant": event.tenant}
                for name, role in names.items()
            )
        return event_rows, delta_rows, link_rows, entity_rows, mention_rows


def _tool_schema_rows(candidates: list[_Candidate], inserted: set[str]) -> list[dict[str, Any]]:
    now = time.time()
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for c in candidates:
        event = c.event
        # A quarantined write must not teach the registry a schema (that would launder a spoof).
        if c.namespace == "quarantine":
            continue
        if event.id in inserted and event.tool_name and event.tool_schema is not None and event.tool_schema_hash:
            key = (event.tenant, event.tool_name, event.tool_schema_hash)
            rows[key] = {
                "tenant": event.tenant,
                "tool_name": event.tool_name,
                "schema_hash": event.tool_schema_hash,
                "schema": event.tool_schema,
                "first_seen": event.ts.timestamp(),
                "last_seen": event.ts.timestamp() if event.ts.timestamp() <= now else now,
            }
    return list(rows.values())


def _resolve_copies(event_ids: list[str | None], copies: list[tuple[int, int]], duplicates: list[str]) -> None:
    """A repeated event in a batch gets the id its first occurrence ended up with."""
    for index, first in copies:
        event_ids[index] = event_ids[first]
        if event_ids[index] is not None:
            duplicates.append(event_ids[index])  # type: ignore[arg-type]


def _raw_id(raw: Any) -> str | None:
    value = raw.get("id") if isinstance(raw, dict) else getattr(raw, "id", None)
    return value if isinstance(value, str) else None

