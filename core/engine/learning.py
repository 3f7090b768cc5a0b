"""The learning part of the ``DeltaCore`` facade: outcomes, decisions, drift, propagation."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from deltacore.delta.drift import DriftMonitor
from deltacore.delta.ids import delta_id_for
from deltacore.delta.outcomes import Learner
from deltacore.delta.propagation import Propagator
from deltacore.engine.monitoring import traced
from deltacore.errors import InvalidQueryError
from deltacore.gateway.quarantine import QuarantineDesk
from deltacore.ingest.tool_specs import read_tool_specs
from deltacore.model import (
    Decision,
    DriftReport,
    OutcomeReport,
    PropagationReport,
    ReviewItem,
)
from deltacore.retrieval.decisions import DecisionRecall
from deltacore.storage import SQLStore


class LearningMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the collaborators are wired there."""

    _sql: SQLStore
    _drift: DriftMonitor
    _decisions: DecisionRecall
    _learner: Learner
    _propagator: Propagator
    _quarantine: QuarantineDesk

    # Defined by PlanMethods (engine/plans.py), mixed into the same class.
    _plans_observe: Callable[[Mapping[str, Any] | Sequence[Any], str], None]
    _plans_after_outcome: Callable[[str, str], None]

    def observe_tools(
        self, tools: Mapping[str, Any] | Sequence[Any], *, tenant: str = "default", source: str | None = None
    ) -> DriftReport:
        """Register the tools an agent is offered, without a call (adapters call it with the
        framework's tool list).

        ``tools`` is ``{name: JSON schema}`` or a list of specs (OpenAI / Anthropic / plain
        ``{"name", "parameters"}``). A schema other than the one a tool's earlier deltas were
        learned under is a drift (E04): ``SCHEMA_DRIFT`` is logged, those deltas are demoted
        and flagged ``schema_drift``, their arguments migrated to the new schema where the
        parameter mapping rules allow, and queued for review where they do not."""
        try:
            specs, rejected = read_tool_specs(tools)
        except TypeError as exc:
            raise InvalidQueryError("tools", str(exc)) from exc
        report = self._drift.observe(specs, tenant, source, rejected)
        self._plans_observe(tools, tenant)  # readOnlyHint and tool metadata, for plan credit (engine/plans.py)
        return report

    def recall_decisions(
        self,
        context: str,
        *,
        tool: str | None = None,
        tenant: str = "default",
        agent_id: str | None = None,
        top_k: int = 5,
        include_failed: bool = True,
        min_confidence: float = 0.0,
        min_similarity: float = 0.0,
        exclude_tainted: bool = True,
    ) -> list[Decision]:
        """What was done before in situations like ``context``, and how it went.

        Tool calls with the same tool and arguments are one :class:`Decision`, judged on all
        its calls: feedback, failed tool results, the credit each call earned from its
        episode's outcome, weighted by how similar each call's situation is and how recent it
        is. Decisions that worked (or are unknown) come first, best first; then, with
        ``include_failed``, those that failed, flagged ``failed`` (``top_k`` each). Each carries
        the schema it was learned under, whether it is still current, and migrated arguments
        after a schema change. Deterministic; no LLM."""
        if not isinstance(context, str) or not context.strip():
            raise InvalidQueryError("context", "describe the situation to recall decisions for (a non-empty string)")
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InvalidQueryError("top_k", f"must be a positive integer, got {top_k!r}")
        if not 0.0 <= min_confidence <= 1.0:
            raise InvalidQueryError("min_confidence", f"must be in [0, 1], got {min_confidence!r}")
        self._drain_for_read()  # type: ignore[attr-defined]  # pending vectors of this process's writes
        return self._decisions.recall(
            context,
            tool=tool,
            tenant=tenant,
            agent_id=agent_id,
            top_k=top_k,
            include_failed=include_failed,
            min_confidence=min_confidence,
            min_similarity=min_similarity,
            exclude_tainted=exclude_tainted,
        )

    def propagate(self, node_id: str, exception: str, *, reason: str | None = None) -> PropagationReport:
        """Propagate an exception at a delta (or event) through provenance.

        ``"poison"`` taints the whole downstream chain (flag ``tainted``, utility 0: left out
        of queries with ``exclude_tainted``); ``"contradiction"`` marks only what was derived
        from it (``contradicted``); ``"drift"`` marks only the chain's deltas of the same tool
        (``schema_drift``). Logged as ``<EXCEPTION>_PROPAGATED``."""
        delta_id = node_id
        with self._sql.reader() as conn:
            if not self._sql.fetch_deltas(conn, [node_id]):
                delta_id = delta_id_for(node_id)
        return self._propagator.propagate(delta_id, exception, reason)

    # ---- learning from outcomes ---------------------------------------------------------------

    @traced("update_memory")
    def record_outcome(
        self,
        episode_id: str,
        reward: float,
        *,
        tenant: str = "default",
        necessary: Collection[str] | None = None,
    ) -> OutcomeReport:
        """Learn from how an episode ended: ``reward`` in [-1, 1] (-1 failure, +1 success).

        Credit goes to each step (temporal decay, more for the steps the outcome causally
        depended on, a floor for ``necessary`` ones — event or delta ids, or events with
        ``meta["necessary"] = True``) and to the memories retrieved during the episode; each
        delta's utility moves toward the outcome, with the update kept in its history. A delta
        whose utility oscillates is flagged ``unstable`` and queued for review."""
        report = self._learner.record_outcome(episode_id, reward, tenant, necessary)
        self._quarantine.learn_from_outcome(report)
        self._plans_after_outcome(tenant, episode_id)  # the episode's plan pattern as a schema (engine/plans.py)
        return report

    @traced("update_memory")
    def feedback(self, event_id: str, reward: float, *, tenant: str | None = None) -> OutcomeReport:
        """Feedback on one step (``reward`` in [-1, 1]): its delta learns with full weight."""
        report = self._learner.feedback(event_id, reward, tenant)
        self._quarantine.learn_from_outcome(report)
        return report

    def review_queue(self, *, tenant: str | None = "default", include_resolved: bool = False) -> list[ReviewItem]:
        """Items waiting for a person (UNSTABLE utilities …), oldest first; ``tenant=None``
        lists every tenant's."""
        return self._learner.review_queue(tenant, include_resolved)

    def resolve_review(self, item_id: int, resolution: str, *, args: dict[str, Any] | None = None) -> ReviewItem:
        """Close a review item. ``"accept"`` keeps the memory and clears the flag that queued it
        (``unstable``, ``migration_failed``); ``"reject"`` sets its utility to 0 and keeps it out
        of ``recall_decisions``; any other note just closes it (an UNSTABLE item's flag is
        cleared all the same). Text after a colon is kept as the reason (``"reject: gone"``).

        ``args``: for a SCHEMA_DRIFT item, the call's arguments migrated by hand to the tool's
        new schema (every required parameter present); recalled like an automatic migration."""
        return self._learner.resolve(item_id, resolution, args)

