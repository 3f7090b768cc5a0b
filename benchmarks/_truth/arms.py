"""The arms: four peers a framework user would otherwise pick, and DeltaCore through its public API.

Every arm sees the same statements and the same vectors (one embedding per text, shared). The
peers rank; DeltaCore is asked the way a framework user would ask it: ``query(question,
top_k=5)``, ``as_of=`` when the engine takes it, and nothing else. The harness does no ranking,
filtering or fact logic of its own for DeltaCore: what comes back is what is scored.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from _truth.world import Question, Statement, World, default_anchor

TOP_K = 5
_WORD = re.compile(r"\w+")
BELIEF_FLAGS = ("superseded", "conflict", "stale")


@dataclass(frozen=True)
class Hit:
    id: str
    flags: frozenset[str] = frozenset()
    """Belief flags on the packet, normalised to ``superseded``, ``conflict`` and ``stale``."""


@dataclass
class Answers:
    hits: dict[str, list[Hit]] = field(default_factory=dict)
    """Question id → its top 5."""
    index_seconds: float = 0.0
    query_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)


def embedding_texts(world: World) -> dict[str, str]:
    """The string each statement is embedded from, by DeltaCore's own rule (a tool result's text
    followed by its tool name), so that every arm searches exactly the same vectors."""
    from deltacore.ingest.pipeline import embedding_text
    from deltacore.model import Event

    return {s.id: embedding_text(Event.model_validate(s.event())) for s in world.statements}


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class Peers:
    """Vector top-k (cosine, numpy), BM25 (rank_bm25), hybrid RRF of the two (k = 60, pools of
    50) and "the newest of the top-20 semantic hits" over one world."""

    NAMES = ("vector top-k", "BM25", "hybrid RRF", "newest of top-20")

    def __init__(self, world: World, embedder: Any) -> None:
        from rank_bm25 import BM25Okapi

        started = time.perf_counter()
        self.statements = world.statements
        self.embedder = embedder
        texts = embedding_texts(world)
        matrix = np.stack([embedder.vectors[texts[s.id]] for s in self.statements]).astype(np.float32)
        self.matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        self.vector_index_seconds = time.perf_counter() - started
        started = time.perf_counter()
        self.bm25 = BM25Okapi([tokenize(texts[s.id]) for s in self.statements])
        self.bm25_index_seconds = time.perf_counter() - started
        self._memo: dict[tuple[str, str], tuple[list[int], float]] = {}
        self._charged = self._computed = 0.0

    def _semantic(self, text: str, k: int) -> list[int]:
        return self._ranked("semantic", text)[:k]

    def _lexical(self, text: str, k: int) -> list[int]:
        return self._ranked("lexical", text)[:k]

    def _ranked(self, kind: str, text: str) -> list[int]:
        """The top 50 of one ranker, computed once per question; its time is charged to every
        arm that uses it (hybrid pays for both)."""
        key = (kind, text)
        if key not in self._memo:
            started = time.perf_counter()
            if kind == "semantic":
                query = self.embedder([text])[0]
                scores = self.matrix @ (query / max(float(np.linalg.norm(query)), 1e-12))
            else:
                scores = self.bm25.get_scores(tokenize(text))
            top = np.argpartition(-scores, min(50, len(scores) - 1))[:50]
            self._memo[key] = (sorted(top.tolist(), key=lambda i: (-scores[i], i)), time.perf_counter() - started)
            self._computed += self._memo[key][1]
        ranking, seconds = self._memo[key]
        self._charged += seconds
        return ranking

    def _hybrid(self, text: str, k: int, pool: int = 50) -> list[int]:
        fused: dict[int, float] = defaultdict(float)
        for ranking in (self._lexical(text, pool), self._semantic(text, pool)):
            for rank, i in enumerate(ranking, start=1):
                fused[i] += 1.0 / (60 + rank)
        return [i for i, _ in sorted(fused.items(), key=lambda p: (-p[1], p[0]))[:k]]

    def _newest(self, text: str, k: int) -> list[int]:
        return sorted(self._semantic(text, 20), key=lambda i: self.statements[i].ts, reverse=True)[:k]

    def answer(self, questions: list[Question]) -> dict[str, Answers]:
        rankers = {"vector top-k": self._semantic, "BM25": self._lexical, "hybrid RRF": self._hybrid,
                   "newest of top-20": self._newest}
        index = {"vector top-k": self.vector_index_seconds, "BM25": self.bm25_index_seconds,
                 "hybrid RRF": self.vector_index_seconds + self.bm25_index_seconds,
                 "newest of top-20": self.vector_index_seconds}
        out = {}
        for name, rank in rankers.items():
            answers = Answers(index_seconds=index[name])
            self._charged = self._computed = 0.0
            started = time.perf_counter()
            for q in questions:
                answers.hits[q.id] = [Hit(self.statements[i].id) for i in rank(q.text, TOP_K)]
            # Wall time of this arm's own work plus the first computation of the rankings it reused.
            answers.query_seconds = time.perf_counter() - started - self._computed + self._charged
            out[name] = answers
        return out

def packet_flags(packet: Any) -> frozenset[str]:
    """The belief flags a framework user can read off a packet (its ``flags``, or the fields the
    belief layer adds), under three names."""
    names = {getattr(f, "value", str(f)).lower() for f in getattr(packet, "flags", ()) or ()}
    meta = getattr(packet, "meta", None) or {}
    for name in ("superseded", "superseded_by", "conflict", "conflicted", "stale"):
        if meta.get(name) or getattr(packet, name, None):
            names.add(name)
    out = set()
    if names & {"superseded", "superseded_by"}:
        out.add("superseded")
    if names & {"conflict", "contradicted", "conflicted"}:
        out.add("conflict")
    if "stale" in names:
        out.add("stale")
    return frozenset(out)


class DeltaCoreArm:
    """DeltaCore as a framework user runs it: open a store, ingest the timeline as it arrives
    (one call per run of same-channel events, each event with its statement's time), ask."""

    name = "DeltaCore"

    def __init__(self, world: World, embedder: Any, folder: Path, batch: int = 64) -> None:
        self.world, self.embedder, self.folder, self.batch = world, embedder, folder, batch

    def answer(self, questions: list[Question]) -> Answers:
        from deltacore import DeltaCore

        answers = Answers()
        memory = DeltaCore.open(self.folder, embedder=self.embedder, sqlite_synchronous="NORMAL")
        try:
            started = time.perf_counter()
            actions = self._ingest(memory)
            answers.index_seconds = time.perf_counter() - started
            answers.extras["trust_actions_by_role"] = actions
            as_of = self._supports_as_of(memory)
            answers.extras["as_of_supported"] = as_of
            if not as_of:
                answers.notes.append("as_of not supported by the engine: as-of questions asked as text only")
            started = time.perf_counter()
            # The world's "now" is its anchor. On a later day a store that judges staleness by
            # the clock would see every observation older than the world says (tune's stale
            # precision drifted 1.00 -> 0.83 in a day with no engine change), so then questions
            # about now are asked as of the anchor; on the anchor's own day, as a user asks them.
            now = self.world.anchor if as_of and self.world.anchor < default_anchor() else None
            for q in questions:
                when = q.as_of if q.as_of is not None else now
                options: dict[str, Any] = {"as_of": when} if as_of and when is not None else {}
                packets = memory.query(q.text, top_k=TOP_K, **options)
                answers.hits[q.id] = [Hit(p.id, packet_flags(p)) for p in packets]
            answers.query_seconds = time.perf_counter() - started
            answers.extras.update(self._belief_api(memory))
        finally:
            memory.close()
        return answers

    def _ingest(self, memory: Any) -> dict[str, dict[str, int]]:
        actions: dict[str, Counter[str]] = defaultdict(Counter)
        role_of = {s.id: s.role for s in self.world.statements}
        for channel, run in _runs(self.world.statements, self.batch):
            result = memory.ingest([s.event() for s in run], channel=channel)
            if result.rejected:
                raise RuntimeError(f"the engine rejected a statement as invalid: {result.rejected[0]}")
            decided = {d.event_id: getattr(d.action, "value", str(d.action)) for d in result.decisions or []}
            for s in run:
                action = "blocked" if s.id in (result.blocked or []) else decided.get(s.id, "stored")
                actions[role_of[s.id]][action] += 1
        return {role: dict(sorted(c.items())) for role, c in sorted(actions.items())}

    def _supports_as_of(self, memory: Any) -> bool:
        try:
            memory.query("probe", top_k=1, as_of=self.world.anchor)
        except (TypeError, ValueError):
            return False
        return True

    def _belief_api(self, memory: Any) -> dict[str, Any]:
        """What the belief layer's read API reports, where the engine has it (never used to rank)."""
        out: dict[str, Any] = {"api": {name: callable(getattr(memory, name, None)) for name in ("facts", "history", "conflicts")}}
        if out["api"]["facts"]:
            try:
                out["facts"] = len(memory.facts())
            except Exception as exc:  # noqa: BLE001 - an API in flux: record, do not fail the run
                out["facts_error"] = repr(exc)
        if out["api"]["conflicts"]:
            try:
                out["conflict_records"] = [_strings(c) for c in memory.conflicts()]
            except Exception as exc:  # noqa: BLE001
                out["conflicts_error"] = repr(exc)
        if out["api"]["history"]:
            out["history_checks"] = self._histories(memory)
        return out

    def _histories(self, memory: Any) -> dict[str, Any]:
        """``history(subject, attribute)`` of every changed slot: does it list the slot's values
        in time order?"""
        ordered = asked = errors = 0
        first_error = None
        for slot in self.world.slots.values():
            if not slot.changed:
                continue
            subject = next(iter(slot.fields.values()))
            if slot.entity_kind == "deployment":
                subject = f"{slot.fields['svc']} {slot.fields['env']}"
            asked += 1
            try:
                text = " ".join(_strings(memory.history(subject, slot.attribute.replace("_", " "))))
            except Exception as exc:  # noqa: BLE001
                errors += 1
                first_error = first_error or repr(exc)
                continue
            positions = [text.find(value) for value, _ in slot.values]
            ordered += all(p >= 0 for p in positions) and positions == sorted(positions)
        return {"asked": asked, "values_in_time_order": ordered, "errors": errors, "first_error": first_error}


def _strings(record: Any) -> list[str]:
    """Every string inside a record (pydantic model, dataclass, dict, list), for matching ids and values."""
    if hasattr(record, "model_dump"):
        record = record.model_dump(mode="json")
    elif hasattr(record, "__dataclass_fields__"):
        record = {k: getattr(record, k) for k in record.__dataclass_fields__}
    if isinstance(record, dict):
        return [s for v in record.values() for s in _strings(v)]
    if isinstance(record, (list, tuple, set, frozenset)):
        return [s for v in record for s in _strings(v)]
    return [record] if isinstance(record, str) else [str(record)] if record is not None else []


def _runs(statements: list[Statement], batch: int) -> list[tuple[str, list[Statement]]]:
    """Ingest calls for statements in arrival order, one channel per call (at most ``batch``).

    Statements of facts keep their exact arrival order across channels (a late arrival stays
    late). Unrelated memories ride along with a call of their channel in the same week, as a
    framework syncing its channels would send them: an embedded vector index pays a fixed cost
    per call, and one call per chatter line would measure that, not the engine's truth."""
    runs: list[tuple[str, list[Statement]]] = []
    open_runs: dict[tuple[str, tuple[int, int]], int] = {}
    for s in statements:
        week = tuple(s.arrival.isocalendar())[:2]
        if s.slot is None:
            at = open_runs.get((s.channel, week))
            if at is not None and len(runs[at][1]) < batch:
                runs[at][1].append(s)
                continue
        if s.slot is not None and runs and runs[-1][0] == s.channel and len(runs[-1][1]) < batch:
            runs[-1][1].append(s)
        else:
            runs.append((s.channel, [s]))
        open_runs[(s.channel, week)] = len(runs) - 1
    return runs
