"""The contradiction policy (E03), scoped to one slot: supersede, keep as history, or conflict.

Pure: it works on the slot's fact and conflict rows (plain dicts, as stored) and records what
changed; :mod:`deltacore.belief.layer` reads and writes them. For a new value of a slot:

- the **same value** (normalised: "Golang" = "go", "lives in" = "is based in") corroborates the
  fact that holds it — more evidence, never a conflict;
- a value whose valid time is **older** than the current one's becomes **history**: true in its
  own period, closed where the next known value starts (out-of-order arrival);
- otherwise it **supersedes** the current value (closes its ``valid_until``, sets
  ``superseded_by``) when it is sure (confidence > ``supersede_confidence``), recent (not older
  than ``supersede_window_hours`` behind the latest observation of the slot) and written by a
  trusted source (trusted namespace, trust score ≥ ``trusted_min``, and not a newcomer
  contradicting what others established);
- else both stay, with belief weights, and a :class:`ConflictRecord` opens; later independent
  observations (``auto_resolve_observations``) settle it toward the value they confirm.

Nothing is deleted: every fact keeps its row for history and as-of questions.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any


from deltacore.belief.extract import FactClaim
from deltacore.belief.dates import is_date_key
from deltacore.belief.lexicon import value_key
from deltacore.belief_policy import HOUR, BeliefPolicy  # noqa: F401 - re-exported
from deltacore.belief.records import ConflictResolution, FactStatus



def fact_id_for(event_id: str, tenant: str, subject: str, attribute: str) -> str:
    """Deterministic: re-running the belief update after a crash finds the same fact."""
    return hashlib.sha1(f"{tenant}|{event_id}|{subject}|{attribute}".encode()).hexdigest()[:32]


def conflict_id_for(old_fact_id: str, new_fact_id: str) -> str:
    return hashlib.sha1(f"{old_fact_id}|{new_fact_id}".encode()).hexdigest()[:32]


@dataclass
class Statement:
    """A claim with what the store knows about the event that made it."""

    claim: FactClaim
    event_id: str
    tenant: str
    ts: float
    source: str | None
    trust: float
    namespace: str
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    newcomer: bool = False

    @property
    def valid_from(self) -> float:
        return self.claim.valid_from if self.claim.valid_from is not None else self.ts

    @property
    def supporter(self) -> str:
        return self.source or f"event:{self.event_id}"


def is_open(fact: dict[str, Any]) -> bool:
    return fact["valid_until"] is None and fact["status"] in (FactStatus.CURRENT, FactStatus.CONTESTED)


def strength(fact: dict[str, Any]) -> float:
    return max(float(fact["confidence"]) * float(fact["trust"]), 1e-6)


@dataclass
class SlotBook:
    """The facts and conflicts of the subjects a batch touches, and what the batch changed."""

    policy: BeliefPolicy
    facts: dict[str, dict[str, Any]]
    conflicts: dict[str, dict[str, Any]]
    now: float = field(default_factory=time.time)
    changed_facts: set[str] = field(default_factory=set)
    changed_conflicts: set[str] = field(default_factory=set)
    links: list[dict[str, Any]] = field(default_factory=list)
    system_events: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)
    """(event id, fact id) pairs already stored: re-applying them is a no-op."""

    def slot(self, tenant: str, subject: str, attribute: str) -> list[dict[str, Any]]:
        return [
            f for f in self.facts.values() if f["tenant"] == tenant and f["subject"] == subject and f["attribute"] == attribute
        ]

    # ---- one statement --------------------------------------------------------------------------

    def apply(self, st: Statement) -> str:
        """Apply one statement; returns what happened (corroborated, current, history, superseded, conflict)."""
        c = st.claim
        slot = self.slot(st.tenant, c.subject, c.attribute)
        if any(st.event_id in f["event_ids"] or (st.event_id, f["id"]) in self.seen for f in slot):
            return "seen"  # a re-run after a crash, or the same event stating it twice
        key, t = value_key(c.value), st.valid_from
        same = [f for f in slot if _same_value(f, key) and (is_open(f) or _covers(f, t))]
        if same:
            self._corroborate(max(same, key=lambda f: (is_open(f), f["valid_from"])), st)
            return "corroborated"
        new = self._new_fact(st, key)
        if self.policy.is_multi_valued(c.attribute):
            return "current"  # "also likes Rust": one more value, the others stay current
        open_facts = [f for f in slot if is_open(f)]
        later = [f for f in slot if f["valid_from"] > t]
        if not open_facts or t < max(f["valid_from"] for f in open_facts):
            if later:
                nxt = min(later, key=lambda f: f["valid_from"])
                new.update(status=FactStatus.HISTORY, valid_until=nxt["valid_from"], superseded_by=nxt["id"], weight=1.0)
                self._close_covering(slot, new, t, st)
                self._event(st, "history", new, nxt)
                return "history"
            return "current"
        current = max(open_facts, key=lambda f: (f["weight"], f["valid_from"]))
        if self._may_supersede(st, open_facts):
            denied = value_key(c.denied) if c.denied else None
            for old in open_facts:
                if _same_value(old, denied) and not _established(old):
                    # "Correction: …, not Paris": Paris was never true, the new value was.
                    new["valid_from"] = min(new["valid_from"], old["valid_from"])
                    self._close(old, old["valid_from"], new["id"], FactStatus.REJECTED)
                else:
                    # A denied value that independent sources confirmed is not erased from the
                    # past by one correction: it ends now and stays history (never delete).
                    self._close(old, t, new["id"], FactStatus.SUPERSEDED)
            for conflict in self._pending(st.tenant, c.subject, c.attribute):
                self._resolve(conflict, new["id"], ConflictResolution.AUTO_RESOLVED, "superseded by a newer value")
            self._event(st, "superseded", new, current)
            return "superseded"
        newcomer_factor = self.policy.newcomer_weight if st.newcomer else 1.0
        new_strength = max(c.confidence * st.trust * newcomer_factor, 1e-6)
        old_belief = strength(current) / (strength(current) + new_strength)
        current.update(status=FactStatus.CONTESTED, weight=round(old_belief, 6))
        new.update(status=FactStatus.CONTESTED, weight=round(1.0 - old_belief, 6))
        self.changed_facts.add(current["id"])
        conflict = {
            "id": conflict_id_for(current["id"], new["id"]),
            "tenant": st.tenant,
            "type": "TEMPORAL_CONTRADICTION",
            "subject": c.subject,
            "attribute": c.attribute,
            "old_fact_id": current["id"],
            "new_fact_id": new["id"],
            "old_value": current["value"],
            "new_value": new["value"],
            "old_belief": round(old_belief, 6),
            "new_belief": round(1.0 - old_belief, 6),
            "resolution": ConflictResolution.PENDING.value,
            "winner_fact_id": None,
            "support": {},
            "note": None,
            "created_at": self.now,
            "resolved_at": None,
        }
        self.conflicts[conflict["id"]] = conflict
        self.changed_conflicts.add(conflict["id"])
        self._event(st, "conflict", new, current, conflict_id=conflict["id"])
        return "conflict"

    # ---- resolution ------------------------------------------------------------------------------

    def resolve(self, conflict: dict[str, Any], winner_id: str, how: ConflictResolution, note: str | None) -> None:
        self._resolve(conflict, winner_id, how, note)

    def _resolve(self, conflict: dict[str, Any], winner_id: str, how: ConflictResolution, note: str | None) -> None:
        conflict.update(resolution=how.value, winner_fact_id=winner_id, resolved_at=self.now, note=note)
        self.changed_conflicts.add(conflict["id"])
        winner = self.facts.get(winner_id)
        for fact_id in (conflict["old_fact_id"], conflict["new_fact_id"]):
            fact = self.facts.get(fact_id)
            if fact is None or fact_id == winner_id or not is_open(fact):
                continue
            if winner is not None and winner["valid_from"] > fact["valid_from"]:
                self._close(fact, winner["valid_from"], winner_id, FactStatus.SUPERSEDED)
            else:
                self._close(fact, fact["valid_from"], winner_id, FactStatus.REJECTED)
        if winner is not None and is_open(winner):
            others = [f for f in self.slot(winner["tenant"], winner["subject"], winner["attribute"]) if is_open(f) and f is not winner]
            winner.update(status=FactStatus.CONTESTED if others else FactStatus.CURRENT, weight=1.0 if not others else winner["weight"])
            self.changed_facts.add(winner_id)

    def _auto_resolve(self, fact: dict[str, Any], st: Statement) -> None:
        for conflict in self._pending(fact["tenant"], fact["subject"], fact["attribute"]):
            if fact["id"] not in (conflict["old_fact_id"], conflict["new_fact_id"]):
                continue
            rival = self.facts.get(conflict["new_fact_id"] if fact["id"] == conflict["old_fact_id"] else conflict["old_fact_id"])
            if rival is not None and st.valid_from >= rival["valid_from"] and self._may_supersede(st, [fact, rival]):
                # A writer trusted to change the value on its own (confident, recent, trusted,
                # established) says one side after both were said: that settles it, as its
                # statement alone would have superseded.
                self._resolve(conflict, fact["id"], ConflictResolution.AUTO_RESOLVED, "confirmed by a writer trusted to change it")
                self.system_events.append(
                    (st.tenant, "TEMPORAL_CONTRADICTION", {"code": "E03", "action": "auto_resolved", "conflict_id": conflict["id"], "winner": fact["id"]})
                )
                continue
            support = {k: list(v) for k, v in (conflict["support"] or {}).items()}
            backers = support.setdefault(fact["id"], [])
            if st.supporter not in backers:
                backers.append(st.supporter)
            conflict["support"] = support
            self.changed_conflicts.add(conflict["id"])
            old_n = len(support.get(conflict["old_fact_id"], []))
            new_n = len(support.get(conflict["new_fact_id"], []))
            if old_n + new_n >= self.policy.auto_resolve_observations and old_n != new_n:
                winner = conflict["old_fact_id"] if old_n > new_n else conflict["new_fact_id"]
                self._resolve(conflict, winner, ConflictResolution.AUTO_RESOLVED, f"{max(old_n, new_n)} of {old_n + new_n} later observations")
                self.system_events.append(
                    (st.tenant, "TEMPORAL_CONTRADICTION", {"code": "E03", "action": "auto_resolved", "conflict_id": conflict["id"], "winner": winner})
                )

    # ---- helpers ---------------------------------------------------------------------------------

    def _may_supersede(self, st: Statement, open_facts: list[dict[str, Any]]) -> bool:
        policy = self.policy
        if st.claim.confidence <= policy.supersede_confidence:
            return False
        if st.namespace != "trusted" or st.trust < policy.trusted_min:
            return False
        if st.newcomer and any(set(f["sources"]) - {st.supporter} for f in open_facts):
            return False  # a newcomer may update what only it said, not what others established
        latest = max(f["last_observed"] for f in open_facts)
        return st.valid_from >= latest - policy.supersede_window_hours * HOUR

    def _corroborate(self, fact: dict[str, Any], st: Statement) -> None:
        fact["observations"] += 1
        fact["event_ids"].append(st.event_id)
        if st.supporter not in fact["sources"]:
            fact["sources"] = [*fact["sources"], st.supporter]
        fact["last_observed"] = max(fact["last_observed"], st.ts, st.valid_from)
        if is_open(fact) and st.valid_from < fact["valid_from"]:
            earlier = [f for f in self.slot(fact["tenant"], fact["subject"], fact["attribute"]) if f is not fact]
            if not any(st.valid_from < (f["valid_until"] or 0) <= fact["valid_from"] for f in earlier):
                fact["valid_from"] = st.valid_from
        self.changed_facts.add(fact["id"])
        self.links.append(_link(fact["id"], st))
        self._auto_resolve(fact, st)

    def _new_fact(self, st: Statement, key: str) -> dict[str, Any]:
        c = st.claim
        fact = {
            "id": fact_id_for(st.event_id, st.tenant, c.subject, c.attribute),
            "tenant": st.tenant,
            "agent_id": st.agent_id,
            "user_id": st.user_id,
            "session_id": st.session_id,
            "subject": c.subject,
            "subject_name": c.subject_name[:256],
            "attribute": c.attribute[:128],
            "attribute_class": self.policy.class_of(c.attribute),
            "value": c.value,
            "value_key": key[:256],
            "valid_from": st.valid_from,
            "valid_until": None,
            "recorded_at": self.now,
            "last_observed": max(st.ts, st.valid_from),
            "confidence": round(c.confidence, 6),
            "trust": round(st.trust * (self.policy.newcomer_weight if st.newcomer else 1.0), 6),
            "weight": 1.0,
            "source": st.source,
            "namespace": st.namespace,
            "event_id": st.event_id,
            "sources": [st.supporter],
            "observations": 1,
            "status": FactStatus.CURRENT,
            "superseded_by": None,
            "method": c.method[:64],
            "event_ids": [st.event_id],
        }
        self.facts[fact["id"]] = fact
        self.changed_facts.add(fact["id"])
        self.links.append(_link(fact["id"], st))
        return fact

    def _close(self, fact: dict[str, Any], until: float, by: str, status: FactStatus) -> None:
        fact.update(valid_until=max(until, fact["valid_from"]), superseded_by=by, status=status)
        self.changed_facts.add(fact["id"])

    def _close_covering(self, slot: list[dict[str, Any]], new: dict[str, Any], t: float, st: Statement) -> None:
        """A trusted late statement splits the closed period it falls into."""
        if st.namespace != "trusted" or st.trust < self.policy.trusted_min:
            return
        for f in slot:
            if not is_open(f) and _covers(f, t) and f["valid_from"] < t and f["id"] != new["id"]:
                new["valid_until"] = min(new["valid_until"], f["valid_until"])
                new["superseded_by"] = f["superseded_by"]
                self._close(f, t, new["id"], FactStatus(f["status"]))

    def _pending(self, tenant: str, subject: str, attribute: str) -> list[dict[str, Any]]:
        return [
            c for c in self.conflicts.values()
            if c["tenant"] == tenant and c["subject"] == subject and c["attribute"] == attribute and c["resolution"] == "pending"
        ]

    def _event(self, st: Statement, action: str, new: dict[str, Any], old: dict[str, Any], **extra: Any) -> None:
        payload = {
            "code": "E03",
            "action": action,
            "subject": st.claim.subject,
            "attribute": st.claim.attribute,
            "old_fact_id": old["id"],
            "old_value": old["value"],
            "new_fact_id": new["id"],
            "new_value": new["value"],
            "event_id": st.event_id,
            **extra,
        }
        self.system_events.append((st.tenant, "TEMPORAL_CONTRADICTION", payload))


def _same_value(fact: dict[str, Any], key: str | None) -> bool:
    """The fact holds the value whose key is ``key``. A date's stored key is recomputed from its
    value: a store written before dates had one key ("4 march 2027") still matches "4/3/27"."""
    if key is None:
        return False
    return fact["value_key"] == key or (is_date_key(key) and value_key(fact["value"]) == key)


def _established(fact: dict[str, Any]) -> bool:
    """Observed by at least two independent sources: more than one writer's mistake."""
    return len(set(fact.get("sources") or ())) >= 2


def _covers(fact: dict[str, Any], t: float) -> bool:
    return fact["valid_from"] <= t and (fact["valid_until"] is None or t < fact["valid_until"])


def _link(fact_id: str, st: Statement) -> dict[str, Any]:
    return {"fact_id": fact_id, "event_id": st.event_id, "tenant": st.tenant, "ts": st.ts, "source": st.source}
