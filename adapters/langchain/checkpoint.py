"""``DeltaCoreCheckpointSaver``: LangGraph checkpoints in the same store as the agent's memory.

>>> # graph = builder.compile(checkpointer=DeltaCoreCheckpointSaver(store), store=DeltaCoreLangGraphStore(store))
>>> # graph.invoke(inputs, {"configurable": {"thread_id": "t1"}})    # resumable from any process

A ``langgraph.checkpoint.base.BaseCheckpointSaver``: ``get_tuple``, ``list``, ``put``,
``put_writes``, ``delete_thread`` and their async twins (worker threads). Checkpoints live in the
store's database (SQLite or PostgreSQL, tables ``dc_checkpoints`` / ``dc_checkpoint_writes``)
through ``DeltaCore.checkpoints()``; LangGraph's serializer (``serde``) turns values into bytes.
A checkpoint row holds its channel values whole (no per-version blobs): simple, one read per
checkpoint, more bytes for threads with large, rarely changing channels.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    SerializerProtocol,
    get_checkpoint_id,
    get_checkpoint_metadata,
    writes_sort_key,
)

from deltacore import AsyncDeltaCore, DeltaCore
from deltacore.adapters._shared import renamed_store
from deltacore.adapters.langchain._engine import sync_memory


class DeltaCoreCheckpointSaver(BaseCheckpointSaver[str]):
    """A LangGraph checkpointer over a DeltaCore store (see the module docstring).

    Args:
        store: the store (``DeltaCore`` or ``AsyncDeltaCore``).
        tenant: the tenant the checkpoints belong to.
        serde: LangGraph's serializer (default: its JSON-plus serializer).
        memory: the old name of ``store`` (a ``DeprecationWarning``).
    """

    def __init__(
        self,
        store: DeltaCore | AsyncDeltaCore | None = None,
        *,
        tenant: str = "default",
        serde: SerializerProtocol | None = None,
        memory: DeltaCore | AsyncDeltaCore | None = None,
    ) -> None:
        memory = renamed_store(store, memory, type(self).__name__)  # `memory=` is the old name
        super().__init__(serde=serde)
        self.memory = sync_memory(memory)
        self.tenant = tenant
        self._repository = self.memory.checkpoints()

    # ---- sync ------------------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        configurable = config["configurable"]
        row = self._repository.checkpoint(
            self.tenant, configurable["thread_id"], configurable.get("checkpoint_ns", ""), get_checkpoint_id(config)
        )
        return self._tuple(row) if row is not None else None

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        configurable = (config or {}).get("configurable", {})
        rows = self._repository.checkpoints(
            self.tenant,
            configurable.get("thread_id"),
            configurable.get("checkpoint_ns"),
            get_checkpoint_id(config) if config else None,
            get_checkpoint_id(before) if before else None,
            None if filter else limit,  # a metadata filter applies after the read
        )
        for row in rows:
            if filter and not all(row.metadata_json.get(key) == value for key, value in filter.items()):
                continue
            if limit is not None and limit <= 0:
                return
            if limit is not None:
                limit -= 1
            yield self._tuple(row)

    def put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> RunnableConfig:
        configurable = config["configurable"]
        thread_id, namespace = configurable["thread_id"], configurable.get("checkpoint_ns", "")
        kind, blob = self.serde.dumps_typed(checkpoint)
        full_metadata = get_checkpoint_metadata(config, metadata)
        metadata_kind, metadata_blob = self.serde.dumps_typed(full_metadata)
        self._repository.put_checkpoint(
            {
                "tenant": self.tenant,
                "thread_id": thread_id,
                "checkpoint_ns": namespace,
                "checkpoint_id": checkpoint["id"],
                "parent_id": configurable.get("checkpoint_id"),
                "type": kind,
                "checkpoint": blob,
                "metadata_type": metadata_kind,
                "metadata": metadata_blob,
                "metadata_json": json.loads(json.dumps(full_metadata, default=str)),
            }
        )
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace, "checkpoint_id": checkpoint["id"]}}

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        configurable = config["configurable"]
        rows = []
        for position, (channel, value) in enumerate(writes):
            kind, blob = self.serde.dumps_typed(value)
            rows.append(
                {
                    "tenant": self.tenant,
                    "thread_id": configurable["thread_id"],
                    "checkpoint_ns": configurable.get("checkpoint_ns", ""),
                    "checkpoint_id": configurable["checkpoint_id"],
                    "task_id": task_id,
                    "idx": WRITES_IDX_MAP.get(channel, position),
                    "channel": channel,
                    "type": kind,
                    "value": blob,
                    "task_path": task_path,
                }
            )
        self._repository.put_writes(rows)

    def delete_thread(self, thread_id: str) -> None:
        self._repository.delete_thread(self.tenant, thread_id)

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        # Strings that sort in version order, as LangGraph's own savers make them.
        number = 0 if current is None else current if isinstance(current, int) else int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"

    # ---- async: the same calls in a worker thread ----------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found = await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    # ---- rows -> LangGraph values ------------------------------------------------------------------

    def _tuple(self, row: Any) -> CheckpointTuple:
        config: RunnableConfig = {
            "configurable": {"thread_id": row.thread_id, "checkpoint_ns": row.checkpoint_ns, "checkpoint_id": row.checkpoint_id}
        }
        writes = sorted(
            self._repository.writes(self.tenant, row.thread_id, row.checkpoint_ns, row.checkpoint_id),
            key=lambda w: writes_sort_key(w.task_path, w.task_id, w.idx),
        )
        parent: RunnableConfig | None = None
        if row.parent_id:
            parent = {"configurable": {"thread_id": row.thread_id, "checkpoint_ns": row.checkpoint_ns, "checkpoint_id": row.parent_id}}
        return CheckpointTuple(
            config=config,
            checkpoint=self.serde.loads_typed((row.type, bytes(row.checkpoint))),
            metadata=self.serde.loads_typed((row.metadata_type, bytes(row.metadata))),
            parent_config=parent,
            pending_writes=[(w.task_id, w.channel, self.serde.loads_typed((w.type, bytes(w.value)))) for w in writes],
        )
