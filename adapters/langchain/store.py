"""``DeltaCoreLangGraphStore``: DeltaCore as a LangGraph long-term memory store.

>>> # store = DeltaCoreLangGraphStore(memory, scope=lambda ns: {"user_id": ns[1]} if len(ns) > 1 else {})
>>> # agent = create_agent(model, tools, store=store)        # tools reach it via runtime.store
>>> # store.put(("memories", "alice"), "drink", {"text": "alice drinks green tea"})
>>> # store.search(("memories", "alice"), query="what does alice drink?")

How items map onto the engine (``batch`` and ``abatch`` are the only primitives; every other
method of ``langgraph.store.base.BaseStore`` is built on them):

* **tenant**: one per store (``tenant=``); a namespace never changes the tenant.
* **scope**: ``scope(namespace)`` may return ``user_id`` / ``agent_id`` / ``session_id`` for the
  item's event, so the agent's own memory queries can filter by them (e.g. the user id that
  ``("memories", user_id)`` namespaces carry).
* **item**: one ``fact`` event whose id is derived from (tenant, namespace, key), so ``get`` is a
  lookup by id. ``meta`` keeps the namespace, key, value and ``created_at``; the event time is
  ``updated_at``. The text (what is embedded and searched, and what an agent is handed as a
  memory) is the value's text at ``index`` paths (the put's, else the store's ``index_fields``),
  by default every string in the value. The id is also the event's ``meta["dedupe_key"]``, so two
  keys holding the same text are two events.
* **namespace**: each item carries the entity ``lgstore:<label>.<label>…`` for its namespace and
  for every prefix of it (labels cannot contain "."), so a namespace prefix is an entity filter.
* **put** on an existing key is ``DeltaCore.update``: a new version of the item's event (the
  gateway screens it like any write); searches see only the latest value, ``memory.versions(id)``
  keeps the earlier ones. A ``None`` value deletes the item with every version.
* **search** with ``query`` is the engine's fused semantic + lexical search (``score`` is the fused
  score); without one, items come newest first. ``filter`` (exact values, nested dicts and
  ``$eq $ne $gt $gte $lt $lte``) is applied to the values.
* **current values**: an item whose value the belief layer has replaced (another item states a
  newer value of the same fact slot, e.g. "Alice moved to Lisbon" after "Alice lives in Berlin")
  is left out of searches; ``include_superseded=True`` keeps it (flagged in the engine's packets).
  The full scan (a ``filter`` without ``query`` beyond the first results) is not checked.
* ``put(..., index=False)`` items are stored but left out of query searches. TTLs are not
  supported (``supports_ttl = False``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    validate_op_namespace,
)

from deltacore.adapters._shared import renamed_store, TOP_K_LIMIT, gateway_notes, iter_events, json_safe, raise_rejections, stable_id
from deltacore.adapters.langchain._engine import FRAMEWORK, sync_memory
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.errors import NotFoundError
from deltacore.model import Channel, Event, EventKind, MemoryFlag, MemoryPacket

log = logging.getLogger(__name__)

Namespace = tuple[str, ...]
_SCOPE_FIELDS = ("user_id", "agent_id", "session_id")


class DeltaCoreLangGraphStore(BaseStore):
    """A LangGraph ``BaseStore`` over DeltaCore (see the module docstring for the mapping).

    Args:
        store: the DeltaCore store (``DeltaCore`` or ``AsyncDeltaCore``); ``memory=`` is the
            deprecated name.
        tenant: the tenant every item lives in.
        index: LangGraph's index configuration, ``{"fields": [...]}``: value paths whose text is
            indexed (LangGraph path syntax); default: every string in the value. DeltaCore embeds
            with its own embedder, so ``embed`` and ``dims`` are refused (pass ``embedder=`` to
            ``DeltaCore.open``). ``index_fields=[...]`` is the deprecated form.
        scope: namespace → ``{"user_id"/"agent_id"/"session_id": …}`` for the item's event.
        channel: where item writes come from (default ``agent``: an agent's tools write them).
    """

    supports_ttl = False

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        tenant: str = "default",
        index: Mapping[str, Any] | None = None,
        scope: Callable[[Namespace], Mapping[str, str | None]] | None = None,
        channel: Channel | str = Channel.AGENT,
        include_superseded: bool = False,
        memory: DeltaCore | AsyncDeltaCore | None = None,
        index_fields: list[str] | None = None,
    ) -> None:
        memory = renamed_store(store, memory, type(self).__name__)  # `memory=` is the old name
        self.memory = sync_memory(memory)
        self.tenant = tenant
        self.index_fields = _index_fields(index, index_fields)
        self.scope = scope
        self.channel = Channel(channel)
        self.include_superseded = include_superseded

    # ---- the two primitives ----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order (a read sees the writes before it in the batch)."""
        results: list[Result] = []
        pending: list[PutOp] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                pending.append(op)
                results.append(None)
                continue
            if pending:
                self._apply_puts(pending)
                pending = []
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        if pending:
            self._apply_puts(pending)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # ---- operations ------------------------------------------------------------------------------

    def _id(self, namespace: Namespace, key: str) -> str:
        return stable_id("lgstore", self.tenant, list(namespace), key)

    def _get(self, op: GetOp) -> Item | None:
        try:
            event = self.memory.get(self._id(op.namespace, op.key), latest=True)
        except NotFoundError:
            return None
        return _item(event.meta, event.ts)

    def _apply_puts(self, ops: list[PutOp]) -> None:
        latest = {(op.namespace, op.key): op for op in ops}  # the last put of a key wins
        ids = [self._id(namespace, key) for namespace, key in latest]
        created: dict[str, str] = {}
        for event_id in ids:
            try:
                created[event_id] = self.memory.get(event_id).meta.get("created_at")
            except NotFoundError:
                pass
        now = datetime.now(timezone.utc)
        removed = [self._id(op.namespace, op.key) for op in latest.values() if op.value is None]
        if removed:
            # Through forget, so every version, copy and derived row of the key goes, not just the row.
            present = [event_id for event_id in removed if _stored(self.memory, event_id)]
            if present:
                self.memory.forget(event_ids=present, tenant=self.tenant, reason="store item deleted")
        events = []
        for op in latest.values():
            if op.value is None:
                continue
            event = self._event(op, created.get(self._id(op.namespace, op.key)) or now.isoformat(), now)
            if event["id"] in created:
                self.memory.update(
                    event["id"], text=event["text"], meta=event["meta"], entities=event["entities"],
                    channel=self.channel, tenant=self.tenant,
                )
            else:
                events.append(event)
        if events:
            gateway_notes(raise_rejections(self.memory.ingest(events, channel=self.channel)), log, "store item")

    def _event(self, op: PutOp, created_at: str, now: datetime) -> dict[str, Any]:
        namespace, value = tuple(op.namespace), dict(op.value or {})
        scope = dict(self.scope(namespace)) if self.scope else {}
        paths = op.index if isinstance(op.index, list) else self.index_fields
        texts = [text for path in paths for text in get_text_at_path(value, path)] if paths else _strings(value)
        text = "\n".join(t for t in texts if t.strip()) or json.dumps(value, ensure_ascii=False, default=str)
        event_id = self._id(namespace, op.key)
        return {
            "id": event_id,
            "ts": now,
            "kind": EventKind.FACT,
            "text": text if text.strip() else op.key,
            "tenant": self.tenant,
            "entities": [_entity(namespace[:depth]) for depth in range(len(namespace) + 1)],
            "source": f"{FRAMEWORK}:store",
            "meta": {
                "framework": FRAMEWORK,
                "lg_namespace": list(namespace),
                "key": op.key,
                "value": json_safe(value),
                "created_at": created_at,
                "indexed": op.index is not False,
                # Two keys holding the same text are two events, not one event and a duplicate.
                "dedupe_key": event_id,
            },
            **{name: scope[name] for name in _SCOPE_FIELDS if scope.get(name) is not None},
        }

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        criteria = {"tenant": self.tenant, "entity": _entity(prefix), "kinds": (EventKind.FACT,)}
        wanted = max(op.offset, 0) + max(op.limit, 0)
        records: list[MemoryPacket] | list[Event]
        if op.query:
            top_k = TOP_K_LIMIT if op.filter else min(TOP_K_LIMIT, wanted + 20)
            records = self.memory.query(op.query, top_k=top_k, exclude_tainted=False, **criteria)
            records = [p for p in records if p.meta.get("indexed", True)]
        elif not op.filter and wanted <= TOP_K_LIMIT:
            records = self.memory.query(
                routers=("recency",), top_k=max(wanted, 1), exclude_tainted=False, include_deltas=False, **criteria
            )
        else:  # every item under the prefix, newest first
            records = list(reversed(list(iter_events(self.memory, **criteria))))
        found = [
            (record, _item(record.meta, record.ts))
            for record in records
            if tuple(record.meta.get("lg_namespace") or ())[: len(prefix)] == prefix
            and (not op.filter or _matches(record.meta.get("value") or {}, op.filter))
            and (self.include_superseded or not _superseded(record))
        ]
        page = found[op.offset : op.offset + op.limit]
        return [
            _search_item(item, record.score if op.query and isinstance(record, MemoryPacket) else None)
            for record, item in page
        ]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        narrowest: Namespace = ()
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix":
                fixed = tuple(label for label in _until_wildcard(condition.path))
                narrowest = max(narrowest, fixed, key=len)
        events = iter_events(self.memory, tenant=self.tenant, entity=_entity(narrowest), kinds=(EventKind.FACT,))
        namespaces = {tuple(event.meta.get("lg_namespace") or ()) for event in events}
        namespaces.discard(())
        matching = [ns for ns in namespaces if all(_does_match(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            matching = list({ns[: op.max_depth] for ns in matching})
        return sorted(matching)[op.offset : op.offset + op.limit]


# ---- translation helpers ---------------------------------------------------------------------------


def _stored(memory: DeltaCore, event_id: str) -> bool:
    """Whether the key has an event (deleting an absent key is a no-op, not an empty forget)."""
    try:
        memory.get(event_id)
    except NotFoundError:
        return False
    return True


def _superseded(record: MemoryPacket | Event) -> bool:
    """The belief layer replaced the value this item states (only packets carry the flag)."""
    return isinstance(record, MemoryPacket) and MemoryFlag.SUPERSEDED in record.flags


def _entity(namespace: Namespace) -> str:
    return "lgstore:" + ".".join(namespace)


def _until_wildcard(path: tuple[str, ...]) -> Iterable[str]:
    for label in path:
        if label == "*":
            return
        yield label


def _item(meta: Mapping[str, Any], updated: datetime) -> Item:
    created = meta.get("created_at")
    return Item(
        value=dict(meta.get("value") or {}),
        key=str(meta.get("key")),
        namespace=tuple(meta.get("lg_namespace") or ()),
        created_at=datetime.fromisoformat(created) if isinstance(created, str) else updated,
        updated_at=updated,
    )


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []


def _does_match(condition: MatchCondition, namespace: Namespace) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path) if condition.match_type == "prefix" else zip(reversed(namespace), reversed(path))
    return all(pattern == "*" or label == pattern for label, pattern in pairs)


def _matches(value: Any, condition: Any) -> bool:
    """LangGraph's filter semantics: exact values, nested dicts and comparison operators."""
    if isinstance(condition, Mapping):
        if any(str(name).startswith("$") for name in condition):
            return all(_compare(value, operator, operand) for operator, operand in condition.items())
        return isinstance(value, Mapping) and all(_matches(value.get(k), v) for k, v in condition.items())
    if isinstance(condition, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(condition)
            and all(_matches(v, c) for v, c in zip(value, condition))
        )
    return value == condition


def _compare(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return value == operand
    if operator == "$ne":
        return value != operand
    if value is None:
        return False
    comparisons = {
        "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b,
    }
    if operator not in comparisons:
        raise ValueError(f"filter: unsupported operator {operator!r}; use $eq, $ne, $gt, $gte, $lt or $lte")
    try:
        return comparisons[operator](float(value), float(operand))
    except (TypeError, ValueError):
        return False


def _index_fields(index: Mapping[str, Any] | None, index_fields: list[str] | None) -> list[str] | None:
    """The value paths to index, from LangGraph's ``index={"fields": [...]}`` (or the old
    ``index_fields=``, with a ``DeprecationWarning``)."""
    if index_fields is not None:
        warnings.warn(
            'DeltaCoreLangGraphStore(index_fields=[...]) is deprecated; pass index={"fields": [...]} as LangGraph stores take',
            DeprecationWarning,
            stacklevel=3,
        )
        if index is not None:
            raise TypeError("DeltaCoreLangGraphStore(): pass index= or index_fields=, not both")
        return list(index_fields)
    if index is None:
        return None
    unknown = set(index) - {"fields", "embed", "dims"}
    if unknown:
        raise ValueError(f"index: unknown keys {sorted(unknown)}; LangGraph's index config has 'fields', 'embed', 'dims'")
    if "embed" in index or "dims" in index:
        raise ValueError(
            "index: DeltaCore embeds with the store's own embedder; drop 'embed'/'dims' from index= and "
            "pass embedder= to DeltaCore.open(...) instead"
        )
    fields = index.get("fields")
    return None if fields is None else list(fields)
