"""The write path, owned here from the raw batch to the after-commit steps.

validate → screen (the gateway's verdicts; it writes nothing) → embed → derive deltas → one
write set in **one transaction** (events, deltas, provenance links, entity and full-text index,
vector outbox, tool schemas, and the journal of durable after-commit steps) → after-commit steps
(``after_commit``: the trust playbook, the vector outbox, tool-schema drift, honeypots, and
whatever later layers register).

Bad events are reported with their index and reason and the rest of the batch is stored; a
batch's good events are committed together or not at all.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from deltacore.delta import DeltaExtractor
from deltacore.delta.derive import StoredContext, StoredParent, derive, parents_wanted, stored_parent_ids
from deltacore.delta.ids import delta_id_for
from deltacore.embedding import embed_texts
from deltacore.gateway.screen import TrustGateway
from deltacore.governor import TokenCounter
from deltacore.ingest.after_commit import AfterCommitSteps
from deltacore.ingest.batch import validate_batch
from deltacore.ingest.validation import FieldLimits
from deltacore.ingest.stages import Admitted, CommittedBatch, Screened, StepOutcome, ValidatedBatch
from deltacore.ingest.write_set import build_write_set, embedding_text, tool_schema_rows
from deltacore.model import Channel, IngestResult, Namespace, TrustAction

log = logging.getLogger(__name__)

__all__ = ["IngestPipeline", "WriteStore", "delta_id_for", "embedding_text"]


class WriteStore(Protocol):
    """What the write path reads and writes (storage's events repository provides it)."""

    def reader(self) -> AbstractContextManager[Any]: ...

    def writer(self) -> AbstractContextManager[Any]: ...

    def existing_event_ids(self, conn: Any, ids: Sequence[str]) -> set[str]: ...

    def existing_hashes(self, conn: Any, tenant: str, hashes: Sequence[str]) -> dict[str, str]: ...

    def delta_ids_for_events(self, conn: Any, event_ids: Iterable[str]) -> dict[str, str]: ...

    def episode_tails(self, conn: Any, tenant: str, episode_ids: Iterable[str]) -> dict[str, tuple[str, float]]: ...

    def fetch_deltas(self, conn: Any, delta_ids: Sequence[str]) -> dict[str, Any]: ...

    def insert_batch(self, conn: Any, events: list[dict], deltas: list[dict], links: list[dict], entities: list[dict], mentions: list[dict]) -> set[str]: ...

    def record_tool_schemas(self, conn: Any, rows: list[dict[str, Any]]) -> None: ...

    def log_system_event(self, conn: Any, tenant: str, kind: str, payload: dict[str, Any]) -> None: ...

    def note_inserted(self, rows: int) -> None: ...

    def replace_version(self, conn: Any, tenant: str, old_id: str, new_id: str, now: float) -> str | None: ...


class IngestPipeline:
    def __init__(
        self,
        store: WriteStore,
        gateway: TrustGateway,
        extractor: DeltaExtractor,
        embedder: Any,
        tokens: TokenCounter,
        limits: FieldLimits | int,
        after_commit: AfterCommitSteps,
        dedupe: str = "occurrence",
        embed_inline: bool | Callable[[], bool] = True,
        embed_ahead: Callable[[list[tuple[str, str]], int], None] | None = None,
    ) -> None:
        self._dedupe = dedupe  # DeltaCoreConfig.dedupe
        # DeltaCoreConfig.vector_writes: "background" commits without vectors; the outbox
        # drain embeds them in batches, so a write costs no embedder call. A callable is asked
        # per write (a process that cannot drain the outbox embeds its writes itself).
        self._embed_inline = embed_inline if callable(embed_inline) else (lambda: embed_inline)
        # With background vector writes, the write hands the events the gateway lets through to
        # the engine as it goes, so their embedding overlaps the write (engine/vector_writes.py).
        self._embed_ahead = embed_ahead
        self._store = store
        self._gateway = gateway
        self._extractor = extractor
        self._embedder = embedder
        self._tokens = tokens
        self._limits = limits
        self.after_commit = after_commit
        """The ordered after-commit steps; later layers register theirs here."""

    def validate(self, raw_events: Sequence[Any], channel: Channel | None = None) -> ValidatedBatch:
        """Stage one alone (no I/O): what a staged write checks before it is acknowledged."""
        return validate_batch(raw_events, channel, self._gateway.admit, self._limits, self._dedupe)

    def run(
        self,
        raw_events: Sequence[Any],
        channel: Channel | None = None,
        replaces: Mapping[int, str] | None = None,
        in_transaction: Callable[[Any], None] | None = None,
    ) -> IngestResult:
        """``replaces`` maps a batch index to the stored memory that event is a new version of
        (``DeltaCore.update``): the old version is marked replaced in the same transaction,
        unless the gateway quarantined (or blocked) the new one. ``in_transaction(conn)`` runs
        inside the write's transaction when there is one (the staged inbox removes its rows
        there, so a crash neither loses nor repeats them)."""
        replaces = replaces or {}
        batch = self.validate(raw_events, channel)
        event_ids: list[str | None] = [None] * len(raw_events)
        duplicates: list[str] = []

        # Dedupe against the store first (duplicates are never scored nor embedded), then the
        # gateway's verdicts; a blocked event is never embedded nor stored.
        with self._store.reader() as conn:
            fresh = self._unstored(conn, list(batch.items), event_ids, duplicates, replaces)
            ahead = self._ahead_feed(fresh)
            screened = self._screen(conn, fresh, ahead.on_verdict if ahead is not None else None)
        if ahead is not None:
            ahead.flush()
        new = [s for s in screened if not s.blocked]
        blocked = [s for s in screened if s.blocked]
        if not new and not blocked:
            _resolve_copies(event_ids, batch.copies, duplicates)
            return IngestResult(event_ids=event_ids, duplicates=duplicates, rejected=list(batch.rejected))

        # Embedding is the slow part and needs no lock: it runs outside any transaction.
        # The store's first write embeds even with background writes: that first call checks the
        # embedder against the store (CheckedEmbedder.checked) on real texts, not a probe text.
        vectors: dict[str, np.ndarray] = {}
        if new and (self._embed_inline() or not getattr(self._embedder, "checked", True)):
            matrix = embed_texts(self._embedder, [embedding_text(s.event) for s in new])
            vectors = {s.event.id: row for s, row in zip(new, matrix)}

        warnings: list[str] = []
        loops: tuple[tuple[str, ...], ...] = ()
        inserted: set[str] = set()
        with self._store.writer() as conn:
            # Again inside the write lock: another process may have stored a copy meanwhile.
            kept = {s.event.id for s in self._unstored(conn, [s.item for s in new], event_ids, duplicates, replaces)}
            new = [s for s in new if s.event.id in kept]
            if new:
                derivation = derive([(s.index, s.event) for s in new], self._stored_context(conn, new), self._extractor)
                warnings.extend(derivation.warnings)
                loops = derivation.loops
                rows = build_write_set(new, derivation, vectors, self._tokens)
                inserted = self._store.insert_batch(
                    conn, list(rows.events), list(rows.deltas), list(rows.links), list(rows.entities), list(rows.mentions)
                )
                self._store.record_tool_schemas(conn, tool_schema_rows(new, inserted))
                for tenant, kind, payload in rows.system_events:
                    self._store.log_system_event(conn, tenant, kind, payload)
            stored = [s for s in new if s.event.id in inserted]
            for s in stored:
                # A quarantined version must not hide the one it claims to replace: that would
                # let an untrusted write take a trusted memory out of retrieval.
                if s.index in replaces and s.namespace != Namespace.QUARANTINE.value:
                    self._store.replace_version(conn, s.event.tenant, replaces[s.index], s.event.id, time.time())
            committed = CommittedBatch(
                stored=tuple(stored),
                blocked=tuple(blocked),
                decided=tuple(sorted((s for s in [*stored, *blocked] if s.verdict is not None), key=lambda s: s.index)),
                tenants=frozenset(item.event.tenant for item in batch.items),
            )
            durable = self.after_commit.apply_durable(conn, committed)
            if in_transaction is not None:
                in_transaction(conn)
        self._store.note_inserted(len(inserted))
        outcomes = self.after_commit.run(committed, durable)

        for s in new:
            event_ids[s.index] = s.event.id
            if s.event.id not in inserted:
                duplicates.append(s.event.id)
        for s in blocked:
            # A blocked write looks accepted to its writer: detection is never revealed.
            event_ids[s.index] = s.event.id
        _resolve_copies(event_ids, batch.copies, duplicates)
        return _result(event_ids, duplicates, batch.rejected, committed, warnings, loops, outcomes)

    def _unstored(
        self,
        conn: Any,
        items: list[Admitted],
        event_ids: list[str | None],
        duplicates: list[str],
        replaces: Mapping[int, str] | None = None,
    ) -> list[Admitted]:
        """The items not stored yet; a stored one's index gets the stored copy's id. A new
        version (``replaces``) is matched by id only: its content may equal the version it
        replaces (a change of ``meta`` alone), and that is not a duplicate."""
        replaces = replaces or {}
        if not items:
            return items
        existing_ids = self._store.existing_event_ids(conn, [item.event.id for item in items])
        by_tenant: dict[str, list[str]] = {}
        for item in items:
            by_tenant.setdefault(item.event.tenant, []).append(item.content_hash)
        existing_hashes = {
            (tenant, digest): event_id
            for tenant, digests in by_tenant.items()
            for digest, event_id in self._store.existing_hashes(conn, tenant, digests).items()
        }
        kept = []
        for item in items:
            event = item.event
            by_hash = None if item.index in replaces else existing_hashes.get((event.tenant, item.content_hash))
            existing = event.id if event.id in existing_ids else by_hash
            if existing is None:
                kept.append(item)
            else:
                event_ids[item.index] = existing
                duplicates.append(existing)
        return kept

    def _screen(self, conn: Any, items: list[Admitted], on_verdict: Callable[[int, Any], None] | None = None) -> list[Screened]:
        if not items:
            return []
        verdicts = self._gateway.screen(conn, [(item.event, item.admission) for item in items], on_verdict)
        return [Screened(item, verdict) for item, verdict in zip(items, verdicts)]

    def _ahead_feed(self, fresh: list[Admitted]) -> _AheadFeed | None:
        """With background vector writes, what the gateway lets through is handed to the engine
        in chunks while the gateway still scores the rest, so the embedding overlaps the scoring,
        the transaction and the after-commit steps (engine/vector_writes.py); a blocked event is
        never embedded."""
        if not fresh or self._embed_ahead is None or self._embed_inline() or not getattr(self._embedder, "checked", True):
            return None
        return _AheadFeed(fresh, self._embed_ahead)

    def _stored_context(self, conn: Any, new: list[Screened]) -> StoredContext:
        """What the new deltas link to among stored ones: explicit parents, episode tails."""
        explicit, episodes = parents_wanted([s.event for s in new])
        tails: dict[tuple[str, str], tuple[str, float]] = {}
        for tenant, episode_ids in episodes.items():
            for episode_id, tail in self._store.episode_tails(conn, tenant, episode_ids).items():
                tails[(tenant, episode_id)] = tail
        context = StoredContext(delta_of_event=self._store.delta_ids_for_events(conn, explicit), episode_tails=tails)
        rows = self._store.fetch_deltas(conn, stored_parent_ids(context))
        parents = {delta_id: StoredParent(row.action, row.result) for delta_id, row in rows.items()}
        return StoredContext(context.delta_of_event, context.episode_tails, parents)


def _result(
    event_ids: list[str | None],
    duplicates: list[str],
    rejected: Sequence[Any],
    committed: CommittedBatch,
    warnings: list[str],
    loops: tuple[tuple[str, ...], ...],
    outcomes: list[StepOutcome],
) -> IngestResult:
    updates: dict[str, Any] = {}
    for outcome in outcomes:
        warnings.extend(outcome.warnings)
        updates.update(outcome.updates)
    for loop in loops:
        message = f"E02 CIRCULAR_CAUSAL_CHAIN: {' -> '.join(loop)}; broken at its lowest-utility edge"
        log.warning(message)
        warnings.append(message)
    decisions = [d for d in (s.decision() for s in committed.decided) if d is not None]
    return IngestResult(
        event_ids=event_ids,
        stored=committed.stored_ids,
        duplicates=duplicates,
        rejected=list(rejected),
        delta_ids=[delta_id_for(event_id) for event_id in committed.stored_ids],
        warnings=warnings,
        causal_loops=[list(loop) for loop in loops],
        decisions=decisions,
        quarantined=[d.event_id for d in decisions if d.action is TrustAction.QUARANTINE],
        blocked=[s.event.id for s in committed.blocked],
        **updates,
    )


def _resolve_copies(event_ids: list[str | None], copies: Sequence[tuple[int, int]], duplicates: list[str]) -> None:
    """A repeated event in a batch gets the id its first occurrence ended up with."""
    for index, first in copies:
        event_ids[index] = event_ids[first]
        if event_ids[index] is not None:
            duplicates.append(event_ids[index])  # type: ignore[arg-type]


class _AheadFeed:
    """Collects the events the gateway lets through and hands them on, a chunk at a time."""

    CHUNK = 32

    def __init__(self, items: list[Admitted], embed_ahead: Callable[[list[tuple[str, str]], int], None]) -> None:
        self._items, self._embed_ahead = items, embed_ahead
        self._waiting: list[tuple[str, str]] = []

    def on_verdict(self, index: int, verdict: Any) -> None:
        if verdict is not None and verdict.action is TrustAction.BLOCK:
            return
        event = self._items[index].event
        self._waiting.append((event.id, embedding_text(event)))
        if len(self._waiting) >= self.CHUNK:
            self.flush()

    def flush(self) -> None:
        if self._waiting:
            chunk, self._waiting = self._waiting, []
            self._embed_ahead(chunk, len(self._items))
