"""What was derived from erased events, re-derived from what remains.

:class:`DerivedArtifactStore` is the plug point: every layer that keeps artifacts derived from
events (facts and beliefs today; consolidation's schemas and merged items when that layer
lands) gives the forget pipeline one object that, inside the erasure's transaction, finds what
the erased events contributed to, re-derives it from the remaining events, and deletes what was
derived from erased events alone (the seed's step 4). The pipeline calls each registered store
after the events are gone, so a re-derivation can only see what remains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from deltacore.belief import BeliefLayer
from deltacore.storage.erasure import ErasureRepository

__all__ = ["DerivedArtifactStore", "DerivedChange", "FactRederivation", "LearnedFormsForgotten"]


@dataclass(frozen=True)
class DerivedChange:
    """What one derived store did: artifacts re-derived (``modified``) and removed (``deleted``)."""

    artifact: str
    modified: int = 0
    deleted: int = 0
    approximated: int = 0
    """Of ``modified``, re-derived only approximately (the history could not be replayed)."""
    noised: int = 0
    """Of ``modified``, given DP noise (``ForgetRequest.dp_epsilon``)."""


@runtime_checkable
class DerivedArtifactStore(Protocol):
    artifact: str
    """The class reported in the certificate (``facts``; later ``schemas``)."""

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        """Before the events are erased: the keys of what they contributed to (JSON-able, no content)."""
        ...

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> DerivedChange:
        """After the events are erased, in the same transaction: re-derive ``touched`` from the
        remaining events; delete what no remaining event supports. ``options`` are the
        request's (``dp_epsilon``); a store ignores what it does not use."""
        ...


class FactRederivation:
    """Facts and beliefs: every slot an erased event stated is rebuilt from the remaining events.

    A slot's facts, statement links and conflicts are removed, then the belief layer re-reads
    the slot's remaining events as if they had just been written (its update is idempotent), so
    the current value, validity intervals and conflicts are what the remaining evidence says."""

    artifact = "facts"

    def __init__(self, beliefs: BeliefLayer, erasure: ErasureRepository) -> None:
        self._beliefs = beliefs
        self._erasure = erasure

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        return self.representatives(conn, self._erasure.facts_of_events(conn, event_ids))

    def representatives(self, conn: Any, fact_ids: Sequence[str], known: Sequence[Any] = ()) -> list[Any]:
        """One fact id per slot (the slots of ``known`` left out). Ids, not the slots: a slot's
        subject is the person's name, and what this returns is journaled (measured: the name in
        a journal row stayed in the ``-wal`` frames written after the physical pass)."""
        seen = set(self._erasure.slots(conn, [k for k in known if isinstance(k, str)]))
        seen.update(tuple(k) for k in known if not isinstance(k, str))
        found: list[Any] = []
        for fact_id in dict.fromkeys(fact_ids):
            slot = next(iter(self._erasure.slots(conn, [fact_id])), None)
            if slot is not None and slot not in seen:
                seen.add(slot)
                found.append(fact_id)
        return found

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> DerivedChange:
        gone = set(erased)
        modified = deleted = 0
        # Fact ids resolve to their slots before anything is deleted (a journal written before
        # this change holds [tenant, subject, attribute] lists: still understood).
        slots = set(self._erasure.slots(conn, [k for k in touched if isinstance(k, str)]))
        slots.update(tuple(k) for k in touched if not isinstance(k, str))
        for tenant, subject, attribute in sorted(slots):
            before_ids = self._erasure.slot_fact_ids(conn, tenant, subject, attribute)
            before = self._erasure.fact_values(conn, before_ids)
            remaining = [e for e in self._erasure.fact_event_ids(conn, before_ids) if e not in gone]
            remaining = self._erasure.existing_events(conn, remaining)
            self._erasure.delete_facts(conn, tenant, subject, attribute)
            if remaining:
                self._beliefs.update(conn, remaining)
            after = self._erasure.fact_values(conn, self._erasure.slot_fact_ids(conn, tenant, subject, attribute))
            deleted += len(set(before) - set(after))
            modified += sum(1 for fact_id, value in after.items() if before.get(fact_id) != value)
        return DerivedChange(self.artifact, modified=modified, deleted=deleted)


class LearnedFormsForgotten:
    """Learned forms (``deltacore.belief.forms``): the words around a subject and a value in
    lines the tenant wrote. A form keeps the other words of the line it was learned from, so an
    erasure drops every form of the tenants whose events it erased; they are learned again from
    what is written next."""

    artifact = "learned_forms"

    def __init__(self, beliefs: BeliefLayer) -> None:
        self._beliefs = beliefs

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        return sorted({row["tenant"] for row in self._beliefs.store.stored_events(conn, event_ids)})

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> DerivedChange:
        deleted = 0
        for tenant in touched:
            self._beliefs.forms.forget(tenant)
            deleted += self._beliefs.store.drop_learned_forms(conn, tenant)
        return DerivedChange(self.artifact, deleted=deleted)
