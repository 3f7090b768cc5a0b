"""The plans part of the ``DeltaCore`` facade: ``recall_plans``, ``declare_failure`` and the
schema methods (issue 17). The logic lives in :mod:`deltacore.learning`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.ingest.tool_specs import read_tool_specs
from deltacore.learning import PlanRecall, SchemaBook
from deltacore.learning.failures import check_kind
from deltacore.learning.situations import situation_of
from deltacore.learning.tools import read_only_of
from deltacore.model.plans import Plan, Schema
from deltacore.storage import SQLStore
from deltacore.storage.plan_store import PlanRepository


class PlanMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the collaborators are wired there."""

    _sql: SQLStore
    config: Any
    _plan_repo: PlanRepository
    _plan_recall: PlanRecall
    _schemas: SchemaBook

    def recall_plans(
        self,
        task: str | Mapping[str, Any],
        tools: Mapping[str, Any] | Sequence[Any] | None = None,
        *,
        tenant: str = "default",
        agent_id: str | None = None,
        top_k: int = 3,
    ) -> list[Plan]:
        """Plans that worked (or failed) for tasks like ``task``, ready to run, best first.

        ``task`` is the task text, or ``{"text", "kind", "fields", "entity", "tags",
        "attributes"}``. Each :class:`~deltacore.model.plans.Plan` is a pattern of tool calls
        learned from recorded episodes, pooled across entities: its slots filled from this
        task, its calls migrated to ``tools`` (the tools on offer; else the last observed
        schemas) and flagged ``drifted`` where a schema changed; ``probability`` is a calibrated
        P(success) (Beta posterior over the pattern's outcomes in similar situations,
        transient failures left out). Ranked by completeness, probability, then evidence."""
        situation = situation_of(task)
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InvalidQueryError(
                "top_k", f"must be a positive integer, got {top_k!r}"
            )
        offered = None
        read_only: dict[str, bool] = {}
        if tools is not None:
            try:
                specs, _ = read_tool_specs(tools)
            except TypeError as exc:
                raise InvalidQueryError("tools", str(exc)) from exc
            offered = {name: schema for name, schema, _ in specs}
            read_only = read_only_of(tools)
            if read_only:
                self._plans_observe(tools, tenant, only_changed=True)
        return self._plan_recall.recall(
            situation,
            tenant,
            agent_id=agent_id,
            top_k=top_k,
            offered=offered,
            offered_read_only=read_only,
        )

    def declare_failure(
        self, event_id: str, kind: str, *, tenant: str = "default"
    ) -> None:
        """Declare after the fact why a tool step failed: ``"transient"`` (a timeout, a flaky
        dependency: not held against the plan) or ``"permanent"`` (it counts against it).
        ``event_id`` is the tool result (or its call)."""
        kind = check_kind(kind)
        if not isinstance(event_id, str) or not event_id:
            raise InvalidQueryError(
                "event_id", "give the id of the tool result (or call) that failed"
            )
        with self._sql.writer() as conn:
            found = self._plan_repo.event_kind(conn, event_id, tenant)
            if found is None:
                raise NotFoundError(f"no event {event_id!r} in tenant {tenant!r}")
            if found[0] not in ("tool_result", "tool_call"):
                raise InvalidQueryError(
                    "event_id",
                    f"event {event_id!r} is a {found[0]}, not a tool result or call",
                )
            self._plan_repo.declare_failure(conn, tenant, event_id, kind)
            self._sql.bump_version(conn, tenant)

    def schema_get(self, schema_id: str, *, tenant: str = "default") -> Schema:
        """One plan schema (its current version) with the reliability its outcomes give it."""
        return self._schemas.get(schema_id, tenant)

    def schema_update(
        self, schema_id: str, *, tenant: str = "default", **changes: Any
    ) -> Schema:
        """Change a schema (``steps``, ``slots``, ``utility``, ``confidence``, ``disabled``,
        ``note`` …): a new version; the old ones stay for :meth:`schema_rollback`."""
        return self._schemas.update(schema_id, tenant, changes)

    def schema_rollback(
        self, schema_id: str, version: int, *, tenant: str = "default"
    ) -> Schema:
        """Make an earlier version of a schema current again (as a new version)."""
        return self._schemas.rollback(schema_id, tenant, version)

    def schema_export(self, *, tenant: str = "default") -> dict[str, Any]:
        """Every schema of the tenant as a versioned JSON bundle with a checksum (what it
        learned travels with it: utility, task examples)."""
        return self._schemas.export(tenant)

    def schema_import(
        self,
        bundle: Mapping[str, Any] | str,
        *,
        tenant: str = "default",
        provenance: str = "PRIOR",
    ) -> int:
        """Import a :meth:`schema_export` bundle; returns how many schemas. With provenance
        ``PRIOR`` they are cold-start knowledge at confidence 0.3: offered until this store's
        own outcomes take over. A corrupt or wrong-version bundle is refused and nothing changes."""
        return self._schemas.import_bundle(bundle, tenant, provenance)

    def _plans_after_outcome(self, tenant: str, episode_id: str) -> None:
        self._schemas.after_outcome(tenant, episode_id)

    def _plans_observe(
        self,
        tools: Mapping[str, Any] | Sequence[Any],
        tenant: str,
        *,
        only_changed: bool = False,
    ) -> None:
        """Keep what the tool specs say about reading only (episodes' steps are judged by it)."""
        traits = read_only_of(tools)
        if not traits or self.config.read_only:
            return
        if only_changed:
            with self._sql.reader() as conn:
                known = self._plan_repo.read_only_tools(conn, tenant)
            traits = {
                tool: flag for tool, flag in traits.items() if known.get(tool) != flag
            }
        if traits:
            with self._sql.writer() as conn:
                self._plan_repo.set_read_only(conn, tenant, traits)
