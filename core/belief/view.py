"""What the store believes about the memories a query found: the read path's view of Layer 3.

For each memory (event) that stated a fact: is its value the slot's value at the query's time
(``current``), one side of an open conflict (``contested``), replaced (``superseded``) or not
yet true then (``future``); its belief confidence; the current value's fact and events; the
competing values; whether the belief is STALE; and the look-alike subjects (E06) of its subject.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from deltacore.belief.aliasing import look_alikes
from deltacore.belief.layer import FactRepository
from deltacore.belief.policy import BeliefPolicy
from deltacore.belief.records import UNKNOWN
from deltacore.belief.staleness import slot_belief, valid_at

RANK = {"current": 0, "contested": 1, "unread": 1, "future": 2, "superseded": 2}


@dataclass
class MemoryBelief:
    event_id: str
    slot: tuple[str, str, str]
    """(tenant, subject, attribute) of the fact that decides the memory's standing."""
    state: str
    """current, contested, future, superseded, or unread (newer than the stored value, no fact read)."""
    belief_confidence: float
    fact_id: str
    superseded_by: str | None = None
    current_value: str | None = None
    current_event_ids: list[str] = field(default_factory=list)
    conflict: dict[str, float] = field(default_factory=dict)
    contradicted: bool = False
    stale: bool = False
    hint: str | None = None
    ambiguous_with: list[str] = field(default_factory=list)
    """Subjects whose names read like this memory's subject (kept apart, E06)."""
    last_observed: float | None = None
    """When the fact it states was last observed (unix seconds)."""
    degraded: bool = False
    """Last observed before the tenant's distribution shift (E07)."""

    @property
    def rank(self) -> int:
        return RANK[self.state]


def memory_beliefs(
    store: FactRepository, policy: BeliefPolicy, conn: Any, event_ids: Sequence[str], t: float,
    prefer: tuple[str, str] | None = None,
) -> dict[str, MemoryBelief]:
    """The belief standing of each memory among ``event_ids`` that stated a fact. A memory that
    stated facts of several slots stands by its fact of ``prefer`` (subject, attribute: the slot
    a question asks about) when it has one, else by its best-standing fact."""
    linked = store.facts_of_events(conn, event_ids)
    if not linked:
        return {}
    stated = store.facts_by_id(conn, [f for ids in linked.values() for f in ids])
    subjects: dict[str, set[str]] = {}
    for row in stated.values():
        subjects.setdefault(row["tenant"], set()).add(row["subject"])
    slots: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    conflicts: list[dict[str, Any]] = []
    aliases: dict[tuple[str, str], list[str]] = {}
    for tenant, names in subjects.items():
        for row in store.slot_facts(conn, tenant, sorted(names)):
            slots.setdefault((row["tenant"], row["subject"], row["attribute"]), []).append(row)
        conflicts.extend(store.slot_conflicts(conn, tenant, sorted(names)))
        known = store.subjects(conn, tenant)
        aliases.update(((tenant, name), look_alikes(name, known)) for name in names)
    beliefs = {key: slot_belief(policy, facts, t, conflicts) for key, facts in slots.items()}
    by_id = {row["id"]: row for facts in slots.values() for row in facts}
    found: dict[str, MemoryBelief] = {}
    for event_id, fact_ids in linked.items():
        options = []
        for fact_id in fact_ids:
            fact = by_id.get(fact_id)
            if fact is None or policy.is_multi_valued(fact["attribute"]):
                continue  # a many-valued slot's values all hold: none outranks or flags another
            key = (fact["tenant"], fact["subject"], fact["attribute"])
            options.append(_standing(event_id, fact, key, beliefs[key], by_id, policy, t))
        if options:
            chosen = min(options, key=lambda m: (m.slot[1:] != prefer, m.rank, -m.belief_confidence))
            chosen.ambiguous_with = aliases.get(chosen.slot[:2], [])
            found[event_id] = chosen
    return found


def _standing(event_id: str, fact: dict[str, Any], key: tuple[str, str, str], belief: Any, by_id: dict[str, dict[str, Any]], policy: BeliefPolicy, t: float) -> MemoryBelief:
    distribution = belief.distribution if belief is not None else {}
    if valid_at(fact, t):
        state = "current" if belief is not None and belief.fact_id == fact["id"] else "contested"
    else:
        state = "future" if fact["valid_from"] > t else "superseded"
    memory = MemoryBelief(event_id, key, state, round(distribution.get(fact["value"], 0.0), 6), fact["id"])
    memory.last_observed = float(fact["last_observed"]) if fact.get("last_observed") is not None else None
    if state in ("superseded", "future") and belief is not None and belief.fact_id is not None:
        current = by_id[belief.fact_id]
        memory.superseded_by = current["id"]
        memory.current_value = current["value"]
        memory.current_event_ids = list(current.get("event_ids") or [current["event_id"]])
    if state in ("current", "contested") and belief is not None:
        values = {v: p for v, p in distribution.items() if v != UNKNOWN}
        if belief.conflict_id is not None and len(values) > 1:
            memory.conflict = values
            rival = max((p for v, p in values.items() if v != fact["value"]), default=0.0)
            memory.contradicted = rival >= policy.conflict_flag_min_belief or state == "contested"
        memory.stale, memory.hint = belief.stale, belief.hint
    return memory
