"""Extracting a delta from an event: deterministic rules, no LLM.

An LLM-backed extractor can replace the rules: anything with ``extract(event, trigger)``
returning a :class:`DeltaDraft` fits the :class:`DeltaExtractor` protocol.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Protocol

from deltacore.model import Event, EventKind

RESULT_CHARS = 500
NEUTRAL_UTILITY = 0.5


@dataclass(frozen=True, slots=True)
class DeltaDraft:
    trigger: str
    action: str
    result: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    utility: float = NEUTRAL_UTILITY


class DeltaExtractor(Protocol):
    def extract(self, event: Event, trigger: str | None) -> DeltaDraft:
        """The delta of ``event``; ``trigger`` is a short description of its causal parent."""
        ...


# "<subject> <relation> <object>" statements common in agent memories ("user prefers Go",
# "Melanie's daughter is Ana", "the api service runs on port 8080").
_RELATION = re.compile(
    r"^(?P<subject>[\w' .-]{1,60}?)\s+"
    r"(?P<predicate>is|are|was|prefers|likes|loves|hates|uses|lives in|works at|works as|moved to|"
    r"switched to|runs on|depends on|owns|has)\s+"
    r"(?P<object>.{1,200}?)[.!]?$",
    re.IGNORECASE,
)


def statement_triple(text: str) -> tuple[str, str, str] | None:
    """(subject, predicate, object) of a simple statement such as "user prefers Go", else None."""
    match = _RELATION.match(" ".join(text.split()))
    if not match:
        return None
    return match["subject"].strip(), match["predicate"].lower(), match["object"].strip()


def summarize(text: str, limit: int = RESULT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _utility_from_outcome(event: Event) -> float:
    """Outcome and feedback events carry a reward in [-1, 1] or a success flag in ``meta``."""
    reward = event.meta.get("reward")
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        return max(0.0, min(1.0, (float(reward) + 1.0) / 2.0))
    success = event.meta.get("success")
    if isinstance(success, bool):
        return 1.0 if success else 0.0
    return NEUTRAL_UTILITY


class RuleBasedExtractor:
    """The default extractor: one delta per event, by kind."""

    def extract(self, event: Event, trigger: str | None) -> DeltaDraft:
        actor = event.actor or event.role or "agent"
        trigger = trigger or f"{actor} {event.kind.value}"
        text = summarize(event.text)
        meta = event.meta
        if event.kind is EventKind.TOOL_CALL:
            args = json.dumps(event.tool_args or {}, sort_keys=True, default=str)
            return DeltaDraft(
                trigger=trigger,
                action=f"call {event.tool_name}",
                result=text or f"{event.tool_name}({args})",
                subject=event.tool_name,
                predicate="called_with",
                object=summarize(args, 1000),
            )
        if event.kind is EventKind.TOOL_RESULT:
            failed = bool(meta.get("error")) or meta.get("status") == "error"
            return DeltaDraft(
                trigger=trigger,
                action=f"{event.tool_name} {'failed' if failed else 'returned'}",
                result=("error: " if failed and not text.lower().startswith("error") else "") + text,
                subject=event.tool_name,
                predicate="failed_with" if failed else "returned",
                object=text[:200] or None,
            )
        if event.kind in (EventKind.OUTCOME, EventKind.FEEDBACK):
            return DeltaDraft(
                trigger=trigger,
                action=event.kind.value,
                result=text,
                utility=_utility_from_outcome(event),
            )
        subject, predicate, obj = (meta.get("subject"), meta.get("predicate"), meta.get("object"))
        if not (subject and predicate and obj is not None) and event.kind in (EventKind.FACT, EventKind.OBSERVATION):
            match = _RELATION.match(" ".join(event.text.split()))
            if match:
                subject, predicate, obj = (
                    match["subject"].strip(),
                    match["predicate"].lower(),
                    match["object"].strip(),
                )
        action = {EventKind.MESSAGE: "say", EventKind.OBSERVATION: "observe", EventKind.FACT: "state"}[event.kind]
        return DeltaDraft(
            trigger=trigger,
            action=action,
            result=text,
            subject=str(subject) if subject else None,
            predicate=str(predicate) if predicate else None,
            object=str(obj) if obj is not None and subject else None,
        )
