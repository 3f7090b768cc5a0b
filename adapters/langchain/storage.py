"""``DeltaCoreStore``: a LangChain key-value store (``BaseStore[str, Any]``) kept in DeltaCore.

>>> # store = DeltaCoreStore(memory, namespace="prefs")
>>> # store.mset([("alice:drink", "alice drinks green tea")])
>>> # store.mget(["alice:drink"])            # ['alice drinks green tea']
>>> # list(store.yield_keys(prefix="alice:"))

How keys map onto events:

* one key = one ``fact`` event whose id is derived from (tenant, namespace, key), so ``mget`` is a
  lookup by id; the key is in ``meta["key"]`` and the value in ``meta["value"]``; the id is also
  the event's ``meta["dedupe_key"]``, so two keys holding the same value are two events;
* the event's text is the value as text (a string as is, other JSON as compact JSON, bytes as
  the key), so stored values are also memories an agent can retrieve;
* **the latest value wins**: ``mset`` on an existing key is ``DeltaCore.update`` (a new version;
  ``mget`` and searches see the new value, ``memory.versions(id)`` keeps the old ones);
  ``mdelete`` removes the key with every version;
* the namespace is an entity (``kv:<namespace>``): ``yield_keys`` lists it, and
  ``memory.delete(entity="kv:<namespace>")`` erases the whole store.

Values are JSON data or ``bytes`` (kept base64-encoded), so the store also serves as a ``ByteStore``.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.stores import BaseStore

from deltacore.adapters._shared import renamed_store, ScopedAdapter, adapter_scope, gateway_notes, iter_events, raise_rejections, stable_id
from deltacore.adapters.langchain._engine import FRAMEWORK, sync_memory
from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.errors import InvalidEventError, NotFoundError
from deltacore.model import Channel, EventKind, Scope

log = logging.getLogger(__name__)

_BYTES = "__bytes_base64__"


class DeltaCoreStore(ScopedAdapter, BaseStore[str, Any]):
    """A key-value store over DeltaCore events (see the module docstring for the mapping)."""

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        namespace: str = "default",
        scope: Scope | None = None,
        tenant: str = "default",
        user_id: str | None = None,
        agent_id: str | None = None,
        memory: DeltaCore | AsyncDeltaCore | None = None,
    ) -> None:
        memory = renamed_store(store, memory, type(self).__name__)  # `memory=` is the old name
        self.memory = sync_memory(memory)
        self.namespace = namespace
        self.scope = adapter_scope(scope, tenant=tenant, agent_id=agent_id, user_id=user_id)
        if self.scope.session_id is not None:
            raise ValueError("session_id: a key-value store outlives sessions; give its Scope no session_id")

    @property
    def entity(self) -> str:
        """The entity every key of this store carries."""
        return f"kv:{self.namespace}"

    def _id(self, key: str) -> str:
        return stable_id("kv", self.tenant, self.namespace, key)

    def mget(self, keys: Sequence[str]) -> list[Any | None]:
        values: list[Any | None] = []
        for key in keys:
            try:
                event = self.memory.get(self._id(key), latest=True)
            except NotFoundError:
                values.append(None)
                continue
            values.append(_decode(event.meta.get("value")))
        return values

    def mset(self, key_value_pairs: Sequence[tuple[str, Any]]) -> None:
        latest = dict(key_value_pairs)  # a key given twice keeps its last value
        if not latest:
            return
        events = [self._event(key, value) for key, value in latest.items()]
        fresh = []
        for event in events:
            try:
                self.memory.get(event["id"])
            except NotFoundError:
                fresh.append(event)
                continue
            updated = self.memory.update(
                event["id"], text=event["text"], meta=event["meta"], channel=Channel.SYSTEM, tenant=self.tenant
            )
            if updated.ingest is not None:
                gateway_notes(updated.ingest, log, "stored value")
        if fresh:
            gateway_notes(raise_rejections(self.memory.ingest(fresh, channel=Channel.SYSTEM)), log, "stored value")

    def mdelete(self, keys: Sequence[str]) -> None:
        if keys:
            self.memory.delete([self._id(key) for key in keys], tenant=self.tenant)

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        for event in iter_events(self.memory, tenant=self.tenant, entity=self.entity, kinds=(EventKind.FACT,)):
            key = event.meta.get("key")
            if isinstance(key, str) and event.meta.get("kv_namespace") == self.namespace:
                if prefix is None or key.startswith(prefix):
                    yield key

    def _event(self, key: str, value: Any) -> dict[str, Any]:
        if not isinstance(key, str):
            raise InvalidEventError("key", f"keys are strings, got {type(key).__name__}")
        encoded = _encode(key, value)
        text = value if isinstance(value, str) else key if isinstance(value, bytes) else json.dumps(encoded)
        scope = {"user_id": self.user_id, "agent_id": self.agent_id}
        event_id = self._id(key)
        return {
            "id": event_id,
            "kind": EventKind.FACT,
            "text": text if text.strip() else key,
            "tenant": self.tenant,
            "entities": [self.entity],
            "source": f"{FRAMEWORK}:storage",
            "meta": {
                "framework": FRAMEWORK,
                "kv_namespace": self.namespace,
                "key": key,
                "value": encoded,
                # Two keys holding the same text are two events, not one event and a duplicate.
                "dedupe_key": event_id,
            },
            **{name: value for name, value in scope.items() if value is not None},
        }


def _encode(key: str, value: Any) -> Any:
    if isinstance(value, bytes):
        return {_BYTES: base64.b64encode(value).decode("ascii")}
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise InvalidEventError(
            "value", f"the value of key {key!r} is not JSON data or bytes ({exc}); serialise it first"
        ) from exc


def _decode(stored: Any) -> Any:
    if isinstance(stored, dict) and set(stored) == {_BYTES}:
        return base64.b64decode(stored[_BYTES])
    return stored
