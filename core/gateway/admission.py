"""Admission of writes: where an event came from, and the namespace it is stored in.

The channel is set by the caller or the adapter from where the event really came from; nothing
inside the event's content can claim a channel. Trust scoring (content anomaly, consistency,
temporal plausibility, reputation) plugs in here; until then an event's trust is the prior of
its channel.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltacore.model import Channel, Event, EventKind, Namespace

# Prior trust by channel: first-party channels are trusted, content the agent merely read
# (retrieved documents, other agents) is stored but marked unverified.
CHANNEL_PRIOR: dict[Channel, float] = {
    Channel.SYSTEM: 1.0,
    Channel.USER: 0.9,
    Channel.AGENT: 0.9,
    Channel.TOOL: 0.85,
    Channel.PEER: 0.6,
    Channel.DOCUMENT: 0.55,
}
UNVERIFIED_CHANNELS = frozenset({Channel.PEER, Channel.DOCUMENT})


@dataclass(frozen=True, slots=True)
class Admission:
    channel: Channel
    namespace: Namespace
    trust: float


def infer_channel(event: Event) -> Channel:
    """The channel an event most plausibly came through, from its kind and role."""
    if event.kind in (EventKind.TOOL_RESULT,):
        return Channel.TOOL
    role = (event.role or "").lower()
    if role in ("user", "human"):
        return Channel.USER
    if role == "system":
        return Channel.SYSTEM
    if role == "tool":
        return Channel.TOOL
    return Channel.AGENT


class Gateway:
    """Decides channel, namespace and trust for each incoming event."""

    def admit(self, event: Event, channel: Channel | None = None) -> Admission:
        channel = channel or infer_channel(event)
        if event.meta.get("synthetic") is True:
            namespace = Namespace.SYNTHETIC
        elif channel in UNVERIFIED_CHANNELS:
            namespace = Namespace.UNVERIFIED
        else:
            namespace = Namespace.TRUSTED
        return Admission(channel=channel, namespace=namespace, trust=CHANNEL_PRIOR[channel])
