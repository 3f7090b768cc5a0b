"""Which crew kickoff (episode) a piece of CrewAI work belongs to.

One episode is one crew kickoff, and its id is the ``event_id`` of that kickoff's
``CrewKickoffStartedEvent`` (CrewAI's root run id; ``Crew.id`` is the same for every kickoff).
Code running inside the kickoff reads it from CrewAI's event-scope stack; an event handler
walks the event's parents in the ``RuntimeState`` event record the bus hands it. Outside a
crew, the outermost agent or flow run is the episode (``Agent.kickoff()``, a ``Flow``); memory
and tool operations outside any run belong to none.
"""

from __future__ import annotations

from typing import Any

from crewai.context import capture_execution_context

CREW_KICKOFF_STARTED = "crew_kickoff_started"
RUN_STARTS = frozenset({"flow_started", "lite_agent_execution_started", "agent_execution_started"})
"""Scopes that stand for a run when there is no crew kickoff around them."""
_KICKOFF_ENDS = frozenset({"crew_kickoff_completed", "crew_kickoff_failed"})


def current_episode_id() -> str | None:
    """The innermost crew kickoff the calling code runs under, or ``None`` outside CrewAI."""
    stack = capture_execution_context().event_id_stack
    for event_id, event_type in reversed(stack):
        if event_type == CREW_KICKOFF_STARTED:
            return event_id
    return next((event_id for event_id, event_type in stack if event_type in RUN_STARTS), None)


def episode_of(event: Any, state: Any) -> str | None:
    """The crew kickoff a bus event belongs to (``state`` is the handler's ``RuntimeState``)."""
    if event.type == CREW_KICKOFF_STARTED:
        return event.event_id
    if event.type in _KICKOFF_ENDS:
        return event.started_event_id
    record = getattr(state, "event_record", None)
    outermost = None
    node_id = event.parent_event_id
    while node_id and record is not None:
        node = record.get(node_id)
        if node is None:
            break
        if node.event.type == CREW_KICKOFF_STARTED:
            return node_id
        if node.event.type in RUN_STARTS:
            outermost = node_id
        node_id = node.event.parent_event_id
    return outermost
