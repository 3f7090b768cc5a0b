"""After fusion: what the belief layer knows reorders the memories of each fact slot.

For a question about a slot, the memory stating its current value ranks above one stating a
superseded value (they swap places; no other memory moves, so a slot that did not change is
never pushed down). When only the superseded memory was found, the current one is brought in
just above it. ``as_of`` answers "as it stood then"; ``exclude_stale`` drops memories whose
belief went stale. Packets then carry the flags, the belief confidence, the pointer to the
current fact and the competing values of an open conflict; a memory about a subject with a
look-alike name (E06) is flagged AMBIGUOUS.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import cache
from typing import Any

from deltacore.belief.aliasing import look_alikes
from deltacore.belief.layer import BeliefLayer
from deltacore.belief.open_slots import current_values
from deltacore.belief.questions import question_slot, slot_holding, subject_keys, value_named
from deltacore.belief.restated import Said, newer_restatement, newest_first, restated_forms, says_value
from deltacore.belief.staleness import observation_interval, retention, valid_at
from deltacore.belief.unread import Candidate, names_subject, newer_unread
from deltacore.belief.view import MemoryBelief, memory_beliefs
from deltacore.model import MemoryFlag, MemoryPacket, QueryCriteria

Fused = list[tuple[str, float, dict[str, int]]]
_WORDS = re.compile(r"\w+")
# A question about what *was* wants the old values: the slot keeps its fused order.
_ASKS_HISTORY = re.compile(
    r"\b(?:before|previous(?:ly)?|used to|former(?:ly)?|originally|earlier|prior|past|history|until|old|first)\b", re.I
)


class BeliefRanking:
    def __init__(self, beliefs: BeliefLayer) -> None:
        self._beliefs = beliefs

    def rerank(self, conn: Any, fused: Fused, criteria: QueryCriteria) -> tuple[Fused, dict[str, MemoryBelief]]:
        t = criteria.as_of.timestamp() if criteria.as_of is not None else time.time()
        store, policy = self._beliefs.store, self._beliefs.policy
        asks_history = bool(criteria.text and _ASKS_HISTORY.search(criteria.text))
        # The slots of the subjects the question names: read once, for the checks below.
        named = store.slots_of(conn, criteria.tenant, subject_keys(criteria.text)) if criteria.text else []
        asked = self._asked_slot(conn, criteria, asks_history, named)
        # A memory stating several facts ("asset_status" and "register" in one record) stands,
        # for this question, by the fact of the slot it asks about: that one may be stale.
        view = memory_beliefs(store, policy, conn, [item_id for item_id, _, _ in fused], t, prefer=asked)
        if criteria.as_of is not None:
            times = store.event_times(conn, [i for i, _, _ in fused])
            fused = [f for f in fused if times.get(f[0], 0.0) <= t or (f[0] in view and view[f[0]].state != "future")]
        if criteria.exclude_stale:
            fused = [f for f in fused if not (f[0] in view and view[f[0]].stale)]
        fused = self._after_shift(conn, fused, view, criteria, t)
        if view and not asks_history:
            fused = self._by_slot(conn, fused, view, t)
        # The subjects of the facts read from the window's memories: read once, for both orders below.
        window_ids = [item_id for item_id, _, _ in fused[: self._beliefs.policy.other_subjects_window]]
        subjects_read = cache(lambda: self._subjects_read(conn, window_ids))
        fused = self._asked_subjects_first(conn, fused, named, criteria.tenant, subjects_read)
        if asked is not None:
            fused = self._naming_the_subject_first(conn, fused, asked[0], subjects_read)
        if criteria.text and not asks_history:
            fused = self._restated(conn, fused, view, criteria, t, named)
        answer, newer = self._slot_answer(conn, criteria, t, asks_history, fused, asked)
        if newer is not None and criteria.exclude_stale and newer.stale:
            fused, newer = [f for f in fused if f[0] != newer.event_id], None
        if answer is not None:
            belief = memory_beliefs(store, policy, conn, [answer], t, prefer=asked)
            if not (criteria.exclude_stale and answer in belief and belief[answer].stale):
                # The question names one slot the store tracks: the memory stating its value at
                # the asked time leads (below a newer memory that may say it changed, which the
                # rules could not read); everything else keeps its order below them.
                leads = [newer.event_id, answer] if newer else [answer]
                top = fused[0][1] if fused else 1.0
                fused = [(e, top, {"belief": 1}) for e in leads] + [f for f in fused if f[0] not in leads]
                view.update(belief)
                if newer is not None:
                    view[newer.event_id] = newer
                if newer is not None and answer in view:
                    note = f"newer memory {newer.event_id} may say this changed (it could not be read as a fact)"
                    memory = view[answer]
                    memory.hint = f"{memory.hint}; {note}" if memory.hint else note
        since = self._beliefs.shift_since(conn, criteria.tenant)
        if since is not None and since <= t:
            for memory in view.values():
                memory.degraded = memory.last_observed is not None and memory.last_observed < since
        return fused, view

    def _after_shift(self, conn: Any, fused: Fused, view: dict[str, MemoryBelief], criteria: QueryCriteria, t: float) -> Fused:
        """E07: after the tenant's context distribution shifted, memories written since then
        score ``shift_boost`` higher (for ``shift_promotion_hours``), and a belief last observed
        before the shift is DEGRADED."""
        since = self._beliefs.shift_since(conn, criteria.tenant)
        if since is None or since > t:
            return fused
        policy = self._beliefs.policy
        if t - since > policy.shift_promotion_hours * 3600.0 or not fused or policy.shift_boost == 0:
            return fused
        times = self._beliefs.store.event_times(conn, [item_id for item_id, _, _ in fused])
        boosted = [
            (item_id, score * (1.0 + policy.shift_boost) if times.get(item_id, 0.0) >= since else score, parts)
            for item_id, score, parts in fused
        ]
        order = sorted(range(len(boosted)), key=lambda i: (-boosted[i][1], i))
        return [boosted[i] for i in order]

    def _asked_slot(
        self, conn: Any, criteria: QueryCriteria, asks_history: bool, named: list[tuple[str, str]]
    ) -> tuple[str, str] | None:
        """The one stored (subject, attribute) the question asks about, if it names one."""
        text = criteria.text
        if not text or not named:
            return None
        store = self._beliefs.store
        slot = question_slot(
            text,
            named,
            self._beliefs.slots,
            values=lambda subject: {a: v for (_, a), v in current_values(store.slot_facts(conn, criteria.tenant, [subject], with_events=False)).items()},
        )
        if slot is None and asks_history and named:
            # "Which team was Noor on before Atlas?": the value it names says which slot it is.
            held: dict[tuple[str, str], list[str]] = {}
            for row in store.slot_facts(conn, criteria.tenant, sorted({s for s, _ in named}), with_events=False):
                if row["status"] != "rejected":
                    held.setdefault((row["subject"], row["attribute"]), []).append(row["value_key"])
            slot = slot_holding(text, held)
        return slot

    def _slot_answer(
        self, conn: Any, criteria: QueryCriteria, t: float, asks_history: bool, fused: Fused, slot: tuple[str, str] | None
    ) -> tuple[str | None, MemoryBelief | None]:
        """The event stating the asked slot's value at ``t`` (for "before X": the value before X),
        and a newer found memory that may say the value changed but could not be read."""
        text = criteria.text
        if not text or slot is None:
            return None, None
        store = self._beliefs.store
        rows = [r for r in store.facts(conn, criteria.tenant, *slot) if r["status"] != "rejected" and r.get("event_ids")]
        rows.sort(key=lambda r: (r["valid_from"], r["id"]))
        chosen = None
        if asks_history:
            named = value_named(text, [r["value_key"] for r in rows])
            later = [i for i, r in enumerate(rows) if r["value_key"] == named]
            if named is None or not later or later[0] == 0:
                return None, None
            chosen = rows[later[0] - 1]
        else:
            valid = [r for r in rows if valid_at(r, t)]
            if len(valid) == 1:
                chosen = valid[0]
            elif valid:
                # An open conflict keeps both values valid: the one believed most leads (a
                # low-trust restatement holds a low belief weight), then the more trusted writer.
                chosen = max(valid, key=lambda r: (r.get("weight") or 0.0, r.get("trust") or 0.0, r["valid_from"]))
        if chosen is None:
            return None, None
        newer = None
        if not asks_history:
            newer = self._unread_update(conn, criteria.tenant, chosen, rows, fused, t) or self._restated_update(
                conn, criteria, chosen, rows, fused, t
            )
        return chosen["event_ids"][-1], newer

    def _unread_update(
        self, conn: Any, tenant: str, chosen: dict[str, Any], rows: list[dict[str, Any]], fused: Fused, t: float
    ) -> MemoryBelief | None:
        window = self._beliefs.policy.unread_evidence_window
        ids = [item_id for item_id, _, _ in fused[:window] if item_id not in chosen["event_ids"]]
        if not ids:
            return None
        store = self._beliefs.store
        read = store.facts_of_events(conn, ids)
        events = {row["id"]: row for row in store.stored_events(conn, [i for i in ids if i not in read])}
        candidates = [
            Candidate(i, events[i]["text"] or "", float(events[i]["ts"]), events[i]["actor"], events[i]["namespace"] == "trusted")
            for i in ids
            if i in events and float(events[i]["ts"]) <= t
        ]
        if not candidates:
            return None
        others = [attribute for _, attribute in store.slots_of(conn, tenant, [chosen["subject"]])]
        found = newer_unread(chosen, {r["value_key"] for r in rows}, others, candidates)
        if found is None:
            return None
        return self._newer(tenant, chosen, rows, found.event_id, found.ts, t, f"not read as a fact; newer than the stored value {chosen['value']!r}")

    def _restated_update(
        self, conn: Any, criteria: QueryCriteria, chosen: dict[str, Any], rows: list[dict[str, Any]], fused: Fused, t: float
    ) -> MemoryBelief | None:
        """A found memory, newer than the stored value, that says one of the value's own memories
        in the same words with another value (``deltacore.belief.restated``)."""
        since = max(float(chosen["last_observed"]), float(chosen["valid_from"]))
        ids = [i for i, _, _ in fused[: self._beliefs.policy.restated_window] if i not in chosen["event_ids"]]
        store = self._beliefs.store
        events = store.stored_events(conn, ids + list(chosen["event_ids"][-3:]))
        established = self._beliefs.established(conn, criteria.tenant, events)
        said = {e["id"]: Said(e["id"], e["text"] or "", float(e["ts"]), e["id"] in established, e["actor"]) for e in events}
        # The value's own memories, and found ones that say the value in words the rules skipped
        # ("Sorin is the assigned mentor for Vanda", read as Vanda's mentor, is not one of them).
        elsewhere = self._read_as_other_slots(conn, ids, (chosen["subject"], chosen["attribute"]))
        own = [said[i] for i in chosen["event_ids"][-3:] if i in said]
        own += [
            said[i] for i in ids
            if i in said and i not in elsewhere and said[i].ts <= t and says_value(said[i].text, chosen["value_key"], chosen["attribute"])
        ]
        found = [said[i] for i in ids if i in said and since < said[i].ts <= t]
        if not own or not found:
            return None
        newer = newer_restatement(criteria.text or "", own, found, chosen["value_key"], chosen["subject"])
        if newer is None:
            return None
        return self._newer(criteria.tenant, chosen, rows, newer.event_id, newer.ts, t, f"says the stored value {chosen['value']!r} in the same words with another value, and is newer")

    def _read_as_other_slots(self, conn: Any, ids: list[str], slot: tuple[str, str]) -> set[str]:
        store = self._beliefs.store
        read = store.facts_of_events(conn, ids)
        facts = store.facts_by_id(conn, sorted({f for fact_ids in read.values() for f in fact_ids}))
        return {
            event_id for event_id, fact_ids in read.items()
            if not any((facts[f]["subject"], facts[f]["attribute"]) == slot for f in fact_ids if f in facts)
        }

    def _newer(
        self, tenant: str, chosen: dict[str, Any], rows: list[dict[str, Any]], event_id: str, ts: float, t: float, hint: str
    ) -> MemoryBelief:
        # What it says is not read, but how old it is is known: an observation (a status) seen
        # that long ago is as stale as a read one would be.
        policy = self._beliefs.policy
        klass = chosen.get("attribute_class") or policy.class_of(chosen["attribute"])
        confidence = retention(policy, klass, t - ts, observation_interval(rows, t))
        stale = confidence < policy.stale_below
        memory = MemoryBelief(event_id, (tenant, chosen["subject"], chosen["attribute"]), "unread", round(confidence, 6), "")
        memory.stale, memory.hint, memory.last_observed = stale, f"{hint}; re-observe before acting" if stale else hint, ts
        return memory

    def _subjects_read(self, conn: Any, ids: list[str]) -> dict[str, set[str]]:
        """Memory id -> the subjects of the facts read from it (memories with none left out)."""
        store = self._beliefs.store
        read = store.facts_of_events(conn, ids)
        facts = store.facts_by_id(conn, sorted({f for fact_ids in read.values() for f in fact_ids}))
        return {event: {facts[f]["subject"] for f in fact_ids if f in facts} for event, fact_ids in read.items()}

    def _asked_subjects_first(
        self, conn: Any, fused: Fused, named: list[tuple[str, str]], tenant: str, subjects_read: Callable[[], dict[str, set[str]]]
    ) -> Fused:
        """The window's memories about a look-alike of a subject the question names go below its
        other memories, in their order (E06: a fact about Anna never answers for Ana). A memory
        is about the look-alike when the facts read from it are all the look-alike's, or, when
        none were read, when its words name the look-alike's own part and not the asked one's
        ("Ward 7B" and not "Ward 7A", "Ashling" and not "Aisling"). Other subjects' memories keep
        their places: "Orion is headed by Iris" answers "what does Iris head?"."""
        window = self._beliefs.policy.other_subjects_window
        asked = {subject for subject, _ in named}
        if not window or not asked:
            return fused
        store = self._beliefs.store
        known = store.subjects(conn, tenant)
        alike = {other: subject for subject in asked for other in look_alikes(subject, known) if other not in asked}
        if not alike:
            return fused
        head = fused[:window]
        about = subjects_read()
        elsewhere = {item_id for item_id, subjects in about.items() if subjects and subjects <= set(alike)}
        apart = [
            (set(subject.split()) - set(other.split()), set(other.split()) - set(subject.split())) for other, subject in alike.items()
        ]
        for event in store.stored_events(conn, [item_id for item_id, _, _ in head if item_id not in about]):
            words = set(_WORDS.findall((event["text"] or "").casefold()))
            if any(theirs & words and not ours & words for ours, theirs in apart if ours and theirs):
                elsewhere.add(event["id"])
        if not elsewhere:
            return fused
        return [f for f in head if f[0] not in elsewhere] + [f for f in head if f[0] in elsewhere] + fused[window:]

    def _naming_the_subject_first(self, conn: Any, fused: Fused, subject: str, subjects_read: Callable[[], dict[str, set[str]]]) -> Fused:
        """For a question about one slot the store tracks, the window's memories that say
        nothing of its subject (no fact of it read, its name not said, not the subject speaking)
        go below those that do, in their order: a memory of the day a question names ("… on 18
        January?") that is about something else does not answer it."""
        window = self._beliefs.policy.other_subjects_window
        head = fused[:window]
        if not window or len(head) < 2:
            return fused
        about = {event for event, subjects in subjects_read().items() if subject in subjects}
        events = {e["id"]: e for e in self._beliefs.store.stored_events(conn, [i for i, _, _ in head if i not in about])}
        silent = {
            item_id for item_id, event in events.items()
            if not names_subject(event["text"] or "", event["actor"], subject)
        }
        if not silent or len(silent) == len(head):
            return fused
        return [f for f in head if f[0] not in silent] + [f for f in head if f[0] in silent] + fused[window:]

    def _restated(
        self, conn: Any, fused: Fused, view: dict[str, MemoryBelief], criteria: QueryCriteria, t: float, named: list[tuple[str, str]]
    ) -> Fused:
        """Found memories that state one form with different values take their group's places
        newest first (by established writers); nothing else moves. A group the belief layer has
        read as one slot is already in its order."""
        head = fused[: self._beliefs.policy.restated_window]
        # Only a question about a subject the store holds facts of asks what is true now: "deploy
        # the api service" ranks what worked (utility), not the newest of two deploy lines.
        subjects = {subject for subject, _ in named}
        if len(head) < 2 or not subjects:
            return fused
        rows = {r["id"]: r for r in self._beliefs.store.stored_events(conn, [i for i, _, _ in head])}
        if len(rows) < 2:
            return fused
        established = self._beliefs.established(conn, criteria.tenant, list(rows.values()))
        positions = [p for p, (item_id, _, _) in enumerate(head) if item_id in rows]
        said = [
            Said(head[p][0], rows[head[p][0]]["text"] or "", float(rows[head[p][0]]["ts"]), head[p][0] in established, rows[head[p][0]]["actor"])
            for p in positions
        ]
        result = list(fused)
        for members in restated_forms(criteria.text or "", said, max(subjects, key=len)):
            ids = [said[m].event_id for m in members]
            if all(i in view for i in ids) and len({view[i].slot for i in ids}) == 1:
                continue
            places = sorted(positions[m] for m in members)
            order = newest_first(said, members)
            for place, m in zip(places, order):
                result[place] = (said[m].event_id, fused[place][1], fused[positions[m]][2])
            self._standing_of_form(conn, criteria, view, [view[i] for i in ids if i in view], said[order[0]], t)
        if criteria.exclude_stale:
            result = [f for f in result if not (f[0] in view and view[f[0]].stale)]
        return result

    def _standing_of_form(
        self, conn: Any, criteria: QueryCriteria, view: dict[str, MemoryBelief], read: list[MemoryBelief], lead: Said, t: float
    ) -> None:
        """An unread memory leading a form that a read memory of a slot shares is a statement of
        that slot: it gets the slot's standing from its own time (an old status line is stale)."""
        if lead.event_id in view or not read:
            return
        _, subject, attribute = read[0].slot
        rows = [r for r in self._beliefs.store.facts(conn, criteria.tenant, subject, attribute) if r["status"] != "rejected"]
        if rows:
            hint = f"says a memory of {subject!r} {attribute!r} in the same words with another value, and is newer"
            view[lead.event_id] = self._newer(criteria.tenant, rows[-1], rows, lead.event_id, lead.ts, t, hint)

    def _by_slot(self, conn: Any, fused: Fused, view: dict[str, MemoryBelief], t: float) -> Fused:
        groups: dict[tuple[str, str, str], list[int]] = {}
        for position, (item_id, _, _) in enumerate(fused):
            if item_id in view:
                groups.setdefault(view[item_id].slot, []).append(position)
        present = {item_id for item_id, _, _ in fused}
        result = list(fused)
        inserts: list[tuple[int, str]] = []
        for positions in groups.values():
            members = sorted(positions, key=lambda p: (view[fused[p][0]].rank, -view[fused[p][0]].belief_confidence, p))
            for slot_position, member in zip(positions, members):
                result[slot_position] = (fused[member][0], fused[slot_position][1], fused[member][2])
            best = view[fused[members[0]][0]]
            if best.state in ("superseded", "future") and best.current_event_ids:
                missing = [e for e in reversed(best.current_event_ids) if e not in present]
                if missing:
                    inserts.append((positions[0], missing[0]))
        if inserts:
            extra = memory_beliefs(self._beliefs.store, self._beliefs.policy, conn, [e for _, e in inserts], t)
            view.update(extra)
            for position, event_id in sorted(inserts, reverse=True):
                result.insert(position, (event_id, result[position][1], {"belief": 1}))
        return result

    def annotate(self, packets: list[MemoryPacket], view: dict[str, MemoryBelief]) -> list[MemoryPacket]:
        if not view:
            return packets
        out = []
        for packet in packets:
            memory = view.get(packet.id)
            if memory is None:
                out.append(packet)
                continue
            flags = set(packet.flags)
            if memory.state in ("superseded", "future"):
                flags.add(MemoryFlag.SUPERSEDED)
            if memory.contradicted:
                flags.add(MemoryFlag.CONTRADICTED)
            if memory.stale:
                flags.add(MemoryFlag.STALE)
            if memory.degraded:
                flags.add(MemoryFlag.DEGRADED)
            hint = memory.hint
            if memory.ambiguous_with:
                flags.add(MemoryFlag.AMBIGUOUS)
                others = ", ".join(repr(s) for s in memory.ambiguous_with)
                alias = f"not the same as {others}: check which {memory.slot[1]!r} is meant"
                hint = f"{hint}; {alias}" if hint else alias
            out.append(
                packet.model_copy(
                    update={
                        "flags": frozenset(flags),
                        "belief_confidence": memory.belief_confidence,
                        "superseded_by": memory.superseded_by,
                        "current_value": memory.current_value,
                        "conflict": dict(memory.conflict),
                        "belief_hint": hint,
                    }
                )
            )
        return out
