"""Walking stored provenance: what caused a delta, and what it caused."""

from __future__ import annotations

import time
from typing import Literal

from deltacore.delta import find_cycle
from deltacore.errors import CircularCausalChain, InvalidQueryError, NotFoundError
from deltacore.model import CausalChain
from deltacore.storage import SQLStore
from deltacore.delta.utility import decayed_utility
from deltacore.storage.records import delta_from_row

Direction = Literal["ancestors", "descendants", "both"]


def causal_chain(
    sql: SQLStore, root: str, fallback_root: str, depth: int, direction: str, decay_rate_per_hour: float
) -> CausalChain:
    """Breadth-first walk from ``root`` (or ``fallback_root`` when ``root`` is not a delta id).

    Writes break loops as they are stored, so a loop found here means the data was changed
    behind DeltaCore's back: it raises :class:`CircularCausalChain` (E02) rather than hide it.
    """
    if direction not in ("ancestors", "descendants", "both"):
        raise InvalidQueryError("direction", "use 'ancestors', 'descendants' or 'both'")
    if depth < 1:
        raise InvalidQueryError("depth", "must be at least 1")
    with sql.reader() as conn:
        if not sql.fetch_deltas(conn, [root]):
            requested, root = root, fallback_root
            if not sql.fetch_deltas(conn, [root]):
                raise NotFoundError(f"no delta or event with id {requested!r}")
        parents: dict[str, list[str]] = {}
        edges: dict[tuple[str, str], None] = {}
        seen = {root}
        frontier = [root]
        for _ in range(depth):
            reached: list[str] = []
            if direction in ("ancestors", "both"):
                for child, found in sql.parents_of(conn, frontier).items():
                    for parent in found:
                        edges[(child, parent)] = None
                        parents.setdefault(child, []).append(parent)
                        if parent not in seen:
                            seen.add(parent)
                            reached.append(parent)
            if direction in ("descendants", "both"):
                for parent, found in sql.children_of(conn, frontier).items():
                    for child in found:
                        edges[(child, parent)] = None
                        parents.setdefault(child, []).append(parent)
                        if child not in seen:
                            seen.add(child)
                            reached.append(child)
            frontier = reached
            if not frontier:
                break
        cycle = find_cycle(parents, root)
        if cycle is not None:
            raise CircularCausalChain(f"provenance of {root} loops", cycle=cycle)
        rows = sql.fetch_deltas(conn, list(seen))
    now = time.time()
    deltas = {delta_id: delta_from_row(row, parents, decayed_utility(row.utility, row.utility_ts, now, decay_rate_per_hour)) for delta_id, row in rows.items()}
    return CausalChain(root=root, deltas=deltas, edges=list(edges), depth=depth)
