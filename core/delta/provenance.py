"""Provenance graphs: walking causal ancestry, detecting loops (E02) and breaking them.

The graph is a mapping ``child -> [parents]``. A loop is not an error of the data (feedback
loops are real), but it must never make a traversal run forever or credit grow without bound:
traversals detect it, and on write the loop is broken at its lowest-utility edge (the
link the store trusts least), and logged as a CAUSAL_LOOP system event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from deltacore.errors import CircularCausalChain


def find_cycle(parents: Mapping[str, Sequence[str]], start: str) -> list[str] | None:
    """A loop reachable from ``start`` (node ids in order, first == where it closes), or None."""
    on_path: dict[str, int] = {}
    path: list[str] = []
    done: set[str] = set()
    # Iterative DFS: provenance chains can be far deeper than Python's recursion limit.
    stack: list[tuple[str, int]] = [(start, 0)]
    while stack:
        node, child_index = stack.pop()
        if child_index == 0:
            if node in on_path:
                return path[on_path[node] :] + [node]
            if node in done:
                continue
            on_path[node] = len(path)
            path.append(node)
        node_parents = parents.get(node, ())
        if child_index < len(node_parents):
            stack.append((node, child_index + 1))
            parent = node_parents[child_index]
            if parent in on_path:
                return path[on_path[parent] :] + [parent]
            if parent not in done:
                stack.append((parent, 0))
        else:
            path.pop()
            del on_path[node]
            done.add(node)
    return None


def walk_provenance(parents: Mapping[str, Sequence[str]], start: str, depth: int | None = None) -> list[str]:
    """Ancestors of ``start`` breadth-first (nearest first), raising E02 on a loop.

    >>> walk_provenance({"c": ["b"], "b": ["a"]}, "c")
    ['b', 'a']
    """
    cycle = find_cycle(parents, start)
    if cycle is not None:
        raise CircularCausalChain(f"provenance of {start} loops: {' -> '.join(cycle)}", cycle=cycle)
    seen = {start}
    order: list[str] = []
    frontier = [start]
    level = 0
    while frontier and (depth is None or level < depth):
        level += 1
        next_frontier = []
        for node in frontier:
            for parent in parents.get(node, ()):
                if parent not in seen:
                    seen.add(parent)
                    order.append(parent)
                    next_frontier.append(parent)
        frontier = next_frontier
    return order


def break_cycles(
    parents: dict[str, list[str]], nodes: Sequence[str], utility: Callable[[str], float]
) -> list[list[str]]:
    """Remove edges until no loop is reachable from ``nodes``; returns the loops found.

    Each loop loses its weakest edge: the one whose child has the lowest utility (the least
    useful explanation), ties broken by the latest edge on the loop so older structure stays.
    ``parents`` is modified in place.
    """
    loops: list[list[str]] = []
    for node in nodes:
        while (cycle := find_cycle(parents, node)) is not None:
            loops.append(cycle)
            edges = list(zip(cycle[:-1], cycle[1:]))  # (child, parent) along the loop
            weakest = min(range(len(edges)), key=lambda i: (utility(edges[i][0]), -i))
            child, parent = edges[weakest]
            parents[child] = [p for p in parents[child] if p != parent]
    return loops
