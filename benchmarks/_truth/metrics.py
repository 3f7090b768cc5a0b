"""The issue's figures, computed from what each arm returned and the world's ground truth.

A hit "states" a value when it is a statement of the asked slot with that value (by the
statement's identity, not by string match: "Anna works in Berlin" does not answer where Anna
lives, "Ana lives in Berlin" does not answer where Anna lives).
"""

from __future__ import annotations

from typing import Any

from _truth.arms import Answers, Hit
from _truth.world import Question, Slot, Statement, World

TARGETS = {"current_at_1": 0.90, "current_margin_points": 15.0, "as_of_at_1": 0.80, "collateral_rate": 0.02,
           "paraphrase_as_contradiction": 0.02, "stale_precision": 0.8, "stale_recall": 0.8}


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def _first_of_slot(hits: list[Hit], slot: str, by_id: dict[str, Statement]) -> Hit | None:
    return next((h for h in hits if h.id in by_id and by_id[h.id].slot == slot), None)


def _states(hit: Hit | None, q: Question, by_id: dict[str, Statement]) -> bool:
    s = by_id.get(hit.id) if hit else None
    return s is not None and s.slot == q.slot and s.value == q.expected


def arm_metrics(world: World, answers: Answers) -> dict[str, Any]:
    by_id = {s.id: s for s in world.statements}
    slots = world.slots
    tally: dict[str, list[int]] = {}

    def count(name: str, ok: bool) -> None:
        tally.setdefault(name, [0, 0])
        tally[name][0] += ok
        tally[name][1] += 1

    collateral = {"pushed_out": 0, "superseded": 0, "conflict": 0, "stale": 0}
    stale_tp = stale_fp = stale_fn = 0
    flags_seen: set[str] = set()
    for q in world.questions:
        hits = answers.hits[q.id]
        for h in hits:
            flags_seen |= h.flags
        slot = slots[q.slot]
        top = hits[0] if hits else None
        if q.kind == "current":
            group = "changed" if slot.changed else "unchanged"
            count(f"current_at_1_{group}", _states(top, q, by_id))
            count("current_at_1_all", _states(top, q, by_id))
            count(f"current_at_5_{group}", any(_states(h, q, by_id) for h in hits))
            if slot.changed:
                old = by_id.get(top.id) if top else None
                count("current_rank_1_is_old_value", old is not None and old.slot == q.slot and old.value != q.expected)
            else:
                damaged = _collateral(hits, slot, by_id, collateral)
                count("collateral_all_unchanged", damaged)
                if any(slots[k].changed for k in slot.lookalikes):
                    count("collateral_lookalike", damaged)
            if slot.stale is not None:
                own = _first_of_slot(hits, q.slot, by_id)
                flagged = own is not None and "stale" in own.flags
                stale_tp += flagged and slot.stale
                stale_fp += flagged and not slot.stale
                stale_fn += (not flagged) and slot.stale
        else:
            count(f"{q.kind}_at_1", _states(top, q, by_id))
            count(f"{q.kind}_at_5", any(_states(h, q, by_id) for h in hits))
    out: dict[str, Any] = {name: _rate(*pair) for name, pair in sorted(tally.items())}
    out["questions"] = {name: pair[1] for name, pair in sorted(tally.items())}
    out["collateral_reasons"] = collateral
    stale_ever = "stale" in flags_seen
    out["stale_precision"] = _rate(stale_tp, stale_tp + stale_fp) if stale_ever else None
    out["stale_recall"] = _rate(stale_tp, stale_tp + stale_fn) if stale_ever else None
    out["stale_counts"] = {"true_positive": stale_tp, "false_positive": stale_fp, "false_negative": stale_fn,
                           "stale_slots": sum(bool(s.stale) for s in slots.values()),
                           "fresh_observation_slots": sum(s.stale is False for s in slots.values())}
    out["flags_seen"] = sorted(flags_seen)
    out.update(_paraphrase_conflicts(world, answers, by_id))
    out["index_seconds"] = round(answers.index_seconds, 2)
    out["query_seconds"] = round(answers.query_seconds, 2)
    out["query_ms_mean"] = round(1000 * answers.query_seconds / max(len(world.questions), 1), 2)
    return out


def _collateral(hits: list[Hit], slot: Slot, by_id: dict[str, Statement], reasons: dict[str, int]) -> bool:
    """An unchanged slot is damaged when none of its statements is in the top 5, or the first one
    carries a superseded or conflict flag (or stale, for a slot that is not a stale observation)."""
    own = _first_of_slot(hits, slot.key, by_id)
    if own is None:
        reasons["pushed_out"] += 1
        return True
    for flag in ("superseded", "conflict"):
        if flag in own.flags:
            reasons[flag] += 1
            return True
    if "stale" in own.flags and not slot.stale:
        reasons["stale"] += 1
        return True
    return False


def _paraphrase_conflicts(world: World, answers: Answers, by_id: dict[str, Statement]) -> dict[str, Any]:
    """Conflicts the engine opened between statements of one slot and one value, per paraphrase pair
    in the world (n/a without a ``conflicts()`` API)."""
    records = answers.extras.get("conflict_records")
    if records is None:
        return {"paraphrase_as_contradiction": None, "conflicts_opened": None}
    same_value = unchanged = unmapped = 0
    for strings in records:
        statements = [by_id[s] for s in sorted(set(strings)) if s in by_id]
        if not statements:
            unmapped += 1
            continue
        slot_values = {(s.slot, s.value) for s in statements}
        if len(slot_values) == 1:
            same_value += 1
        if any(s.slot and not world.slots[s.slot].changed for s in statements):
            unchanged += 1
    return {
        "paraphrase_as_contradiction": _rate(same_value, len(world.paraphrase_pairs)),
        "conflicts_opened": len(records),
        "conflicts_between_one_value": same_value,
        "conflicts_touching_unchanged_slots": unchanged,
        "conflicts_not_mapped_to_statements": unmapped,
        "paraphrase_pairs": len(world.paraphrase_pairs),
    }


def verdicts(figures: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """DeltaCore against the issue's targets, on one template set."""
    dc = figures["DeltaCore"]
    best_peer = max((m["current_at_1_changed"] or 0) for name, m in figures.items() if name != "DeltaCore")
    current = dc["current_at_1_changed"] or 0
    rows = {
        "current_at_1": (current, current >= TARGETS["current_at_1"] and (current - best_peer) * 100 >= TARGETS["current_margin_points"]),
        "as_of_at_1": (dc.get("as_of_at_1"), (dc.get("as_of_at_1") or 0) >= TARGETS["as_of_at_1"]),
        "collateral_rate": (dc.get("collateral_lookalike"), dc.get("collateral_lookalike") is not None
                            and dc["collateral_lookalike"] <= TARGETS["collateral_rate"]),
        "paraphrase_as_contradiction": (dc["paraphrase_as_contradiction"], dc["paraphrase_as_contradiction"] is not None
                                        and dc["paraphrase_as_contradiction"] <= TARGETS["paraphrase_as_contradiction"]),
        "stale_precision": (dc["stale_precision"], (dc["stale_precision"] or 0) >= TARGETS["stale_precision"]),
        "stale_recall": (dc["stale_recall"], (dc["stale_recall"] or 0) >= TARGETS["stale_recall"]),
    }
    out = {name: {"value": value, "target": TARGETS[name], "met": bool(met)} for name, (value, met) in rows.items()}
    out["current_at_1"]["best_peer"] = best_peer
    return out
