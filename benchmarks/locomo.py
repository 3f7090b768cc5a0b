"""Evidence recall on LoCoMo: DeltaCore's read path against the retrievers users would otherwise pick.

Every turn of a conversation is ingested as a message event (speaker as actor, session date as
timestamp, image caption appended to the text), one tenant per conversation. Every question of
categories 1–4 is asked; evidence recall@k = the fraction of the question's evidence turns among
the top k. Peers, on the same MiniLM vectors: vector-only top-k over Chroma (what most framework
memories do), BM25 alone (rank_bm25, as LangChain's BM25Retriever), and BM25 + vector fused by
reciprocal rank (k = 60).

    python benchmarks/locomo.py ../shared/data/locomo

The data is not in this repository; pass its folder. Nothing here looks at answers or evidence
at query time: they are read only to score.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import command_line  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

KS = (1, 5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_WORD = re.compile(r"\w+")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    ts: datetime
    session: int


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]
    skipped_evidence: int = 0


def parse_session_date(raw: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def load(folder: Path) -> list[Conversation]:
    conversations = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        conv = data["conversation"] if "conversation" in data else data
        turns: list[Turn] = []
        n = 1
        while f"session_{n}" in conv:
            start = parse_session_date(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text = f"{text} [shares an image: {turn['blip_caption']}]"
                # Turns of a session keep their order with a few seconds between them.
                turns.append(Turn(turn["dia_id"], turn["speaker"], text, start + timedelta(seconds=30 * i), n))
            n += 1
        known = {t.dia_id for t in turns}
        questions, skipped = [], 0
        for qa in data["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            evidence = [e.strip() for e in qa.get("evidence", []) if isinstance(e, str)]
            good = [e for e in evidence if e in known]
            skipped += len(evidence) - len(good)
            if good:
                questions.append(Question(str(qa["question"]), int(qa["category"]), good))
        conversations.append(Conversation(path.stem, turns, questions, skipped))
    return conversations


class DocumentCache:
    """Embeds every turn once; all systems share these vectors. Queries are always embedded
    anew (by each system, inside its timed section)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.vectors: dict[str, np.ndarray] = {}

    def warm(self, texts: list[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            for text, vector in zip(missing, self.model(missing)):
                self.vectors[text] = np.asarray(vector, dtype=np.float32)

    def name(self) -> str:
        return self.model.name()

    def __call__(self, input: list[str]) -> np.ndarray:
        missing = [t for t in input if t not in self.vectors]
        fresh = dict(zip(missing, self.model(missing))) if missing else {}
        return np.stack([self.vectors[t] if t in self.vectors else fresh[t] for t in input])


# ---- systems ----------------------------------------------------------------------------------


class System:
    name: str

    def index(self, conv: Conversation) -> None: ...

    def search(self, conv: Conversation, question: str, k: int) -> list[str]: ...

    def close(self) -> None: ...


class DeltaCoreSystem(System):
    """DeltaCore's default read path (no options: the routers are chosen from each question)."""

    def __init__(self, embedder: DocumentCache, folder: Path, name: str = "DeltaCore", **settings: Any) -> None:
        from deltacore import DeltaCore

        self.name = name
        self.memory = DeltaCore.open(folder, embedder=embedder, **settings)
        self.options: dict[str, Any] = {}

    def index(self, conv: Conversation) -> None:
        events = [
            {
                "id": f"{conv.name}:{t.dia_id}",
                "text": t.text,
                "actor": t.speaker,
                "ts": t.ts,
                "tenant": conv.name,
                "session_id": f"session_{t.session}",
                "episode_id": f"session_{t.session}",
            }
            for t in conv.turns
        ]
        for start in range(0, len(events), 256):
            result = self.memory.ingest(events[start : start + 256])
            assert result.ok, result.rejected

    def search(self, conv: Conversation, question: str, k: int) -> list[str]:
        packets = self.memory.query(question, tenant=conv.name, top_k=k, include_deltas=False, **self.options)
        return [p.id.split(":", 1)[1] for p in packets]

    def close(self) -> None:
        self.memory.close()


class ChromaVectorSystem(System):
    """Vector-only top-k over Chroma: AutoGen's ChromaDBVectorMemory, LangChain's Chroma retriever."""

    name = "vector (Chroma)"

    def __init__(self, embedder: DocumentCache) -> None:
        import chromadb
        from chromadb.config import Settings

        self.embedder = embedder
        self.client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False, allow_reset=True))
        self.collections: dict[str, Any] = {}

    def index(self, conv: Conversation) -> None:
        collection = self.client.create_collection(
            f"locomo-{conv.name}", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        texts = [t.text for t in conv.turns]
        collection.add(ids=[t.dia_id for t in conv.turns], embeddings=self.embedder(texts), documents=texts)
        self.collections[conv.name] = collection

    def ranked(self, conv: Conversation, question: str, k: int) -> list[str]:
        vector = self.embedder([question])[0]
        result = self.collections[conv.name].query(query_embeddings=[vector], n_results=k)
        return list(result["ids"][0])

    search = ranked


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class BM25System(System):
    """BM25 alone (rank_bm25's BM25Okapi, which LangChain's BM25Retriever uses)."""

    name = "BM25"

    def __init__(self) -> None:
        self.indexes: dict[str, tuple[Any, list[str]]] = {}

    def index(self, conv: Conversation) -> None:
        from rank_bm25 import BM25Okapi

        self.indexes[conv.name] = (BM25Okapi([tokenize(t.text) for t in conv.turns]), [t.dia_id for t in conv.turns])

    def search(self, conv: Conversation, question: str, k: int) -> list[str]:
        bm25, ids = self.indexes[conv.name]
        scores = bm25.get_scores(tokenize(question))
        top = np.argsort(-scores, kind="stable")[:k]
        return [ids[i] for i in top]


class HybridSystem(System):
    """BM25 + vector fused by reciprocal rank (k = 60): the non-LLM core of hybrid memories."""

    name = "hybrid BM25+vector RRF"

    def __init__(self, bm25: BM25System, vector: ChromaVectorSystem, pool: int = 50) -> None:
        self.bm25, self.vector, self.pool = bm25, vector, pool

    def search(self, conv: Conversation, question: str, k: int) -> list[str]:
        scores: dict[str, float] = defaultdict(float)
        for ranking in (self.bm25.search(conv, question, self.pool), self.vector.search(conv, question, self.pool)):
            for rank, item in enumerate(ranking, start=1):
                scores[item] += 1.0 / (60 + rank)
        return [item for item, _ in sorted(scores.items(), key=lambda p: (-p[1], p[0]))[:k]]


# ---- evaluation -------------------------------------------------------------------------------


@dataclass
class Score:
    hits: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    by_category: dict[int, dict[int, list[float]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    latencies_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "recall": {f"@{k}": float(np.mean(v)) for k, v in sorted(self.hits.items())},
            "per_category": {
                CATEGORIES[c]: {f"@{k}": float(np.mean(v)) for k, v in sorted(ks.items())}
                for c, ks in sorted(self.by_category.items())
            },
            "latency_ms": {
                "p50": float(np.percentile(self.latencies_ms, 50)),
                "p95": float(np.percentile(self.latencies_ms, 95)),
            },
            "questions": len(self.latencies_ms),
        }


def evaluate(system: System, conversations: list[Conversation], progress: Callable[[str], None]) -> Score:
    score = Score()
    for conv in conversations:
        for question in conv.questions:
            start = time.perf_counter()
            found = system.search(conv, question.text, max(KS))
            score.latencies_ms.append((time.perf_counter() - start) * 1000)
            for k in KS:
                top = set(found[:k])
                recall = sum(e in top for e in question.evidence) / len(question.evidence)
                score.hits[k].append(recall)
                score.by_category[question.category][k].append(recall)
        progress(f"{system.name}: {conv.name} done")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/locomo", type=Path)
    parser.add_argument("--json", type=Path, default=Path("docs/results/locomo.json"))
    parser.add_argument("--plot", default="docs/img/locomo_recall.png", help="chart path ('' to skip)")
    parser.add_argument("--conversations", nargs="*", help="only these (e.g. conv-26)")
    parser.add_argument("--systems", nargs="*", help="only these system names")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    def progress(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    conversations = load(args.data)
    if args.conversations:
        conversations = [c for c in conversations if c.name in args.conversations]
    if not conversations:
        parser.error(f"no LoCoMo conversations in {args.data}")
    from deltacore.embedding import MiniLMEmbedder

    embedder = DocumentCache(MiniLMEmbedder())
    started = time.perf_counter()
    embedder.warm([t.text for c in conversations for t in c.turns])
    progress(f"embedded {len(embedder.vectors)} turns in {time.perf_counter() - started:.0f}s")
    embedder([conversations[0].questions[0].text + " warm-up"])  # load/warm the model once

    with tempfile.TemporaryDirectory() as tmp:
        vector = ChromaVectorSystem(embedder)
        bm25 = BM25System()
        systems: list[System] = [
            vector,
            bm25,
            HybridSystem(bm25, vector),
            DeltaCoreSystem(embedder, Path(tmp) / "dc"),
            # Ablation: the same routers fused by reciprocal rank instead of normalised scores.
            DeltaCoreSystem(embedder, Path(tmp) / "dc-rrf", name="DeltaCore (RRF fusion)", fusion="rrf"),
        ]
        if args.systems:
            systems = [s for s in systems if s.name in args.systems or isinstance(s, (ChromaVectorSystem, BM25System))]
        for system in systems:
            for conv in conversations:
                system.index(conv)
        progress("indexed")
        results = {system.name: evaluate(system, conversations, progress).summary() for system in systems}
        for system in systems:
            system.close()

    report = {
        "command": command_line("benchmarks/locomo.py", list(argv if argv is not None else sys.argv[1:])),
        "conversations": [c.name for c in conversations],
        "questions": sum(len(c.questions) for c in conversations),
        "skipped_evidence_ids": sum(c.skipped_evidence for c in conversations),
        "results": results,
    }
    print_table(report)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    if args.plot:
        plot(report, Path(args.plot))
    return 0


def print_table(report: dict[str, Any]) -> None:
    results = report["results"]
    header = ["system", *(f"R@{k}" for k in KS), *(f"{name}@5" for name in CATEGORIES.values()), "p50 ms", "p95 ms"]
    print(" | ".join(header))
    for name, r in results.items():
        row = [name, *(f"{r['recall'][f'@{k}']:.3f}" for k in KS)]
        row += [f"{r['per_category'].get(c, {}).get('@5', float('nan')):.3f}" for c in CATEGORIES.values()]
        row += [f"{r['latency_ms']['p50']:.1f}", f"{r['latency_ms']['p95']:.1f}"]
        print(" | ".join(row))


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = report["results"]
    names = list(results)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        values = [results[name]["recall"][f"@{k}"] for k in KS]
        ax.bar([x + i * width for x in range(len(KS))], values, width, label=name)
    ax.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(KS))], [f"recall@{k}" for k in KS])
    ax.set_ylim(0, 1)
    ax.set_ylabel("evidence recall (categories 1–4)")
    ax.set_title(f"LoCoMo, {report['questions']} questions, {len(report['conversations'])} conversations")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
