"""Layer 3: the belief layer. Facts from stored events, the contradiction policy, belief states.

Runs after the write transaction has committed, on the stored events (with the trust score and
namespace the gateway gave them), in a transaction of its own. Re-running it on the same events
is harmless: fact ids derive from event id and slot, and a statement already linked to a fact
is skipped.

>>> # memory.ingest([{"text": "the user prefers Python"}]); memory.facts("user")[0].value
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from deltacore.belief.aliasing import look_alikes, new_pairs
from deltacore.belief.attributes import same_slot
from deltacore.belief.changes import anchored_claims
from deltacore.belief.extract import (
    FactExtractor,
    FactFieldError,
    RuleFactExtractor,
    timestamp_of,
)
from deltacore.belief.forms import FormBook, batch_reader
from deltacore.belief.lexicon import canonical_subject, normalise_attribute
from deltacore.belief.open_slots import current_values, open_slot, previous_slot, unit_value
from deltacore.belief.policy import BeliefPolicy, SlotBook, Statement
from deltacore.belief.records import (
    BeliefState,
    ConflictRecord,
    ConflictResolution,
    Fact,
    FactStatus,
)
from deltacore.belief.shift import ShiftMonitor, event_features
from deltacore.belief.slots import SlotMatcher
from deltacore.belief.staleness import slot_belief, valid_at
from deltacore.errors import InvalidQueryError, NotFoundError

log = logging.getLogger(__name__)


class FactRepository(Protocol):
    """What the belief layer needs from storage (``deltacore.storage.fact_store.FactStore``)."""

    def reader(self) -> AbstractContextManager[Any]: ...
    def writer(self) -> AbstractContextManager[Any]: ...
    def lock_tenant(self, conn: Any, tenant: str) -> None: ...
    def stored_events(self, conn: Any, ids: Sequence[str]) -> list[dict[str, Any]]: ...
    def learned_forms(self, conn: Any, tenant: str) -> list[dict[str, Any]]: ...
    def save_learned_forms(self, conn: Any, rows: Sequence[dict[str, Any]]) -> None: ...
    def drop_learned_forms(self, conn: Any, tenant: str) -> int: ...
    def slot_facts(
        self,
        conn: Any,
        tenant: str,
        subjects: Sequence[str],
        attributes: Sequence[str] | None = None,
        with_events: bool = True,
        open_after: float | None = None,
    ) -> list[dict[str, Any]]: ...
    def slot_conflicts(self, conn: Any, tenant: str, subjects: Sequence[str], pending_only: bool = False) -> list[dict[str, Any]]: ...
    def facts(self, conn: Any, tenant: str, subject: str | None = None, attribute: str | None = None) -> list[dict[str, Any]]: ...
    def slots_of(self, conn: Any, tenant: str, subjects: Sequence[str]) -> list[tuple[str, str]]: ...
    def subjects(self, conn: Any, tenant: str) -> list[str]: ...
    def facts_by_id(self, conn: Any, fact_ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...
    def facts_of_events(self, conn: Any, event_ids: Sequence[str]) -> dict[str, list[str]]: ...
    def event_times(self, conn: Any, event_ids: Sequence[str]) -> dict[str, float]: ...
    def conflicts(self, conn: Any, tenant: str, include_resolved: bool = False) -> list[dict[str, Any]]: ...
    def conflict(self, conn: Any, conflict_id: str) -> dict[str, Any] | None: ...
    def save(self, conn: Any, facts: Sequence[dict[str, Any]], links: Sequence[dict[str, Any]], conflicts: Sequence[dict[str, Any]]) -> None: ...
    def log(self, conn: Any, entries: Sequence[tuple[str, str, dict[str, Any]]]) -> None: ...
    def last_shift(self, conn: Any, tenant: str) -> float | None: ...


NewcomerCheck = Callable[[Any, str, set[str]], set[str]]
"""(connection, tenant, sources) -> the sources without standing (``deltacore.gateway.standing``)."""


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored, with what the gateway decided about it."""

    id: str
    tenant: str
    ts: datetime
    kind: str
    text: str
    confidence: float
    trust: float
    namespace: str
    meta: dict[str, Any]
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    role: str | None = None
    actor: str | None = None
    source: str | None = None
    channel: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> StoredEvent:
        values = {k: row.get(k) for k in cls.__dataclass_fields__}
        values["ts"] = datetime.fromtimestamp(float(row["ts"]), UTC)
        values["meta"] = row.get("meta") or {}
        return cls(**values)


class BeliefLayer:
    """Facts in time and what is believed now: the engine's ``facts``, ``history``,
    ``query_belief``, ``conflicts`` and ``resolve_conflict`` delegate here."""

    def __init__(
        self,
        store: FactRepository,
        policy: BeliefPolicy | None = None,
        extractor: FactExtractor | None = None,
        newcomers: NewcomerCheck | None = None,
        slots: SlotMatcher | None = None,
    ) -> None:
        self.store = store
        self.slots = slots
        """Joins an attribute the lexicon does not know to the subject's slot it names in other
        words (embedding similarity); None: such an attribute is a slot of its own."""
        self.policy = (policy or BeliefPolicy()).checked()
        self.extractor = extractor or RuleFactExtractor()
        self._newcomers = newcomers
        self.shift = ShiftMonitor()
        self.forms = FormBook(self.policy.form_support)
        self._shifts: dict[str, float | None] = {}
        """Tenant -> start of its latest distribution shift (E07), loaded from the log once."""

    def established(self, conn: Any, tenant: str, events: Sequence[dict[str, Any]]) -> set[str]:
        """The ids of stored events whose writer may change what is believed: the trusted
        namespace, a trust score of at least ``trusted_min``, and not a newcomer."""
        sources = {e["source"] for e in events if e.get("source")}
        newcomers = self._newcomers(conn, tenant, sources) if self._newcomers is not None and sources else set()
        return {
            e["id"] for e in events
            if e.get("namespace") == "trusted" and float(e.get("trust") or 0.0) >= self.policy.trusted_min
            and e.get("source") not in newcomers
        }

    # ---- write path --------------------------------------------------------------------------------

    def after_commit(self, stored_ids: Sequence[str]) -> int:
        """:meth:`update` in a write transaction of its own."""
        with self.store.writer() as conn:
            return self.update(conn, stored_ids)

    def update(self, conn: Any, stored_ids: Sequence[str]) -> int:
        """Derive facts from freshly stored events and apply the contradiction policy, inside
        the caller's write transaction (the pipeline's after-commit step).

        Returns how many statements were applied. One read of the events; nothing more when
        none of them states a fact (the usual case for chat and tool traffic). Running it again
        for the same events changes nothing."""
        if not stored_ids:
            return 0
        rows = [r for r in self.store.stored_events(conn, stored_ids) if r["namespace"] != "quarantine"]
        # In time order, then as written: a change later in the batch may name what an earlier
        # event stated (the store returns rows in no particular order).
        written = {event_id: i for i, event_id in enumerate(stored_ids)}
        rows.sort(key=lambda r: (float(r["ts"]), written.get(r["id"], 0)))
        # Quarantined events are never retrieved, so never believed (a release can re-derive them).
        events = [StoredEvent.from_row(row) for row in rows]
        prepare = getattr(self.extractor, "prepare", None)
        if prepare is not None:
            prepare(events)  # one embedding call for the batch's unseen predicates
        by_tenant: dict[str, list[Statement]] = {}
        features: dict[str, list[list[str]]] = {}
        times: dict[str, list[float]] = {}
        # What earlier events of this batch stated: a change later in the batch may name it.
        stated: dict[str, dict[tuple[str, str], list[str]]] = {}
        forms = batch_reader(self.forms, self.store, conn, events) if self.policy.form_support else None
        for row, event in zip(rows, events):
            try:
                claims = self.extractor.claims(event)
            except FactFieldError as exc:
                log.warning("event %s states no usable fact: %s", event.id, exc)
                claims = []
            said = stated.setdefault(event.tenant, {})
            claims = anchored_claims(event, claims, lambda keys, t=event.tenant, said=said: self._held(conn, t, keys, said))
            if forms is not None:
                claims = forms(event, claims, said)
            for claim in claims:
                if not claim.open_predicate:
                    said.setdefault((claim.subject, claim.attribute), []).append(claim.value)
            classes = sorted({self.policy.class_of(c.attribute) for c in claims})
            features.setdefault(event.tenant, []).append(event_features(row, classes))
            times.setdefault(event.tenant, []).append(event.ts.timestamp())
            for claim in claims:
                by_tenant.setdefault(event.tenant, []).append(
                    Statement(claim, event.id, event.tenant, event.ts.timestamp(), event.source, float(event.trust),
                              event.namespace, event.agent_id, event.user_id, event.session_id)
                )
        applied = 0
        for tenant, statements in by_tenant.items():
            applied += self._apply(conn, tenant, statements)
        if forms is not None:
            self.forms.save(self.store, conn)
        alarms = [alarm for tenant, found in features.items() for alarm in self.shift.observe(tenant, found, times[tenant])]
        if alarms:
            log.warning("E07 DISTRIBUTION_SHIFT in %s", ", ".join(sorted({a.tenant for a in alarms})))
            self.store.log(conn, [(a.tenant, "DISTRIBUTION_SHIFT", a.payload()) for a in alarms])
            for alarm in alarms:
                if alarm.since is not None:
                    self._shifts[alarm.tenant] = max(alarm.since, self._shifts.get(alarm.tenant) or 0.0)
        return applied

    def _held(
        self, conn: Any, tenant: str, keys: list[str], said: dict[tuple[str, str], list[str]]
    ) -> dict[tuple[str, str], list[str]]:
        """Every value (not rejected) the slots of those of ``keys`` that are known subjects held,
        in the store or as ``said`` by earlier events of the batch."""
        subjects = sorted({subject for subject, _ in self.store.slots_of(conn, tenant, keys)})
        held: dict[tuple[str, str], list[str]] = {}
        for row in self.store.slot_facts(conn, tenant, subjects, with_events=False) if subjects else []:
            if row["status"] != FactStatus.REJECTED:
                held.setdefault((row["subject"], row["attribute"]), []).append(str(row["value"]))
        wanted = set(keys)
        for slot, values in said.items():
            if slot[0] in wanted:
                held.setdefault(slot, []).extend(values)
        return held

    def _apply(self, conn: Any, tenant: str, statements: list[Statement]) -> int:
        statements.sort(key=lambda s: (s.valid_from, s.ts, s.event_id))
        subjects = sorted({s.claim.subject for s in statements})
        known: dict[str, set[str]] = {}
        for subject, attribute in self.store.slots_of(conn, tenant, subjects):
            known.setdefault(subject, set()).add(attribute)
        if self.slots is not None:
            # One embedding call for the batch: the unknown attribute phrases and the slots of
            # their subjects.
            open_claims = [s.claim for s in statements if self.slots.candidate(s.claim.attribute)]
            if open_claims:
                self.slots.prefetch([c.attribute for c in open_claims] + sorted(
                    {a for c in open_claims for a in known.get(c.subject, ())}))
        opened = sorted({s.claim.subject for s in statements if s.claim.open_predicate or s.claim.previous})
        values = current_values(self.store.slot_facts(conn, tenant, opened, with_events=False)) if opened else {}
        kept: list[Statement] = []
        for st in statements:
            attributes = known.setdefault(st.claim.subject, set())
            if st.claim.open_predicate:
                # A verb phrase nothing names: a fact only about a slot the subject already has.
                slot = open_slot(st.claim, attributes, values, self.slots)
                if slot is None:
                    continue
                value = unit_value(st.claim, values.get((st.claim.subject, slot)))
                st.claim = replace(st.claim, attribute=slot, value=value, open_predicate=False, previous=None)
            elif st.claim.previous is not None:
                # "swapped Kate for Helix": the slot whose value was Kate, if the subject has one.
                slot = previous_slot(st.claim, attributes, values) or st.claim.attribute
                st.claim = replace(st.claim, attribute=slot, previous=None)
            kept.append(st)
            # One slot, however the attribute was worded ("executive sponsor" / "sponsor",
            # "favourite lang" / "preferred language").
            alias = same_slot(st.claim.attribute, attributes)
            if alias is None and self.slots is not None:
                alias = self.slots.join(st.claim.attribute, attributes)
            if alias is not None:
                st.claim = replace(st.claim, attribute=alias)
            attributes.add(st.claim.attribute)
            values[(st.claim.subject, st.claim.attribute)] = st.claim.value
        statements = kept
        if not statements:
            return 0
        attributes = sorted({s.claim.attribute for s in statements})
        self.store.lock_tenant(conn, tenant)
        known = self.store.subjects(conn, tenant)
        # Facts closed before the batch's earliest statement cannot be touched by it.
        book = self._book(conn, tenant, subjects, attributes, statements[0].valid_from)
        book.seen = {
            (event_id, fact_id)
            for event_id, fact_ids in self.store.facts_of_events(conn, sorted({s.event_id for s in statements})).items()
            for fact_id in fact_ids
        }
        sources = {s.source for s in statements if s.source}
        newcomers = self._newcomers(conn, tenant, sources) if self._newcomers is not None and sources else set()
        for st in statements:
            st.newcomer = st.source in newcomers
            book.apply(st)
        # E06: a subject seen for the first time that reads like a known one is kept apart (slots
        # match subjects exactly) and reported once, when the second of the pair appears.
        aliases = new_pairs(set(subjects) - set(known), known)
        if aliases:
            log.warning("E06 ALIAS_AMBIGUITY in %s: %s", tenant, "; ".join(" / ".join(p.subjects) for p in aliases))
            book.system_events.extend((tenant, "ALIAS_AMBIGUITY", p.payload()) for p in aliases)
        self._save(conn, book)
        return len(statements)

    def _book(
        self, conn: Any, tenant: str, subjects: Sequence[str], attributes: Sequence[str] | None = None, open_after: float | None = None
    ) -> SlotBook:
        # The write path needs no statement links: what a batch already stated is in ``seen``.
        rows = self.store.slot_facts(conn, tenant, subjects, attributes, with_events=attributes is None, open_after=open_after)
        facts = {f["id"]: f for f in rows}
        for fact in facts.values():
            fact["status"] = FactStatus(fact["status"])
            fact["sources"] = list(fact["sources"] or [])
        conflicts = {c["id"]: c for c in self.store.slot_conflicts(conn, tenant, subjects, pending_only=True)}
        return SlotBook(self.policy, facts, conflicts)

    def _save(self, conn: Any, book: SlotBook) -> None:
        facts = [{**book.facts[i], "status": str(FactStatus(book.facts[i]["status"]).value)} for i in sorted(book.changed_facts)]
        conflicts = [book.conflicts[i] for i in sorted(book.changed_conflicts)]
        self.store.save(conn, facts, book.links, conflicts)
        self.store.log(conn, book.system_events)

    def shift_since(self, conn: Any, tenant: str) -> float | None:
        """When the tenant's latest distribution shift (E07) began, if it had one."""
        if tenant not in self._shifts:
            self._shifts[tenant] = self.store.last_shift(conn, tenant)
        return self._shifts[tenant]

    # ---- reading -----------------------------------------------------------------------------------

    def facts(self, subject: str | None = None, attribute: str | None = None, at: Any = None, *, tenant: str = "default") -> list[Fact]:
        """Facts valid at ``at`` (default: the open ones, i.e. what is believed now)."""
        t = moment(at, "at")
        key = canonical_subject(subject) if subject is not None else None
        attr = normalise_attribute(attribute) if attribute is not None else None
        with self.store.reader() as conn:
            rows = self.store.facts(conn, tenant, key, attr)
        if t is None:
            chosen = [r for r in rows if r["valid_until"] is None and r["status"] in ("current", "contested")]
        else:
            chosen = [r for r in rows if valid_at(r, t)]
        return [fact_record(r) for r in chosen]

    def history(self, subject: str, attribute: str, *, tenant: str = "default") -> list[Fact]:
        """Every value the slot ever had, oldest valid time first (superseded, history, rejected too)."""
        key = canonical_subject(subject)
        with self.store.reader() as conn:
            rows = self.store.facts(conn, tenant, key, normalise_attribute(attribute))
        return [fact_record(r) for r in rows]

    def query_belief(self, entity: str, at_time: Any = None, *, tenant: str = "default") -> BeliefState:
        """What is believed about ``entity`` at ``at_time`` (default now), slot by slot, with staleness."""
        t = moment(at_time, "at_time")
        t = t if t is not None else datetime.now(UTC).timestamp()
        key = canonical_subject(entity) or entity.casefold()
        with self.store.reader() as conn:
            rows = self.store.facts(conn, tenant, key)
            conflicts = self.store.slot_conflicts(conn, tenant, [key])
            aliases = look_alikes(key, self.store.subjects(conn, tenant))
        slots: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            if row["recorded_at"] <= t or row["valid_from"] <= t:
                slots.setdefault(row["attribute"], []).append(row)
        beliefs = {}
        for attribute, facts in slots.items():
            belief = slot_belief(self.policy, facts, t, conflicts)
            if belief is not None and belief.fact_id is not None:
                beliefs[attribute] = belief
        observed = [b.last_observed for b in beliefs.values() if b.last_observed is not None]
        return BeliefState(
            entity=key,
            tenant=tenant,
            at=datetime.fromtimestamp(t, UTC),
            slots=beliefs,
            last_observation=max(observed) if observed else None,
            confidence=min((b.confidence for b in beliefs.values()), default=0.0),
            ambiguous_with=tuple(aliases),
        )

    def conflicts(self, *, tenant: str = "default", include_resolved: bool = False) -> list[ConflictRecord]:
        with self.store.reader() as conn:
            return [conflict_record(c) for c in self.store.conflicts(conn, tenant, include_resolved)]

    def resolve_conflict(self, conflict_id: str, resolution: str) -> ConflictRecord:
        """Settle a conflict by hand: ``"old"`` / ``"new"`` (or ``keep_old`` / ``keep_new``), a
        fact id, or one of the two values; text after a colon is kept as the note."""
        if not isinstance(resolution, str) or not resolution.strip():
            raise InvalidQueryError("resolution", "say which side wins: 'old', 'new', a fact id or a value")
        choice, _, note = resolution.partition(":")
        choice = choice.strip()
        with self.store.writer() as conn:
            conflict = self.store.conflict(conn, conflict_id)
            if conflict is None:
                raise NotFoundError(f"no conflict with id {conflict_id!r}")
            self.store.lock_tenant(conn, conflict["tenant"])
            book = self._book(conn, conflict["tenant"], [conflict["subject"]])
            conflict = book.conflicts.setdefault(conflict_id, conflict)
            winner = _winner(conflict, choice, book)
            book.resolve(conflict, winner, ConflictResolution.HUMAN_RESOLVED, note.strip() or choice)
            book.system_events.append(
                (conflict["tenant"], "TEMPORAL_CONTRADICTION", {"code": "E03", "action": "human_resolved", "conflict_id": conflict_id, "winner": winner})
            )
            self._save(conn, book)
            return conflict_record(book.conflicts[conflict_id])


def _winner(conflict: dict[str, Any], choice: str, book: SlotBook) -> str:
    folded = choice.casefold()
    if folded in ("old", "keep_old", "keep old", "first"):
        return conflict["old_fact_id"]
    if folded in ("new", "keep_new", "keep new", "latest"):
        return conflict["new_fact_id"]
    for side in ("old", "new"):
        if choice == conflict[f"{side}_fact_id"] or folded == str(conflict[f"{side}_value"]).casefold():
            return conflict[f"{side}_fact_id"]
    raise InvalidQueryError(
        "resolution", f"{choice!r} is neither side of the conflict: use 'old', 'new', a fact id or "
        f"{conflict['old_value']!r} / {conflict['new_value']!r}"
    )


def moment(value: Any, field: str) -> float | None:
    """Unix seconds of a datetime, unix number or ISO string; a clear error naming ``field``."""
    if value is None:
        return None
    t = timestamp_of(value)
    if t is None:
        raise InvalidQueryError(field, f"expected a datetime, unix seconds or an ISO date, got {value!r}")
    return t


def _dt(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(float(value), UTC) if value is not None else None


def fact_record(row: dict[str, Any]) -> Fact:
    return Fact(
        id=row["id"], tenant=row["tenant"], agent_id=row["agent_id"], user_id=row["user_id"], subject=row["subject"],
        subject_name=row["subject_name"], attribute=row["attribute"], attribute_class=row["attribute_class"],
        value=row["value"], value_key=row["value_key"], valid_from=_dt(row["valid_from"]), valid_until=_dt(row["valid_until"]),
        recorded_at=_dt(row["recorded_at"]), last_observed=_dt(row["last_observed"]),
        confidence=min(1.0, float(row["confidence"])), trust=min(1.0, float(row["trust"])), weight=min(1.0, float(row["weight"])),
        source=row["source"], namespace=row["namespace"], event_ids=tuple(row.get("event_ids") or (row["event_id"],)),
        observations=int(row["observations"]), status=FactStatus(row["status"]), superseded_by=row["superseded_by"],
        method=row["method"],
    )


def conflict_record(row: dict[str, Any]) -> ConflictRecord:
    return ConflictRecord(
        id=row["id"], tenant=row["tenant"], type=row["type"], subject=row["subject"], attribute=row["attribute"],
        old_fact_id=row["old_fact_id"], new_fact_id=row["new_fact_id"], old_value=row["old_value"], new_value=row["new_value"],
        old_belief=float(row["old_belief"]), new_belief=float(row["new_belief"]), resolution=ConflictResolution(row["resolution"]),
        winner_fact_id=row["winner_fact_id"], note=row["note"], created_at=_dt(row["created_at"]), resolved_at=_dt(row["resolved_at"]),
    )
