"""DeltaCore as a CrewAI memory ``StorageBackend``.

``DeltaCoreStorage`` implements the ``crewai.memory.storage.backend.StorageBackend`` protocol
(crewai 1.15) over one DeltaCore store, so ``Memory(storage=DeltaCoreStorage(store))`` keeps
CrewAI's memories in DeltaCore and recalls DeltaCore's other events (tool calls and results,
task outputs, outcomes recorded by the listener) as memory records.

Mapping (``MemoryRecord`` → DeltaCore ``Event``):

========================  =========================================================================
``id``                    event id (so ``get_record``/``delete(record_ids=)`` address the same row)
``content``               ``text``; kind ``fact``; channel ``agent`` (``channel=``); source ``crewai:memory``
``scope``                 ``meta["crewai_memory"]["scope"]``, plus one entity ``crewai-scope:<path>``
                          per ancestor path, so ``scope_prefix`` is DeltaCore's ``entity`` filter (SQL)
``categories``            ``meta["crewai_memory"]["categories"]`` (filtered after the query); events
                          not written through this backend have the category ``[<event kind>]``
``importance``            ``meta["crewai_memory"]["importance"]``; DeltaCore ranks by its fused score
``metadata``              ``meta["crewai_memory"]["metadata"]`` (``metadata_filter`` after the query)
``source``/``private``    ``meta["crewai_memory"]``; CrewAI's ``recall`` applies the private rule
``created_at``            ``ts`` (CrewAI's naive UTC); ``older_than`` becomes ``time_range``
``embedding``             ignored: DeltaCore embeds the text itself, with the store's own embedder
========================  =========================================================================

One embedder per store: ``search`` receives a vector computed by CrewAI's ``Memory`` embedder.
:class:`DeltaCoreEmbedder` *is* the store's embedder; it remembers which text each vector it
produced came from, and ``search`` runs DeltaCore's hybrid query (semantic + lexical + recency)
on that text. A vector from any other embedder is refused with a clear error. Scores are
DeltaCore's fused relevance (higher is better), not cosine similarities.

Listing, counting and scope/category summaries read at most :data:`SCAN_LIMIT` records per
call (DeltaCore's ``query`` caps ``top_k``); deletions by scope or record id have no limit.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np
from crewai.memory.types import MemoryRecord, ScopeInfo

from deltacore import DeltaCore
from deltacore.adapters import _shared
from deltacore.adapters._shared import (
    TOP_K_LIMIT,
    ScopedAdapter,
    adapter_scope,
    gateway_notes,
    json_safe,
    raise_rejections,
    scope_of,
)
from deltacore.adapters.crewai.episodes import current_episode_id
from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.model import Channel, Event, EventKind, MemoryPacket, Scope

log = logging.getLogger(__name__)

SCAN_LIMIT = TOP_K_LIMIT
"""Records read by list/count/scope summaries (DeltaCore's ``top_k`` limit)."""
SCOPE_ENTITY = "crewai-scope:"
MEMORY_META = "crewai_memory"
PACKET_META = "deltacore"
"""Key under which search results carry the packet's id, score, flags, token cost and provenance."""


# ---- the embedder ----------------------------------------------------------------------------


class DeltaCoreEmbedder:
    """The store's own embedder as a CrewAI ``Memory`` embedder (``list[str] -> vectors``).

    It remembers the text behind the last ``capacity`` vectors it returned, so the storage
    backend can hand DeltaCore the query text instead of a bare vector.
    """

    def __init__(self, store: DeltaCore, capacity: int = 4096) -> None:
        self._store = store
        self._texts: OrderedDict[bytes, str] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def __call__(self, input: list[str]) -> list[list[float]]:
        texts = list(input)
        if not texts:
            return []
        matrix = self._store.embed(texts)
        with self._lock:
            for text, row in zip(texts, matrix):
                key = row.tobytes()
                self._texts[key] = text
                self._texts.move_to_end(key)
            while len(self._texts) > self._capacity:
                self._texts.popitem(last=False)
        return matrix.tolist()

    def text_for(self, vector: Sequence[float]) -> str | None:
        """The text this embedder turned into ``vector``, if it still remembers it."""
        with self._lock:
            return self._texts.get(np.asarray(vector, dtype=np.float32).tobytes())

    def __deepcopy__(self, memo: dict[int, Any]) -> DeltaCoreEmbedder:
        return self  # a handle on the store's model, shared by every copy of a Memory


# ---- record <-> event ------------------------------------------------------------------------


def scope_entity(scope: str | None) -> str | None:
    """The entity that selects ``scope`` and everything under it (``None`` for the root)."""
    parts = [part for part in (scope or "").split("/") if part]
    return SCOPE_ENTITY + "/" + "/".join(parts) if parts else None


def _scope_entities(scope: str) -> tuple[str, ...]:
    parts = [part for part in scope.split("/") if part]
    return tuple(SCOPE_ENTITY + "/" + "/".join(parts[:depth]) for depth in range(1, len(parts) + 1))


def _normal_scope(scope: str | None) -> str:
    parts = [part for part in (scope or "").split("/") if part]
    return "/" + "/".join(parts)


def _in_scope(scope: str, prefix: str | None) -> bool:
    prefix = _normal_scope(prefix)
    return prefix == "/" or scope == prefix or scope.startswith(prefix + "/")


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def record_to_event(record: MemoryRecord, **fields: Any) -> Event:
    """The DeltaCore event that stores ``record`` (``fields``: tenant, scope ids, episode…)."""
    metadata = {key: value for key, value in record.metadata.items() if key != PACKET_META}
    saved = {
        "scope": _normal_scope(record.scope),
        "categories": list(record.categories),
        "importance": record.importance,
        "metadata": json_safe(metadata),
        "source": record.source,
        "private": record.private,
        "last_accessed": _naive_utc(record.last_accessed).isoformat(),
    }
    return Event(
        id=record.id,
        ts=_naive_utc(record.created_at),
        kind=EventKind.FACT,
        text=record.content,
        source="crewai:memory",
        entities=_scope_entities(saved["scope"]),
        meta={"framework": "crewai", MEMORY_META: saved},
        **fields,
    )


def event_to_record(item: Event | MemoryPacket, content: str | None = None, **extra_metadata: Any) -> MemoryRecord:
    """The memory record a stored event (or retrieved packet) stands for."""
    created_at = _naive_utc(item.ts)
    saved = item.meta.get(MEMORY_META)
    if isinstance(saved, dict):
        return MemoryRecord(
            id=item.id,
            content=item.text if content is None else content,
            scope=saved.get("scope", "/"),
            categories=list(saved.get("categories", [])),
            metadata={**(saved.get("metadata") or {}), **extra_metadata},
            importance=saved.get("importance", 0.5),
            created_at=created_at,
            last_accessed=datetime.fromisoformat(saved["last_accessed"]) if saved.get("last_accessed") else created_at,
            source=saved.get("source"),
            private=bool(saved.get("private", False)),
        )
    return MemoryRecord(
        id=item.id,
        content=(item.text or item.tool_name or "") if content is None else content,
        scope="/",
        categories=[item.kind.value],
        metadata=dict(extra_metadata),
        created_at=created_at,
        last_accessed=created_at,
    )


def format_packet(packet: MemoryPacket) -> str:
    """A retrieved memory as the model sees it: date, actor and text."""
    speaker = f"{packet.actor}: " if packet.actor else ""
    return f"[{packet.ts:%Y-%m-%d %H:%M}] {speaker}{packet.text or packet.tool_name or ''}"


_PACKET_KEYS = ("id", "kind", "score", "flags", "token_cost", "provenance", "episode_id")


def packet_metadata(packet: MemoryPacket) -> dict[str, Any]:
    """The part of the shared packet metadata a match carries (CrewAI shows it to the model)."""
    shared = _shared.packet_metadata(packet)
    # A memory stating a tracked fact also says what the belief layer knows of it (the current
    # value when its own was superseded, the competing values of a conflict).
    keys = _PACKET_KEYS + tuple(k for k in _shared.BELIEF_KEYS if k in shared)
    return {key: shared[key] for key in keys} | {"score": round(packet.score, 4)}


# ---- the backend -----------------------------------------------------------------------------


class DeltaCoreStorage(ScopedAdapter):
    """CrewAI ``StorageBackend`` over a DeltaCore store.

    >>> # memory = Memory(storage=DeltaCoreStorage(store), embedder=..., llm=...)
    >>> # or simply: DeltaCoreMemory(store)  (deltacore.adapters.crewai.memory)

    ``tenant``/``agent_id``/``user_id``/``session_id`` scope every read and write (configure the
    listener with the same values so recalls see its episodes). Records written here get the
    current crew kickoff as their ``episode_id``; ``search`` inside a kickoff leaves out that
    kickoff's own events (``exclude_running_episode=False`` keeps them).
    """

    def __init__(
        self,
        store: DeltaCore,
        *,
        scope: Scope | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        channel: Channel | str = Channel.AGENT,
        embedder: DeltaCoreEmbedder | None = None,
        exclude_running_episode: bool = True,
    ) -> None:
        self.store = store
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id, session_id=session_id)
        self.channel = Channel(channel)
        self.embedder = embedder or DeltaCoreEmbedder(store)
        self.exclude_running_episode = exclude_running_episode

    def __deepcopy__(self, memo: dict[int, Any]) -> DeltaCoreStorage:
        return self  # a handle on a shared store

    # ---- translation helpers ----

    def _scope_fields(self) -> dict[str, Any]:
        return scope_of(self)

    def _criteria(self, **fields: Any) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "agent_filter": (self.agent_id,) if self.agent_id else (),
            "user_id": self.user_id,
            "session_id": self.session_id,
            **fields,
        }

    def _owns(self, event: Event) -> bool:
        return all(wanted is None or getattr(event, name) == wanted for name, wanted in self._scope_fields().items())

    def _scan(self, scope_prefix: str | None = None, older_than: datetime | None = None) -> list[MemoryPacket]:
        """Up to SCAN_LIMIT records in scope, newest first, quarantined and tainted included."""
        return self.store.query(
            **self._criteria(
                entity=scope_entity(scope_prefix),
                time_range=(None, older_than) if older_than else None,
                top_k=SCAN_LIMIT,
                include_deltas=False,
                exclude_tainted=False,
                include_quarantined=True,
            )
        )

    def _write(self, events: list[Event], records: Sequence[MemoryRecord] = ()) -> None:
        notes = gateway_notes(raise_rejections(self.store.ingest(events, channel=self.channel)), log, "memory record")
        # CrewAI's ``remember`` returns the record it saved: its metadata says what the gateway did.
        for record in records:
            if record.id in notes:
                record.metadata = {**(record.metadata or {}), "deltacore": notes[record.id]}

    def record_retrieval(self, record_ids: Sequence[str], query: str) -> int:
        """Log that these records were handed to the agent during the current crew kickoff."""
        return self.store.record_retrieval(list(record_ids), episode_id=current_episode_id(), query=query, tenant=self.tenant)

    # ---- StorageBackend: writes ----

    def save(self, records: list[MemoryRecord]) -> None:
        episode_id = current_episode_id()
        self._write([record_to_event(record, episode_id=episode_id, **self._scope_fields()) for record in records], records)

    def update(self, record: MemoryRecord) -> None:
        """Replace a record: ``DeltaCore.update`` writes a new version and keeps the old one
        (``store.versions(record.id)``); ``get_record(record.id)`` reads the new one."""
        try:
            previous = self.store.get(record.id, latest=True)
        except NotFoundError:
            previous = None
        if previous is None or not self._owns(previous):
            self._write([record_to_event(record, episode_id=current_episode_id(), **self._scope_fields())])
            return
        event = record_to_event(record, episode_id=previous.episode_id, **self._scope_fields())
        self.store.update(
            previous.id, text=event.text, meta=event.meta, entities=event.entities, ts=event.ts,
            channel=self.channel, tenant=self.tenant,
        )

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        selectors = {k: v for k, v in self._scope_fields().items() if k != "tenant" and v is not None}
        entity = scope_entity(scope_prefix)
        if not categories and older_than is None and not metadata_filter:
            within = {**selectors, **({"entity": entity} if entity is not None else {})}
            if record_ids is not None:
                # Earlier versions of a record go with it; CrewAI counts records, not versions.
                return self._forget(event_ids=list(dict.fromkeys(record_ids)), within=within or None) if record_ids else 0
            if within:
                return self._forget(within=within)
        deleted = 0
        while True:  # pages of SCAN_LIMIT until nothing in range matches
            page = self._scan(scope_prefix, older_than)
            ids = [
                packet.id
                for packet in page
                if (record_ids is None or packet.id in record_ids)
                and _matches(event_to_record(packet), categories, metadata_filter)
            ]
            if ids:
                deleted += self._forget(event_ids=ids)
            if not ids or len(page) < SCAN_LIMIT:
                return deleted

    def _forget(self, **selectors: Any) -> int:
        """Erase through ``forget`` (every version, copy and derived row); how many records went."""
        certificate = self.store.forget(tenant=self.tenant, reason="crewai memory deleted", **selectors)
        return certificate.memories

    def reset(self, scope_prefix: str | None = None) -> None:
        self.delete(scope_prefix=scope_prefix)

    # ---- StorageBackend: reads ----

    def search(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[MemoryRecord, float]]:
        text = self.embedder.text_for(query_embedding)
        if text is None:
            raise InvalidQueryError(
                "query_embedding",
                "this vector was not computed by this store's DeltaCoreEmbedder; give the CrewAI Memory "
                "embedder=storage.embedder (one embedder per store), or use DeltaCoreMemory",
            )
        # The running kickoff's own steps (its task input, above all) are not memories of it.
        running = current_episode_id() if self.exclude_running_episode else None
        post_filter = bool(categories or metadata_filter)  # room for it: four times the records
        top_k = min(SCAN_LIMIT, limit * 4 if post_filter else limit)
        packets = self.store.query(
            text, **self._criteria(entity=scope_entity(scope_prefix), top_k=top_k, exclude_episode_id=running)
        )
        results = []
        for packet in packets:
            record = event_to_record(packet, content=format_packet(packet), **{PACKET_META: packet_metadata(packet)})
            # CrewAI reads scores as similarities in [0, 1]; DeltaCore's fused relevance is not
            # bounded, so map it monotonically into [0, 1) (the ranking is unchanged).
            similarity = packet.score / (1.0 + packet.score) if packet.score > 0 else 0.0
            if similarity >= min_score and _matches(record, categories, metadata_filter):
                results.append((record, similarity))
        return results[:limit]

    def get_record(self, record_id: str) -> MemoryRecord | None:
        try:
            event = self.store.get(record_id, latest=True)
        except NotFoundError:
            return None
        return event_to_record(event) if self._owns(event) else None

    def list_records(self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0) -> list[MemoryRecord]:
        return [event_to_record(packet) for packet in self._scan(scope_prefix)[offset : offset + limit]]

    def get_scope_info(self, scope: str) -> ScopeInfo:
        records = [event_to_record(packet) for packet in self._scan(scope)]
        return ScopeInfo(
            path=scope,
            record_count=len(records),
            categories=sorted({category for record in records for category in record.categories}),
            oldest_record=min((record.created_at for record in records), default=None),
            newest_record=max((record.created_at for record in records), default=None),
            child_scopes=_children(_normal_scope(scope), records),
        )

    def list_scopes(self, parent: str = "/") -> list[str]:
        return _children(_normal_scope(parent), [event_to_record(packet) for packet in self._scan(parent)])

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        counts = Counter(category for packet in self._scan(scope_prefix) for category in event_to_record(packet).categories)
        return dict(counts)

    def count(self, scope_prefix: str | None = None) -> int:
        return len(self._scan(scope_prefix))

    # ---- StorageBackend: async twins (DeltaCore work runs in a worker thread) ----

    async def asave(self, records: list[MemoryRecord]) -> None:
        await asyncio.to_thread(self.save, records)

    async def asearch(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[MemoryRecord, float]]:
        return await asyncio.to_thread(self.search, query_embedding, scope_prefix, categories, metadata_filter, limit, min_score)

    async def adelete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        return await asyncio.to_thread(self.delete, scope_prefix, categories, record_ids, older_than, metadata_filter)


def _matches(record: MemoryRecord, categories: list[str] | None, metadata_filter: dict[str, Any] | None) -> bool:
    if categories and not set(categories) & set(record.categories):
        return False
    return not metadata_filter or all(record.metadata.get(key) == value for key, value in metadata_filter.items())


def _children(parent: str, records: list[MemoryRecord]) -> list[str]:
    base = parent.rstrip("/")
    children = set()
    for record in records:
        if _in_scope(record.scope, parent) and record.scope != parent:
            child = record.scope[len(base) + 1 :].split("/")[0]
            if child:
                children.add(f"{base}/{child}")
    return sorted(children)
