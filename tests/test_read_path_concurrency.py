"""The fast read path gives the answers of the plain one.

- The routers of a stage run concurrently (each on a connection of its own): the packets are
  the ones the routers give one after another, on every backend, also when many queries run at
  once.
- A lexical query ranks in the full-text index first and reads only the best rows; in a narrow
  scope it falls back to ranking the rows that pass: either way, the best matches that pass.
- An entity's most recent vectors are chosen by time first and read second: the same rows, in
  the same order, as reading them in one statement.

The store has hundreds of memories by several speakers, with dates, episodes and unverified
documents, so that every stage-one router and the trust defence take part; the HOT tier is off
so that semantic search goes to Chroma.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from sqlalchemy import select

from deltacore import DeltaCore, QueryCriteria
from deltacore.retrieval.routers import LexicalRouter
from deltacore.storage.fulltext import lexical_search
from deltacore.storage.tables import events
from deltacore.testing import FakeEmbedder

PEOPLE = ["Priya", "Marco", "Lena", "Tomas", "Aiko"]
SERVICES = ["billing", "search", "checkout", "ledger", "payments", "gateway"]
ACTS = [
    "deployed {svc} to production",
    "rolled back {svc} after the error spike",
    "said the {svc} migration finished on {day}",
    "asked when the {svc} certificate expires",
    "reported that {svc} latency doubled",
    "fixed the {svc} timeout in the config",
]
QUESTIONS = [
    "Who deployed billing to production?",
    "When did the ledger migration finish?",
    "What did Priya say about checkout?",
    "What is the latest status of payments?",
    "What happened to search in March 2024?",
    "Why was gateway rolled back?",
    "Which certificate expires soon?",
    "What did Lena fix in the config?",
    "Tell me about the error spike",
    "What did Aiko report about latency?",
]


def _history(n: int = 360, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    start = datetime(2024, 1, 2, 9, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        ts = start + timedelta(hours=11 * i)
        svc = rng.choice(SERVICES)
        text = f"{rng.choice(PEOPLE)} " + rng.choice(ACTS).format(svc=svc, day=ts.strftime("%B %d"))
        out.append({
            "id": f"m{i:04d}",
            "ts": ts.isoformat(),
            "text": text,
            "actor": rng.choice(PEOPLE),
            "role": "user",
            "session_id": f"s{i // 12}",
            "episode_id": f"ep{i // 6}",
            "entities": [svc],
            "agent_id": rng.choice(["ops", "support"]),
        })
    return out


def _documents() -> list[dict]:
    # Unverified memories (a document channel): the defence weighs them down unless corroborated.
    return [{"id": f"doc{i}", "text": f"Runbook says billing deploys need approval, page {i}"} for i in range(6)]


def _store(backend, **overrides) -> DeltaCore:
    return backend.open(hot_capacity=0, candidate_pool=20, **overrides)


def _fill(memory: DeltaCore) -> None:
    memory.ingest(_history())
    memory.ingest(_documents(), channel="document")


def _answers(memory: DeltaCore) -> list[list[tuple]]:
    answers = []
    for question in QUESTIONS:
        for extra in ({}, {"agent_filter": ("ops",)}, {"for_decision": True}):
            packets = memory.query(QueryCriteria(text=question, top_k=8, **extra))
            answers.append([(p.id, round(p.score, 9), tuple(sorted(p.routers.items())), p.provenance) for p in packets])
    return answers


@pytest.mark.parametrize("hot_capacity", [0, 4096], ids=["chroma", "hot-tier"])
def test_concurrent_routers_return_the_packets_of_sequential_ones(backend, monkeypatch, hot_capacity):
    threads: set[str] = set()
    search = LexicalRouter.search

    def recording(self, context):
        threads.add(threading.current_thread().name)
        return search(self, context)

    monkeypatch.setattr(LexicalRouter, "search", recording)
    # One store for both: Chroma's approximate search may order its tail differently each time
    # a collection is opened, which would hide what is compared here.
    with backend.open(hot_capacity=hot_capacity, candidate_pool=20, router_threads=4) as memory:
        _fill(memory)
        concurrent = _answers(memory)
        # The lexical router is never the first one, so with workers it ran on one of them.
        assert any(name.startswith("deltacore-router") for name in threads)
        threads.clear()
        memory._retriever._router_threads = 0  # noqa: SLF001 - the same store, routers one after another
        sequential = _answers(memory)
        assert threads == {threading.current_thread().name}
    assert sum(len(a) for a in sequential) > 100  # the questions find things: equality means something
    assert concurrent == sequential


def test_many_simultaneous_queries_get_the_answers_of_one_at_a_time(backend):
    with _store(backend, router_threads=3) as memory:
        _fill(memory)
        alone = {q: [p.id for p in memory.query(q, top_k=8)] for q in QUESTIONS}
        # More simultaneous queries than connections in the main pool (5 + 10 overflow) and
        # than router workers: nobody may wait for a connection held by a waiting query.
        with ThreadPoolExecutor(24) as pool:
            together = list(pool.map(lambda q: (q, [p.id for p in memory.query(q, top_k=8)]), QUESTIONS * 6))
    assert all(alone[q] == ids for q, ids in together)


def test_lexical_search_ranks_in_the_index_first_and_still_returns_the_best_that_pass(tmp_path, lexical_by_join):
    with DeltaCore.open(path=tmp_path / "store", embedder=FakeEmbedder(), hot_capacity=0) as memory:
        # Many short matches by one agent, and a few long (so low-ranked) ones by another: a
        # query scoped to the other agent finds none of its rows among the index's best.
        memory.ingest([{"text": f"payments retry {i}", "agent_id": "busy"} for i in range(300)])
        rare = memory.ingest(
            [{"text": f"the payments job of the quiet agent ran again today without any trouble at all, run {i}",
              "agent_id": "quiet"} for i in range(5)]
        ).event_ids
        cases = [
            (["payments"], [events.c.tenant == "default"], 10),
            (["payments"], [events.c.tenant == "default", events.c.agent_id == "quiet"], 10),  # falls back
            (["payments", "retry"], [events.c.tenant == "default", events.c.agent_id == "busy"], 50),
            (["quiet", "payments"], [events.c.tenant == "default"], 7),
            (["nothing"], [events.c.tenant == "default"], 10),
        ]
        with memory._sql.reader() as conn:  # noqa: SLF001 - the statements under test
            for terms, filters, limit in cases:
                assert lexical_search(conn, terms, filters, limit) == lexical_by_join(conn, terms, filters, limit)
            scoped = lexical_search(conn, ["payments"], cases[1][1], 10)
        assert sorted(i for i, _ in scoped) == sorted(rare)


def test_an_entitys_recent_vectors_are_the_rows_a_single_statement_reads(memory):
    _fill(memory)
    about_billing = events.c.id.in_(["m%04d" % i for i in range(0, 360, 3)])
    filters = [events.c.tenant == "default", about_billing]
    with memory._sql.reader() as conn:  # noqa: SLF001 - the statement under test
        for cap in (7, 50, 1000):
            ids, vectors = memory._sql.embeddings_where(conn, filters, cap)  # noqa: SLF001
            rows = conn.execute(
                select(events.c.id, events.c.embedding)
                .where(events.c.embedding.is_not(None), *filters)
                .order_by(events.c.ts.desc(), events.c.seq.desc())
                .limit(cap)
            ).all()
            assert ids == [r.id for r in rows]
            assert np.array_equal(vectors, np.stack([np.frombuffer(r.embedding, dtype=np.float32) for r in rows]))
