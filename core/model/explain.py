"""What ``query(..., explain=True)`` returns: the packets and how the read path found them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deltacore.model.packets import MemoryPacket


class RouterChoice(BaseModel):
    """One router that ran for the query."""

    model_config = ConfigDict(frozen=True)

    name: str
    weight: float
    """Its weight in fusion."""
    stage: Literal["find", "expand"]
    """``find``: searches the store on its own; ``expand``: works from the found candidates."""
    reason: str
    """Why it ran (the caller named it, or what in the question chose it)."""
    candidates: int
    """How many candidates it returned."""


class RouterScore(BaseModel):
    """What one router said about one packet."""

    model_config = ConfigDict(frozen=True)

    rank: int
    """1-based rank in that router's list."""
    score: float
    """The router's own score (similarity, bm25, recency…; comparable only within the router)."""


class PacketExplanation(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    score: float
    """The packet's final score (fusion, then the defence, belief and budget steps)."""
    routers: dict[str, RouterScore] = Field(default_factory=dict)
    """Router name -> its rank and score for this packet; a router that did not find it is absent."""


class QueryExplanation(BaseModel):
    """The answer of a query with the explanation of how it was found."""

    model_config = ConfigDict(frozen=True)

    packets: list[MemoryPacket]
    """Exactly what ``query`` returns without ``explain``."""
    chosen_by: Literal["caller", "question"]
    """``caller``: the ``routers=`` argument chose the routers; ``question``: the question did."""
    routers: list[RouterChoice]
    analysis: dict[str, object]
    """What the question names: content terms, known entities, a time range, "when", "latest"."""
    explanations: list[PacketExplanation]
    """One per packet, in the packets' order."""
