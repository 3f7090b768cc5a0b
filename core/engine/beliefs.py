"""The belief part of the ``DeltaCore`` facade: facts in time, conflicts, what is believed now."""

from __future__ import annotations

from typing import Any

from deltacore.belief import BeliefLayer, BeliefState, ConflictRecord, Fact


class BeliefMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the belief layer is wired there."""

    _beliefs: BeliefLayer

    def facts(
        self, subject: str | None = None, attribute: str | None = None, at: Any = None, *, tenant: str = "default"
    ) -> list[Fact]:
        """Facts valid at ``at`` (a datetime, unix seconds or ISO date; default: what is believed
        now), optionally of one subject and attribute (``facts("user", "preferred language")``)."""
        return self._beliefs.facts(subject, attribute, at, tenant=tenant)

    def history(self, subject: str, attribute: str, *, tenant: str = "default") -> list[Fact]:
        """Every value a slot ever had, oldest valid time first, superseded ones included."""
        return self._beliefs.history(subject, attribute, tenant=tenant)

    def query_belief(self, entity: str, at_time: Any = None, *, tenant: str = "default") -> BeliefState:
        """What is believed about ``entity`` at ``at_time`` (default now): per attribute, a
        distribution over values plus UNKNOWN, its confidence and whether it is STALE."""
        return self._beliefs.query_belief(entity, at_time, tenant=tenant)

    def conflicts(self, *, tenant: str = "default", include_resolved: bool = False) -> list[ConflictRecord]:
        """Contradictions (E03) the policy could not settle, oldest first."""
        return self._beliefs.conflicts(tenant=tenant, include_resolved=include_resolved)

    def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Settle a conflict: ``"old"``, ``"new"``, a fact id or a value (``"new: confirmed by HR"``)."""
        return self._beliefs.resolve_conflict(conflict_id, resolution)
