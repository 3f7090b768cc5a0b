"""Facts read by a language model: the optional plug-in behind :class:`FactExtractor`.

The rules (:class:`~deltacore.belief.extract.RuleFactExtractor`) read what they are sure of and
leave the rest; :class:`LLMFactExtractor` asks a model about the rest. Nothing in the engine
needs it, and it keeps the rules' caution:

- **Grounded or dropped.** A claim counts only when its value, and its subject (unless it is
  the speaker, "I"), occur in the event's text: a model that answers from its own knowledge, or
  invents a value, makes no fact. Claims under ``min_confidence`` are dropped too.
- **Explicit fields and tool-result JSON stay with the rules**, which read them exactly; the
  model sees only the text of messages and observations, and in ``mode="fill"`` (the default)
  only those the rules found nothing in.
- **A model that fails loses nothing.** An exception, a timeout or an answer that is not the
  JSON asked for makes no fact for that event; the write itself is already stored. The counts
  are in :attr:`LLMFactExtractor.stats`.
- **One call per distinct text**, made concurrently for a write's batch in :meth:`prepare`
  (the belief step calls it once per write, before reading claims) and remembered, so a
  repeated message costs nothing the second time. The write waits for those calls: with a
  slow model, write with ``ingest(..., staged=True)`` so the agent's step does not.

The model is any callable ``complete(prompt: str) -> str``: a client's chat call wrapped in a
function, or a scripted fake in tests.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from deltacore.belief.claims import FactClaim, parse_date, timestamp_of
from deltacore.belief.extract import MAX_TEXT_CHARS, FactExtractor, FactFieldError, RuleFactExtractor
from deltacore.belief.lexicon import ATTRIBUTES, FIRST_PERSON, canonical_subject, clean, normalise_attribute
from deltacore.errors import ConfigurationError

PROMPT = """Extract the facts this message states about people, services, projects or teams.
Return only JSON: a list of objects with the keys "subject" (who or what the fact is about, as
named in the message; "I" for the speaker), "attribute" (a short noun phrase, e.g. "home city",
"employer", "status"), "value" (copied from the message), and optionally "valid_from" (the date
the message says it became true), "previous" (an old value the message says it replaced),
"correction" (true when the message corrects an earlier statement) and "confidence" (0 to 1).
Leave out anything hedged, hypothetical, asked, denied, or about something else. Return [] when
the message states no fact.

Message{speaker}: {text}
JSON:"""

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
_TEXT_KINDS = ("message", "observation", "fact")


@dataclass
class LLMStats:
    """What the model was asked and what came of it (since the extractor was made)."""

    calls: int = 0
    failures: int = 0
    """Calls that raised or answered something other than a JSON list of facts."""
    claims: int = 0
    dropped: dict[str, int] = field(default_factory=lambda: {"ungrounded": 0, "incomplete": 0, "unsure": 0})


class LLMFactExtractor:
    """Rules first, then a language model for what they leave (see the module docstring).

    ``complete``: the model, ``prompt -> text``. ``rules``: the extractor for explicit fields,
    JSON and whatever it reads (the store's default when given to ``DeltaCore.open``).
    ``mode``: ``"fill"`` asks the model only about texts the rules found nothing in;
    ``"replace"`` asks it about every message text, and keeps the rules for explicit fields and
    JSON. ``confidence``: a claim's confidence when the model gives none (the supersede policy
    needs more than 0.8 to retire a value). ``workers``: concurrent calls per write.
    """

    def __init__(
        self,
        complete: Callable[[str], str],
        *,
        rules: FactExtractor | None = None,
        mode: Literal["fill", "replace"] = "fill",
        confidence: float = 0.9,
        min_confidence: float = 0.5,
        workers: int = 4,
        cache_size: int = 10_000,
        prompt: str = PROMPT,
    ) -> None:
        if not callable(complete):
            raise ConfigurationError("complete", f"must be a callable prompt -> text, got {type(complete).__name__}")
        if mode not in ("fill", "replace"):
            raise ConfigurationError("mode", f"must be 'fill' or 'replace', got {mode!r}")
        for name, value in (("confidence", confidence), ("min_confidence", min_confidence)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigurationError(name, f"must be a number in [0, 1], got {value!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ConfigurationError("workers", f"must be a positive integer, got {workers!r}")
        if "{text}" not in prompt:
            raise ConfigurationError("prompt", "must contain '{text}' where the message goes")
        self._rules, self.complete, self.mode = rules, complete, mode
        self.confidence, self.min_confidence, self.workers = float(confidence), float(min_confidence), workers
        self.prompt = prompt
        self.stats = LLMStats()
        self._lock = threading.Lock()  # prepare() asks from several threads
        self._found: dict[str, list[FactClaim]] = {}
        self._answers: OrderedDict[tuple[str, str], list[dict[str, Any]] | None] = OrderedDict()
        self._cache_size = cache_size

    @property
    def rules(self) -> FactExtractor:
        if self._rules is None:
            self._rules = RuleFactExtractor()
        return self._rules

    def use_rules(self, rules: FactExtractor) -> None:
        """The rules to run first when none were given (``DeltaCore.open`` passes the store's,
        whose attribute similarity runs on the store's embedder)."""
        if self._rules is None:
            self._rules = rules

    # ---- the FactExtractor protocol -------------------------------------------------------------

    def prepare(self, events: Sequence[Any]) -> None:
        """Ask the model, concurrently, about the batch's texts it has not seen."""
        prepare = getattr(self.rules, "prepare", None)
        if prepare is not None:
            prepare(events)
        # The rules' claims are kept for claims(), which the belief step calls next for the same
        # events: the rules run once per event, not once here and again there.
        self._found = {}
        for event in events:
            try:
                self._found[event.id] = self.rules.claims(event)
            except FactFieldError:
                continue  # claims() raises it again, where the belief step reports it
        wanted = list(dict.fromkeys(
            key for event in events
            if event.id in self._found and (key := self._asks(event, self._found[event.id])) and key not in self._answers
        ))  # fmt: skip
        if not wanted:
            return
        with ThreadPoolExecutor(max_workers=min(self.workers, len(wanted))) as pool:
            for key, answer in zip(wanted, pool.map(self._ask, wanted)):
                self._remember(key, answer)

    def claims(self, event: Any) -> list[FactClaim]:
        found = self._found.pop(event.id, None)
        found = self.rules.claims(event) if found is None else found
        key = self._asks(event, found)
        if key is None:
            return found
        if key not in self._answers:
            self._remember(key, self._ask(key))
        answer = self._answers[key]
        read = [c for item in answer or () if (c := self._claim(item, event)) is not None]
        self.stats.claims += len(read)
        if self.mode == "replace":
            return read
        return found or read

    # ---- asking --------------------------------------------------------------------------------

    def _asks(self, event: Any, found: list[FactClaim]) -> tuple[str, str] | None:
        """The (text, speaker) the model is asked about for ``event``, or None."""
        text = (event.text or "").strip()
        if event.kind not in _TEXT_KINDS or not text or len(text) > MAX_TEXT_CHARS or text.startswith(("{", "[")):
            return None
        if event.kind == "fact" and (event.meta or {}).get("attribute", (event.meta or {}).get("predicate")):
            return None  # explicit fields: the rules read them exactly
        if self.mode == "fill":
            if found:
                return None
        return text, event.actor or ""

    def _ask(self, key: tuple[str, str]) -> list[dict[str, Any]] | None:
        text, speaker = key
        with self._lock:
            self.stats.calls += 1
        try:
            answer = self.complete(self.prompt.format(text=text, speaker=f" from {speaker}" if speaker else ""))
            items = json.loads(_FENCE.sub("", str(answer).strip()))
            if isinstance(items, dict):
                items = items.get("facts", [items])
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise ValueError("not a JSON list of objects")
            return items
        except Exception:  # noqa: BLE001 - a plug-in's failure must never fail the write
            with self._lock:
                self.stats.failures += 1
            return None

    def _remember(self, key: tuple[str, str], answer: list[dict[str, Any]] | None) -> None:
        self._answers[key] = answer
        while len(self._answers) > self._cache_size:
            self._answers.popitem(last=False)

    # ---- checking what the model said -------------------------------------------------------------

    def _claim(self, item: dict[str, Any], event: Any) -> FactClaim | None:
        dropped = self.stats.dropped
        subject_name, attribute, value = (item.get(k) for k in ("subject", "attribute", "value"))
        if not all(isinstance(x, (str, int, float)) and not isinstance(x, bool) and str(x).strip()
                   for x in (subject_name, attribute, value)):  # fmt: skip
            dropped["incomplete"] += 1
            return None
        subject_name, attribute, value = clean(str(subject_name)), str(attribute), clean(str(value))
        text = _folded(event.text or "")
        first_person = subject_name.casefold() in FIRST_PERSON
        if _folded(value) not in text or not (first_person or _folded(subject_name) in text):
            dropped["ungrounded"] += 1
            return None
        subject = canonical_subject(subject_name, event.actor, event.user_id)
        confidence = item.get("confidence", self.confidence)
        if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
            confidence = self.confidence
        confidence = min(1.0, max(0.0, float(confidence))) * float(event.confidence)
        attribute = normalise_attribute(attribute)
        if subject is None or not attribute or len(attribute.split()) > 4 or confidence < self.min_confidence:
            dropped["unsure" if subject is not None and attribute else "incomplete"] += 1
            return None
        resolver = getattr(self.rules, "resolver", None)
        if resolver is not None and attribute not in ATTRIBUTES.values():
            resolved = resolver.resolve(attribute)
            attribute = resolved[0] if resolved is not None and not resolved[1] else attribute
        previous = item.get("previous")
        previous = clean(str(previous)) if isinstance(previous, str) and _folded(previous) in text else None
        return FactClaim(
            subject, subject_name if not first_person else (event.actor or subject_name), attribute, value,
            confidence, "llm", self._valid_from(item.get("valid_from"), event),
            correction=item.get("correction") is True, previous=previous,
        )

    @staticmethod
    def _valid_from(stated: Any, event: Any) -> float | None:
        if not isinstance(stated, str) or not stated.strip():
            return None
        return timestamp_of(stated) or parse_date(stated, event.ts.timestamp())


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())
