"""The versions part of the ``DeltaCore`` facade: ``update`` and ``versions``.

An update is a new event, never an edit: the store is append-only and every delta, fact and
credit points at the event it came from. The new version goes through the write path like any
write (the gateway screens its text, deltas and beliefs are derived from it), and the write
path marks the version it replaces in the same transaction; retrieval then hides the old one,
``versions()`` still lists it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from deltacore.errors import InvalidEventError, NotFoundError
from deltacore.ingest.batch import coerce_channel
from deltacore.ingest.pipeline import IngestPipeline
from deltacore.model import Channel, Namespace, new_id
from deltacore.model.versions import MemoryVersion, UpdateResult
from deltacore.storage import SQLStore
from deltacore.storage.records import event_from_row

_FIXED_FIELDS = frozenset({"id", "tenant", "agent_id", "user_id", "session_id", "scope"})
"""What an update cannot change: a new version belongs to the same memory, in the same scope."""


class VersionMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the collaborators are wired there."""

    _sql: SQLStore
    _pipeline: IngestPipeline

    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        meta: dict[str, Any] | None = None,
        channel: Channel | str | None = None,
        tenant: str = "default",
        **fields: Any,
    ) -> UpdateResult:
        """Write a new version of a memory; the previous one is kept (see :meth:`versions`).

        ``memory_id`` may be the id of any version: the update applies to the current one.
        ``text`` and ``meta`` replace the old values (``meta`` as a whole); other ``Event``
        fields (``entities``, ``confidence``, ``ts``…) may be given too, scope and id may not.
        The new version is screened by the trust gateway like any write (``channel``: where the
        update comes from, as in :meth:`ingest`); a quarantined or blocked one does not replace
        the current version (``UpdateResult.replaced`` is False).

        >>> from deltacore import DeltaCore
        >>> from deltacore.testing import FakeEmbedder
        >>> import tempfile
        >>> with DeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
        ...     first = memory.add("the api runs on port 8080", kind="fact")
        ...     result = memory.update(first, text="the api runs on port 9090")
        ...     [v.event.text for v in memory.versions(result.memory_id)]
        ['the api runs on port 8080', 'the api runs on port 9090']
        """
        fixed = sorted(_FIXED_FIELDS & set(fields))
        if fixed:
            raise InvalidEventError(fixed[0], "an update keeps the memory's id and scope; write a new memory instead")
        with self._sql.reader() as conn:
            head_id = self._sql.head_version(conn, memory_id)
            row = self._sql.fetch_events(conn, [head_id]).get(head_id) if head_id else None
        if row is None or row.tenant != tenant:
            raise NotFoundError(f"no memory with id {memory_id!r} in tenant {tenant!r}")
        current = event_from_row(row)
        changes: dict[str, Any] = dict(fields)
        if text is not None:
            changes["text"] = text
        if meta is not None:
            changes["meta"] = meta
        if all(getattr(current, name, None) == value for name, value in changes.items()):
            return UpdateResult(memory_id=current.id, previous_id=current.id, new_id=None, replaced=False)
        version = {**current.model_dump(exclude={"tool_schema_hash"}), "ts": datetime.now(timezone.utc), **changes}
        version["id"] = new_id()
        result = self._pipeline.run([version], coerce_channel(channel), replaces={0: current.id})
        if result.rejected:
            rejection = result.rejected[0]
            raise InvalidEventError(rejection.field, rejection.reason)
        with self._sql.reader() as conn:
            replaced = self._sql.head_version(conn, current.id) == version["id"]
        decision = result.decisions[0] if result.decisions else None
        return UpdateResult(
            memory_id=version["id"] if replaced else current.id,
            previous_id=current.id,
            new_id=version["id"],
            replaced=replaced,
            decision=decision,
            ingest=result,
        )

    def versions(self, memory_id: str, *, tenant: str = "default") -> list[MemoryVersion]:
        """Every version of the memory ``memory_id`` belongs to, oldest first; the last one (its
        ``replaced_by`` is None) is the current version. An update the gateway quarantined is
        not a version: it waits in :meth:`quarantined` and replaces nothing. A memory that
        consolidation merged away leads to the merged memory; the merged memory's own history
        starts with it (what it was merged from is its ``meta["derives_from"]``)."""
        with self._sql.reader() as conn:
            rows = self._sql.version_chain(conn, memory_id)
        if not rows or rows[0].tenant != tenant:
            raise NotFoundError(f"no memory with id {memory_id!r} in tenant {tenant!r}")
        return [
            MemoryVersion(
                version=number,
                event=event_from_row(row),
                namespace=Namespace(row.namespace),
                trust=row.trust,
                replaced_by=row.replaced_by,
                replaced_at=datetime.fromtimestamp(row.replaced_at, timezone.utc) if row.replaced_at else None,
            )
            for number, row in enumerate(rows, start=1)
        ]

    def _all_versions(self, event_ids: Sequence[str]) -> list[str]:
        """``event_ids`` with every other version of their memories (a delete removes them all)."""
        found: dict[str, None] = {}
        with self._sql.reader() as conn:
            for event_id in event_ids:
                chain = self._sql.version_chain(conn, event_id)
                for row in chain or ():
                    found[row.id] = None
                found[event_id] = None
        return list(found)
