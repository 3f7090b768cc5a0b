"""The gate: a snapshot before a cycle, the shadow evaluation after it.

The probe set is the recent queries of the retrieval log (with the memories handed out for
them) plus the probes a user registered (with the memories a good answer holds, or none: then
the top ten answered before the cycle are the relevant set). Precision@5 of a probe is the share
of its top five that is relevant, where a merged memory counts once for each relevant original
it is faithful to (cosine at the fidelity floor or above; capped at 1): removing duplicates is
no loss, and a merge that blurs its originals earns nothing. A cycle whose mean precision falls
by more than the tolerance is rolled back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

K = 5


@dataclass(frozen=True)
class Probe:
    text: str
    expected: tuple[str, ...] = ()
    """Reference memories; empty = the top five before the cycle."""


def probe_set(logged: Sequence[tuple[str, list[str]]], registered: Sequence[Mapping[str, Any]]) -> list[Probe]:
    found: dict[str, Probe] = {}
    for row in registered:
        found.setdefault(row["text"], Probe(row["text"], tuple(row.get("expected") or ())))
    for text, ids in logged:
        found.setdefault(text, Probe(text, tuple(ids[:K])))
    return list(found.values())


def precision_at_k(results: Sequence[Sequence[str]], references: Sequence[Sequence[str]],
                   covers: Mapping[str, set[str]] | None = None) -> float | None:
    """Mean over probes of min(1, Σ over the top five of the relevant memories each stands for / 5)."""
    covers = covers or {}
    values: list[float] = []
    for top, reference in zip(results, references):
        wanted = set(reference)
        if not wanted:
            continue
        credit = 0
        for item in list(top)[:K]:
            stands_for = covers.get(item, set()) | {item}
            credit += len(stands_for & wanted)
        values.append(min(1.0, credit / K))
    return sum(values) / len(values) if values else None


def regressed(before: float | None, after: float | None, tolerance: float) -> bool:
    if before is None or after is None or before <= 0:
        return False
    return after < before * (1.0 - tolerance) - 1e-9


REFERENCE_DEPTH = 10
"""A probe without expected memories takes the top ten before the cycle as its relevant set."""


def evaluate(probes: Sequence[Probe], search: Callable[[str], list[str]]) -> list[list[str]]:
    return [search(p.text)[:REFERENCE_DEPTH] for p in probes]


def snapshot(rows: Sequence[Mapping[str, Any]], utilities: Mapping[str, float | None]) -> dict[str, str]:
    """Id -> a hash of what a user could notice of a live memory (text, scope, visibility,
    utility): two snapshots are equal when the store answers the same."""
    out: dict[str, str] = {}
    for row in rows:
        key = "\0".join(str(row.get(name)) for name in ("text", "kind", "agent_id", "user_id", "session_id",
                                                         "namespace", "replaced_by", "trust"))
        key += f"\0{utilities.get(row['id'])}"
        out[row["id"]] = hashlib.sha256(key.encode()).hexdigest()[:16]
    return out
