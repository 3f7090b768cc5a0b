"""Exception propagation through provenance: which deltas an exception at one delta marks.

Three rules, one per exception (poison, contradiction, drift), as pure functions over the provenance graph (``parent -> [(child,
relation)]``, the ``dc_delta_links`` rows; ``relation`` is ``parent`` for a declared cause,
``sequence`` for "came next in the episode"):

- **Poison (E01)** taints the whole downstream chain: the origin and everything reached from it
  along *any* edge — an adversary's input may have steered every later step. Marked deltas are
  flagged ``tainted`` and their utility set to 0; queries with ``exclude_tainted`` (the default)
  leave them out.
- **Contradiction (E03)** marks only what was *derived* from the delta: the origin and what is
  reached along declared-cause edges (not mere episode order), flagged ``contradicted``.
- **Drift (E04)** marks only deltas of the *same tool* as the origin, flagged ``schema_drift``;
  other tools' steps in the same chain are untouched.

Walks are breadth-first with a visited set, so a provenance loop cannot make them run forever.

>>> graph = {"a": [("b", "parent"), ("c", "sequence")], "b": [("d", "parent")]}
>>> marked("poison", "a", graph)
['a', 'b', 'c', 'd']
>>> marked("contradiction", "a", graph)
['a', 'b', 'd']
>>> marked("drift", "a", graph, tool_of={"a": "deploy", "b": "deploy", "c": "deploy", "d": "notify"})
['a', 'b', 'c']
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from sqlalchemy import Connection

from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.model import PropagationReport
from deltacore.delta.repositories import PropagationStore

POISON, CONTRADICTION, DRIFT = "poison", "contradiction", "drift"
EXCEPTIONS = (POISON, CONTRADICTION, DRIFT)
FLAG = {POISON: "tainted", CONTRADICTION: "contradicted", DRIFT: "schema_drift"}
"""The flag each exception sets on the deltas it marks."""
ZEROES_UTILITY = {POISON}
"""Exceptions whose marked deltas lose all utility (a tainted memory must never be acted on)."""
DERIVATION = "parent"
"""The link relation that means "derived from" (``sequence`` only means "came next")."""


def marked(
    exception: str,
    origin: str,
    children: Mapping[str, Sequence[tuple[str, str]]],
    *,
    tool_of: Mapping[str, str | None] | None = None,
) -> list[str]:
    """Deltas the exception at ``origin`` marks, the origin first, breadth-first."""
    if exception not in EXCEPTIONS:
        raise ValueError(f"exception must be one of {', '.join(EXCEPTIONS)}, got {exception!r}")
    derived_only = exception == CONTRADICTION
    order = [origin]
    seen = {origin}
    frontier = [origin]
    while frontier:
        following = []
        for node in frontier:
            for child, relation in children.get(node, ()):
                if child in seen or (derived_only and relation != DERIVATION):
                    continue
                seen.add(child)
                order.append(child)
                following.append(child)
        frontier = following
    if exception == DRIFT:
        tools = tool_of or {}
        tool = tools.get(origin)
        order = [node for node in order if tool is not None and tools.get(node) == tool]
    return order


def same_tool(tool: str, candidates: Sequence[str], tool_of: Mapping[str, str | None]) -> list[str]:
    """The drift rule on a set of deltas: only those of ``tool``."""
    return [node for node in candidates if tool_of.get(node) == tool]


class Propagator:
    """Applies the rules in one transaction: flags, utility (poison), a history row per
    demotion, a ``<EXCEPTION>_PROPAGATED`` system event, and a bumped tenant version so that no
    cached result built before it is served again."""

    def __init__(self, store: PropagationStore) -> None:
        self._store = store

    def propagate(self, delta_id: str, exception: str, reason: str | None = None) -> PropagationReport:
        if exception not in EXCEPTIONS:
            raise InvalidQueryError("exception", f"must be one of {', '.join(EXCEPTIONS)}, got {exception!r}")
        with self._store.writer() as conn:
            report = self.apply(conn, delta_id, exception, reason)
        if report is None:
            raise NotFoundError(f"no delta or event with id {delta_id!r}")
        return report

    def apply(
        self, conn: Connection, delta_id: str, exception: str, reason: str | None = None, now: float | None = None
    ) -> PropagationReport | None:
        """The rule for ``exception`` at ``delta_id`` inside the caller's transaction (the E01
        playbook taints in the same transaction that quarantines). None if there is no such delta."""
        now = time.time() if now is None else now
        origin = self._store.delta_states(conn, [delta_id]).get(delta_id)
        if origin is None:
            return None
        children: dict[str, list[tuple[str, str]]] = {}
        frontier = [delta_id]
        seen = {delta_id}
        while frontier:
            found = self._store.children_with_relation(conn, frontier)
            children.update(found)
            frontier = [c for pairs in found.values() for c, _ in pairs if c not in seen]
            seen.update(frontier)
        states = self._store.delta_states(conn, list(seen))
        tool_of = {node: state.tool_name for node, state in states.items()}
        order = [node for node in marked(exception, delta_id, children, tool_of=tool_of) if node in states]
        flag = FLAG[exception]
        for node in order:
            state = states[node]
            flags = list(state.conflict_flags or ())
            if flag not in flags:
                flags.append(flag)
            if exception in ZEROES_UTILITY:
                self._store.set_utility(
                    conn, node, state.tenant, predicted=state.utility, new=0.0, source="propagation", now=now, flags=flags
                )
            else:
                self._store.set_delta_flags(conn, node, flags)
        self._store.log_system_event(
            conn,
            origin.tenant,
            f"{exception.upper()}_PROPAGATED",
            {"origin": delta_id, "flag": flag, "marked": order, "reason": reason},
        )
        self._store.bump_version(conn, origin.tenant)
        return PropagationReport(tenant=origin.tenant, origin=delta_id, exception=exception, flag=flag, marked=order)
