"""Text output shared by the commands: one-line excerpts and query hits."""

from __future__ import annotations

from deltacore.model import MemoryPacket

TEXT_WIDTH = 100


def one_line(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` on one line (runs of whitespace become one space), cut to ``width`` with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_packet(rank: int, packet: MemoryPacket) -> str:
    """Two lines for a query hit: rank, score, kind, who, when, cost and flags; then its text."""
    who = packet.actor or packet.tool_name or packet.role or "-"
    when = packet.ts.strftime("%Y-%m-%d %H:%M")
    flags = f"  [{', '.join(sorted(flag.value for flag in packet.flags))}]" if packet.flags else ""
    head = (
        f"{rank:>3}. {packet.score:.4f}  {packet.kind.value:<11}  {who:<12}  {when}  "
        f"{packet.token_cost} tok{flags}"
    )
    return f"{head}\n     {one_line(packet.text or packet.tool_name or '')}"
