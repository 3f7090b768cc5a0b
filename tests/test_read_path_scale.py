"""What keeps the read path fast in a large store, and gives the same answers as the slow way.

- A lexical query matches only its rarest terms within a postings budget (common words are
  left out of the match, not rare ones).
- A narrowed semantic search (a time condition) post-filters a plain neighbour pool and falls
  back to the filtered search when the condition is too rare: either way the answer is the
  exact filtered top-k.
- Provenance is walked in one recursive query, to a fixed depth, safely around cycles.

The budgets are made small here so that a few hundred memories exercise the large-store paths.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore import QueryCriteria
from deltacore.delta.mentions import asks_when
from deltacore.retrieval import analyze
from deltacore.retrieval.routers import semantic as semantic_module
from deltacore.retrieval.routers.base import SearchContext, top_by_cosine
from deltacore.storage import fulltext
from deltacore.storage.filters import event_filters
from deltacore.storage.fulltext import TermStatistics, affordable_terms
from deltacore.storage.tables import events
from deltacore.testing import FakeEmbedder


def test_affordable_terms_keep_the_rarest_terms_that_fit_the_budget():
    frequencies = {"service": 900, "deploy": 400, "zanzibar": 3, "kafka": 40, "ghost": 0}
    terms = ["service", "deploy", "zanzibar", "kafka", "ghost"]
    assert affordable_terms(terms, frequencies, budget=50) == ["zanzibar", "kafka"]
    assert affordable_terms(terms, frequencies, budget=500) == ["deploy", "zanzibar", "kafka"]
    # The rarest term is kept even when it alone is over the budget; absent terms never are.
    assert affordable_terms(["service", "ghost"], frequencies, budget=10) == ["service"]
    assert affordable_terms(["ghost"], frequencies, budget=10) == []


def _routine(n: int) -> list[dict]:
    return [{"text": f"service health check number {i} passed for the payments service"} for i in range(n)]


def test_a_common_word_does_not_crowd_out_the_rare_one(memory, monkeypatch):
    memory.ingest(_routine(300))
    rare = memory.add("the zanzibar service rejected the rollout")
    monkeypatch.setattr(fulltext, "POSTINGS_BUDGET", 50)
    packets = memory.query(QueryCriteria(text="zanzibar service", routers=("lexical",), top_k=5))
    assert packets[0].id == rare
    # "service" is in every memory: left out of the match, it no longer pulls in 300 routine rows.
    assert [p.id for p in packets] == [rare]


def test_term_counts_are_cached_and_refreshed_as_the_store_grows(memory):
    memory.ingest(_routine(200))
    statistics = TermStatistics(refresh=0.1)
    with memory._sql.reader() as conn:
        assert statistics.frequencies(conn, ["payments", "zanzibar"]) == {"payments": 200, "zanzibar": 0}
    memory.ingest([{"text": f"zanzibar payments incident {i}"} for i in range(10)])  # +5%: cached
    with memory._sql.reader() as conn:
        assert statistics.frequencies(conn, ["payments", "zanzibar"]) == {"payments": 200, "zanzibar": 0}
    memory.ingest([{"text": f"zanzibar payments outage {i}"} for i in range(30)])  # +20%: recounted
    with memory._sql.reader() as conn:
        assert statistics.frequencies(conn, ["payments", "zanzibar"]) == {"payments": 240, "zanzibar": 40}


def _timed_history(n: int, every: int) -> list[dict]:
    topics = ["billing", "search", "login", "upload", "export", "alerts", "backups", "quotas"]
    out = []
    for i in range(n):
        topic = topics[i % len(topics)]
        if i % every == 0:
            out.append({"text": f"the {topic} migration finished on 2024-03-{1 + i % 28:02d} for tenant {i}"})
        else:
            out.append({"text": f"the {topic} dashboard shows tenant {i} is healthy"})
    return out


def _exact_filtered(memory, question: str, condition, limit: int) -> list[tuple[str, float]]:
    with memory._sql.reader() as conn:
        ids, vectors = memory._sql.embeddings_where(conn, [events.c.tenant == "default", condition], 100_000)
    return top_by_cosine(ids, vectors, memory.embed([question])[0], limit)


@pytest.mark.parametrize("case", ["post-filtered", "filtered-fallback"])
def test_narrowed_semantic_search_returns_the_exact_filtered_neighbours(backend, monkeypatch, case):
    """Post-filtered: "says when", which the question's nearest memories mostly do, so the first
    pool of neighbours holds enough of them. Filtered fallback: the last 11% written, a condition
    unrelated to the text, so a pool of 40 holds too few and the search falls back to Chroma's
    filtered search. (Both keep to where the answer must be exact: deep in a plain pool of
    near-identical texts, HNSW is approximate.)"""
    fallback = case == "filtered-fallback"
    monkeypatch.setattr(semantic_module, "POST_FILTER_POOL", 40 if fallback else 1600)
    filtered_searches = []
    search = semantic_module.semantic_search

    def noting(context, limit, extra_where=()):
        if extra_where:
            filtered_searches.append(extra_where)
        return search(context, limit, extra_where)

    monkeypatch.setattr(semantic_module, "semantic_search", noting)
    question = "when did the billing migration finish"
    start = datetime(2024, 3, 1, tzinfo=timezone.utc)
    history = [
        {**event, "ts": (start + timedelta(hours=i)).isoformat()} for i, event in enumerate(_timed_history(400, every=9))
    ]
    cutoff = (start + timedelta(hours=356)).timestamp()
    # has_time is not in the vector index's metadata, so it has no Chroma clause (None).
    condition, chroma = (events.c.ts >= cutoff, [{"ts": {"$gte": cutoff}}]) if fallback else (events.c.has_time == 1, None)
    with backend.open(hot_capacity=0, embedder=FakeEmbedder()) as memory:
        memory.ingest(history)
        memory.apply_outbox()  # the index is searched directly below: background vector writes first
        criteria = QueryCriteria(text=question)
        with memory._sql.reader() as conn:
            context = SearchContext(
                criteria=criteria, analysis=analyze(question), conn=conn, sql=memory._sql,
                filters=event_filters(criteria), limit=10, index=memory._vectors.current(),
                embed_query=lambda text: memory.embed([text])[0],
            )
            found = semantic_module.semantic_where(context, 10, [condition], chroma)
            passing = set(memory._sql.event_ids_where(conn, [condition]))
        expected = _exact_filtered(memory, question, condition, 10)
    assert len(passing) == (44 if fallback else 45) and len(found) == 10
    assert {item for item, _ in found} <= passing
    assert bool(filtered_searches) == fallback
    # Many memories tie (they differ only in numbers), so compare similarities, not ids: the ten
    # found are as close as the exact ten (up to float32 rounding in Chroma).
    assert [round(score, 4) for _, score in found] == [round(score, 4) for _, score in expected]


def test_when_means_a_time_question_only_when_it_asks_one():
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("And when was the outage fixed?")
    assert asks_when("What date did she move?")
    assert not asks_when("What should I do when geo-locator shows a segmentation fault?")
    assert not asks_when("What did Mel do when she was young?")


def test_provenance_is_walked_to_its_depth_in_one_query(memory):
    ids = [memory.add(f"step {i} of the rollout", episode_id="ep-1") for i in range(6)]
    delta_of = memory._sql.delta_ids_for_events
    with memory._sql.reader() as conn:
        deltas = delta_of(conn, ids)
        chain = [deltas[i] for i in ids]
        walked = memory._sql.ancestry(conn, [chain[-1]], depth=3)
    # Each step's parent is the step before it: three links up from the last step, no further.
    assert walked[chain[5]] == [chain[4]]
    assert walked[chain[4]] == [chain[3]]
    assert walked[chain[3]] == [chain[2]]
    assert chain[2] not in walked
    packets = memory.query(QueryCriteria(text="step 5 of the rollout", include_deltas=True, top_k=1))
    assert packets[0].id == ids[5]
    # Nearest ancestor first; at least the three levels walked for this packet (ancestors walked
    # for the other candidates of the same query may extend it).
    provenance = list(packets[0].provenance)
    assert len(provenance) >= 3
    assert provenance == [chain[4], chain[3], chain[2], chain[1], chain[0]][: len(provenance)]
