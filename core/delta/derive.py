"""Deriving the deltas of a batch: causal parents, loop breaking (E02), one extraction per event.

Pure: the ingest pipeline reads what the store knows (parents stored earlier, the tails of open
episodes, the stored parents' deltas) and hands it in as a :class:`StoredContext`; nothing here
touches storage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from deltacore.delta.extract import DeltaDraft, DeltaExtractor, summarize
from deltacore.delta.ids import delta_id_for
from deltacore.delta.provenance import break_cycles
from deltacore.model import Event

TRIGGER_CHARS = 160


@dataclass(frozen=True)
class StoredParent:
    """What a trigger needs of a parent delta stored by an earlier batch."""

    action: str
    result: str


@dataclass(frozen=True)
class StoredContext:
    """What the store already holds that this batch's deltas link to."""

    delta_of_event: Mapping[str, str] = field(default_factory=dict)
    """Event id → delta id, for explicit parents stored earlier."""
    episode_tails: Mapping[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    """(tenant, episode) → (delta id, unix ts) of the episode's latest stored step."""
    parents: Mapping[str, StoredParent] = field(default_factory=dict)
    """Delta id → the stored parent delta (for its trigger text)."""


@dataclass(frozen=True)
class DerivedDelta:
    """The delta of one new event, with its resolved causal parents."""

    event_id: str
    delta_id: str
    draft: DeltaDraft
    parents: tuple[str, ...]
    """Parent delta ids, the trigger's first."""
    relation: str
    """``parent`` (explicit ``parent_ids``) or ``sequence`` (the previous step of its episode)."""


@dataclass(frozen=True)
class Derivation:
    deltas: tuple[DerivedDelta, ...]
    loops: tuple[tuple[str, ...], ...]
    """Causal loops found among the new deltas (E02), each broken at its weakest edge."""
    warnings: tuple[str, ...]


def parents_wanted(events: Sequence[Event]) -> tuple[set[str], dict[str, set[str]]]:
    """What to read from the store first: explicit parents outside the batch, and the
    episodes (per tenant) whose stored tail a step without explicit parents links to."""
    new_ids = {event.id for event in events}
    explicit = {p for event in events for p in event.parent_ids if p not in new_ids}
    episodes: dict[str, set[str]] = {}
    for event in events:
        if event.episode_id:
            episodes.setdefault(event.tenant, set()).add(event.episode_id)
    return explicit, episodes


def derive(
    events: Sequence[tuple[int, Event]], stored: StoredContext, extractor: DeltaExtractor
) -> Derivation:
    """The deltas of ``events`` ((batch index, event), all new), linked to their causes.

    Explicit ``parent_ids`` win; otherwise a step follows the previous step of its episode in
    time order (stored earlier or in this batch). The extractor runs once per event, before
    parents are known: the trigger (what prompted the step) is the parent's description, set
    here, so an extractor sees ``trigger=None`` and owns everything else in the draft.
    """
    warnings: list[str] = []
    new_by_event = {event.id: event for _, event in events}
    drafts = {event.id: extractor.extract(event, None) for _, event in events}
    parents: dict[str, list[str]] = {}
    last_in_episode: dict[tuple[str, str], str] = {}
    for index, event in sorted(events, key=lambda item: (item[1].ts, item[0])):
        own = delta_id_for(event.id)
        found: list[str] = []
        if event.parent_ids:
            for parent in event.parent_ids:
                if parent in new_by_event:
                    found.append(delta_id_for(parent))
                elif parent in stored.delta_of_event:
                    found.append(stored.delta_of_event[parent])
                else:
                    warnings.append(f"event[{index}].parent_ids: '{parent}' is not stored; the causal link was dropped")
        elif event.episode_id:
            key = (event.tenant, event.episode_id)
            tail = stored.episode_tails.get(key)
            if key in last_in_episode:
                found.append(last_in_episode[key])
            elif tail is not None and tail[1] <= event.ts.timestamp():
                found.append(tail[0])
        if event.episode_id:
            last_in_episode[(event.tenant, event.episode_id)] = own
        parents[own] = list(dict.fromkeys(p for p in found if p != own))

    # Loops are searched from the deltas in batch order, which decides the edge each loses.
    graph = {delta_id_for(event.id): parents[delta_id_for(event.id)] for _, event in events}
    utility = {delta_id_for(event_id): draft.utility for event_id, draft in drafts.items()}
    loops = break_cycles(graph, list(graph), lambda node: utility.get(node, 0.5))
    parents = graph
    new_by_delta = {delta_id_for(event_id): event for event_id, event in new_by_event.items()}
    derived = []
    for _, event in events:
        own = delta_id_for(event.id)
        draft = drafts[event.id]
        trigger = _trigger(parents[own], new_by_delta, stored.parents)
        if trigger is not None:
            draft = dataclasses.replace(draft, trigger=trigger)
        derived.append(
            DerivedDelta(
                event_id=event.id,
                delta_id=own,
                draft=draft,
                parents=tuple(parents[own]),
                relation="parent" if event.parent_ids else "sequence",
            )
        )
    return Derivation(tuple(derived), tuple(tuple(loop) for loop in loops), tuple(warnings))


def stored_parent_ids(stored: StoredContext) -> list[str]:
    """Delta ids whose rows a trigger may need (explicit parents and episode tails)."""
    return list(dict.fromkeys([*stored.delta_of_event.values(), *(tail for tail, _ in stored.episode_tails.values())]))


def _trigger(
    parents: Sequence[str], new_by_delta: Mapping[str, Event], stored: Mapping[str, StoredParent]
) -> str | None:
    if not parents:
        return None
    first = parents[0]
    if first in new_by_delta:
        parent = new_by_delta[first]
        who = parent.actor or parent.role or parent.kind.value
        return f"{who}: {summarize(parent.text or parent.tool_name or '', TRIGGER_CHARS)}"
    if first in stored:
        return f"{stored[first].action}: {summarize(stored[first].result, TRIGGER_CHARS)}"
    return None
