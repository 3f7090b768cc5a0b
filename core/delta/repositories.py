"""What the delta layer needs from storage, as Protocols the storage repositories satisfy.

The learning loop, drift handling and exception propagation read and write through these; the
engine hands them ``deltacore.storage``'s repositories (``LearningRepository``,
``DriftRepository``, the ``SQLStore`` for transactions and the change log), so this layer never
imports storage. Rows are returned as the repositories read them (attribute access by column
name); every method runs in the connection it is given, so one transaction can span several.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from sqlalchemy import Connection

from deltacore.model import ReviewItem


class Transactions(Protocol):
    def reader(self) -> AbstractContextManager[Connection]: ...

    def writer(self) -> AbstractContextManager[Connection]:
        """One write transaction."""
        ...


class ChangeLog(Protocol):
    """System events and the per-tenant change counter that invalidates cached results."""

    def log_system_event(self, conn: Connection, tenant: str, kind: str, payload: dict[str, Any]) -> None: ...

    def bump_version(self, conn: Connection, tenant: str) -> None: ...


class PropagationStore(Transactions, ChangeLog, Protocol):
    """What exception propagation runs on: its transaction, the delta states and links, the log."""

    def delta_states(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, Any]: ...

    def children_with_relation(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]: ...

    def set_utility(
        self, conn: Connection, delta_id: str, tenant: str, *, predicted: float, new: float, source: str, now: float, flags: Sequence[str]
    ) -> None: ...

    def set_delta_flags(self, conn: Connection, delta_id: str, flags: Sequence[str]) -> None: ...


class LearningRepository(Protocol):
    """Episodes, utility updates with their history, and the review queue."""

    def episode_steps(self, conn: Connection, tenant: str, episode_id: str) -> list[Any]: ...

    def event_deltas(self, conn: Connection, event_ids: Sequence[str], tenant: str | None = None) -> list[Any]: ...

    def links_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]: ...

    def retrieved_in_episode(self, conn: Connection, tenant: str, episode_id: str) -> list[str]: ...

    def recent_steps(self, conn: Connection, delta_id: str, limit: int) -> list[float]: ...

    def apply_update(self, conn: Connection, row: dict[str, Any], credit_total: float, flags: Sequence[str]) -> None: ...

    def open_item(self, conn: Connection, kind: str, delta_id: str) -> int | None: ...

    def enqueue(
        self, conn: Connection, tenant: str, kind: str, reason: str, payload: dict[str, Any], *, delta_id: str | None, event_id: str | None
    ) -> int: ...

    def review_item(self, conn: Connection, item_id: int) -> dict[str, Any] | None: ...

    def review_record(self, conn: Connection, item_id: int) -> ReviewItem | None: ...

    def review_records(self, conn: Connection, tenant: str | None, include_resolved: bool) -> list[ReviewItem]: ...

    def resolve_item(self, conn: Connection, item_id: int, resolution: str) -> None: ...

    def set_delta_flags(self, conn: Connection, delta_id: str, flags: Sequence[str]) -> None: ...

    def delta_states(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, Any]: ...

    def set_utility(
        self, conn: Connection, delta_id: str, tenant: str, *, predicted: float, new: float, source: str, now: float, flags: Sequence[str]
    ) -> None: ...

    def episodes_with_tool(self, conn: Connection, tenant: str, tool_name: str, limit: int) -> list[str]: ...

    def episode_traces(self, conn: Connection, tenant: str, episode_ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...

    def failed_calls(self, results: Iterable[tuple[Iterable[str], dict[str, Any]]]) -> set[str]:
        """Of the calls some tool results answer, those whose every result reports a failure."""
        ...


class DriftRepository(Protocol):
    """Each tool's schemas (current and past), the deltas learned under an older one, migrations."""

    def called_schemas(self, conn: Connection, event_ids: Sequence[str]) -> list[tuple[str, str, str]]: ...

    def current_hash(self, conn: Connection, tenant: str, tool: str) -> str | None: ...

    def set_current(self, conn: Connection, tenant: str, tool: str, schema_hash: str, now: float) -> None: ...

    def record_schemas(self, conn: Connection, rows: list[dict[str, Any]]) -> set[str]: ...

    def schema_of(self, conn: Connection, tenant: str, tool: str, schema_hash: str) -> dict[str, Any] | None: ...

    def affected_deltas(self, conn: Connection, tenant: str, tool: str, new_hash: str) -> list[Any]: ...

    def record_migration(self, conn: Connection, row: dict[str, Any]) -> None: ...

    def migrations_of(self, conn: Connection, delta_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]: ...

    def schemas_of_tools(self, conn: Connection, tenant: str, tools: Sequence[str]) -> dict[tuple[str, str], dict[str, Any]]: ...


class Database(Transactions, ChangeLog, Protocol):
    """The transactions and the change log, together (the engine's ``SQLStore``)."""
