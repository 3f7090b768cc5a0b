"""Narrowed searches (an entity, a time condition) in a large store: fast, and still exact.

- The query's plain nearest neighbours are searched once and shared: the entity and temporal
  routers post-filter them instead of searching the vector index again.
- An entity's semantic matches come from that pool when it holds enough of them (exact: any
  member outside the pool is farther than every one in it), else from a scan of the entity.
- SQLite's full-text index carries what a memory is about (entity and has_time tokens), so a
  lexical search within an entity or within timed memories is one FTS5 intersection: the same
  matches, in the same order, as joining every text match to the entity index.
- A store written before those tokens existed gets them when it is opened.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import or_, select

from deltacore import DeltaCore, QueryCriteria
from deltacore.retrieval import analyze
from deltacore.retrieval.routers import semantic as semantic_module
from deltacore.retrieval.routers.base import SearchContext, top_by_cosine
from deltacore.storage import ChromaIndex
from deltacore.storage.filters import event_filters
from deltacore.storage.fulltext import about_text, about_token, lexical_search, timed_token
from deltacore.storage.tables import event_entities, events, mentions
from deltacore.testing import FakeEmbedder

PEOPLE = ["Priya", "Marco", "Lena", "Tomas", "Aiko", "Noor"]
SERVICES = ["billing", "search", "checkout", "ledger", "payments", "gateway"]


def _history(n: int = 400, seed: int = 3) -> list[dict]:
    """Priya says most things; Noor says a few; some texts say when."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 2, 9, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        person = "Priya" if i % 3 else rng.choice(PEOPLE[1:])
        svc = rng.choice(SERVICES)
        when = f" on {(start + timedelta(days=i)).strftime('%B %d')}" if i % 4 == 0 else ""
        out.append({
            "id": f"m{i:04d}",
            "ts": (start + timedelta(hours=7 * i)).isoformat(),
            "text": f"{person} {rng.choice(['deployed', 'rolled back', 'fixed', 'tested'])} {svc}{when}",
            "actor": person,
            "role": "user",
            "entities": [svc],
        })
    return out


def _about(tenant: str, names: list[str]):
    return or_(
        events.c.id.in_(select(mentions.c.event_id).where(mentions.c.tenant == tenant, mentions.c.name.in_(names))),
        events.c.id.in_(
            select(event_entities.c.event_id).where(event_entities.c.tenant == tenant, event_entities.c.entity.in_(names))
        ),
    )


def test_about_tokens_are_single_stable_tokens():
    assert about_token("t", "priya") == about_token("t", "priya") != about_token("t", "marco")
    assert about_token("t", "priya") != about_token("other tenant", "priya")
    # Whatever the name's characters: one token of a letter and digits (no split, no stemming).
    for name in ("billing-api", "new york", "ōsaka", "c++", "decided"):
        token = about_token("t", name)
        assert token[0] == "k" and token[1:].isdigit()
    assert about_text("t", ["priya", "billing", "priya"], has_time=True).split() == [
        about_token("t", "priya"), about_token("t", "billing"), timed_token("t")
    ]


def test_lexical_search_within_an_entity_or_timed_memories_matches_the_join(tmp_path, lexical_by_join):
    with DeltaCore.open(path=tmp_path / "store", embedder=FakeEmbedder(), hot_capacity=0) as memory:
        memory.ingest(_history())
        cases = [
            (["deployed", "billing"], [_about("default", ["noor"])], [about_token("default", "noor")]),
            (["fixed"], [_about("default", ["priya"])], [about_token("default", "priya")]),
            (["ledger", "tested"], [_about("default", ["noor", "ledger"])], [about_token("default", "noor"), about_token("default", "ledger")]),
            (["rolled", "search"], [events.c.has_time == 1], [timed_token("default")]),
            (["nothing"], [_about("default", ["noor"])], [about_token("default", "noor")]),
        ]
        with memory._sql.reader() as conn:  # noqa: SLF001 - the statements under test
            for terms, condition, tokens in cases:
                filters = [events.c.tenant == "default", *condition]
                for limit in (3, 50):
                    expected = lexical_by_join(conn, terms, filters, limit)
                    assert lexical_search(conn, terms, filters, limit, about=tokens) == expected, terms
            assert lexical_search(conn, ["deployed"], [events.c.tenant == "default", _about("default", ["noor"])], 50,
                                  about=[about_token("default", "noor")])  # finds something: equality means something


def test_a_store_written_before_the_about_tokens_gets_them_when_opened(tmp_path):
    path = tmp_path / "store"
    with DeltaCore.open(path=path, embedder=FakeEmbedder(), hot_capacity=0) as memory:
        memory.ingest(_history(120))
        before = [p.id for p in memory.query("what did Noor deploy?", routers=["entity"], top_k=10)]
        # Put the store back to the previous schema: no tokens, a one-column full-text index.
        with memory._sql.writer() as conn:  # noqa: SLF001
            conn.exec_driver_sql("UPDATE dc_events SET about = NULL")
            for trigger in ("dc_events_fts_ai", "dc_events_fts_ad", "dc_events_fts_au"):
                conn.exec_driver_sql(f"DROP TRIGGER {trigger}")
            conn.exec_driver_sql("DROP TABLE dc_events_fts")
            conn.exec_driver_sql(
                "CREATE VIRTUAL TABLE dc_events_fts USING fts5(text, content='dc_events', content_rowid='seq', "
                "tokenize='porter unicode61')"
            )
            conn.exec_driver_sql("INSERT INTO dc_events_fts(dc_events_fts) VALUES ('rebuild')")
            conn.exec_driver_sql("UPDATE dc_store_meta SET value = '10' WHERE key = 'schema_version'")
    with DeltaCore.open(path=path, embedder=FakeEmbedder(), hot_capacity=0) as memory:
        with memory._sql.reader() as conn:  # noqa: SLF001
            missing = conn.exec_driver_sql("SELECT count(*) FROM dc_events WHERE about IS NULL").scalar()
        assert missing == 0
        assert [p.id for p in memory.query("what did Noor deploy?", routers=["entity"], top_k=10)] == before
        # New writes and deletes keep the two-column index in step.
        new = memory.add("Noor deployed the gateway hotfix", actor="Noor", role="user")
        assert new in [p.id for p in memory.query("Noor deployed gateway hotfix", routers=["entity"], top_k=5)]
        memory.delete([new])
        assert new not in [p.id for p in memory.query("Noor deployed gateway hotfix", routers=["entity"], top_k=5)]


def _context(memory: DeltaCore, conn, question: str, limit: int) -> SearchContext:
    criteria = QueryCriteria(text=question)
    return SearchContext(
        criteria=criteria, analysis=analyze(question, conn, "default"), conn=conn, sql=memory._sql,  # noqa: SLF001
        filters=event_filters(criteria), limit=limit, index=memory._vectors.current(),  # noqa: SLF001
        embed_query=lambda text: memory.embed([text])[0], neighbour_pool=limit * semantic_module.POOL_FACTOR,
    )


@pytest.mark.parametrize("person", ["priya", "noor"], ids=["dense-entity-from-the-pool", "sparse-entity-scanned"])
def test_an_entitys_semantic_matches_are_the_exact_ones(backend, person):
    question = f"what did {person} deploy to billing?"
    with backend.open(hot_capacity=0, embedder=FakeEmbedder()) as memory:
        memory.ingest(_history())
        memory.apply_outbox()  # the index is searched directly below: background vector writes first
        with memory._sql.reader() as conn:  # noqa: SLF001
            condition = _about("default", [person])
            found = semantic_module.semantic_within(_context(memory, conn, question, 10), [condition], 10)
            ids, vectors = memory._sql.embeddings_where(conn, [events.c.tenant == "default", condition], 100_000)  # noqa: SLF001
        expected = top_by_cosine(ids, vectors, memory.embed([question])[0], 10)
    assert len(found) == 10
    assert set(i for i, _ in found) <= set(ids)
    # Compare similarities (near-identical texts may tie), to float32 rounding in Chroma.
    assert [round(s, 4) for _, s in found] == [round(s, 4) for _, s in expected]


@pytest.mark.parametrize(
    ("person", "scan_cap"),
    [("priya", 1500), ("priya", 50), ("noor", 50)],
    ids=["entity-scanned-whole", "entity-over-the-cap-from-the-pool", "entity-under-the-cap-scanned"],
)
def test_an_entitys_semantic_matches_through_its_tokens_are_the_exact_ones(backend, monkeypatch, person, scan_cap):
    """The entity router's way (the condition also given as full-text tokens): on SQLite an entity
    of at most SCAN_CAP memories is scanned whole from its posting list, a larger one is served by
    the plain pool when that holds enough of it. Either way, the exact nearest."""
    monkeypatch.setattr(semantic_module, "SCAN_CAP", scan_cap)
    question = f"what did {person} deploy to billing?"
    with backend.open(hot_capacity=0, embedder=FakeEmbedder()) as memory:
        memory.ingest(_history())
        memory.apply_outbox()  # the index is searched directly below: background vector writes first
        with memory._sql.reader() as conn:  # noqa: SLF001
            condition = _about("default", [person])
            context = _context(memory, conn, question, 10)
            found = semantic_module.semantic_within(context, [condition], 10, [about_token("default", person)])
            ids, vectors = memory._sql.embeddings_where(conn, [events.c.tenant == "default", condition], 100_000)  # noqa: SLF001
        expected = top_by_cosine(ids, vectors, memory.embed([question])[0], 10)
    assert len(ids) > 20 and len(found) == 10
    assert [round(s, 4) for _, s in found] == [round(s, 4) for _, s in expected]


def test_a_query_searches_the_vector_index_once_for_all_its_routers(backend, monkeypatch):
    searches = []
    original = ChromaIndex.query

    def counting(self, tenant, vector, limit, where):
        searches.append((limit, where))
        return original(self, tenant, vector, limit, where)

    monkeypatch.setattr(ChromaIndex, "query", counting)
    # dedupe="content": the history repeats texts at other times, and this test wants the dated
    # ones to be among few candidates, as one copy per text.
    with backend.open(hot_capacity=0, embedder=FakeEmbedder(), dedupe="content") as memory:
        memory.ingest(_history())
        searches.clear()
        packets = memory.query("When did Priya deploy billing?", top_k=5)
    assert packets
    # semantic, entity (Priya) and temporal ("when") all ran; one plain search served them.
    assert {name for p in packets for name in p.routers} >= {"entity", "temporal"}
    assert len(searches) == 1 and searches[0][1] is None


def test_a_when_question_prefers_timed_memories_near_it(backend):
    question = "when was checkout fixed?"
    with backend.open(hot_capacity=0, embedder=FakeEmbedder()) as memory:
        memory.ingest(_history())
        memory.apply_outbox()  # the index is searched directly below: background vector writes first
        with memory._sql.reader() as conn:  # noqa: SLF001
            context = _context(memory, conn, question, 10)
            found = semantic_module.semantic_where(context, 10, [events.c.has_time == 1], None)
            pool = semantic_module.plain_neighbours(context, 10 * semantic_module.POOL_FACTOR)
            timed = set(memory._sql.event_ids_where(conn, [events.c.has_time == 1]))  # noqa: SLF001
    expected = [(i, s) for i, s in pool if i in timed][:10]
    assert found and found == expected
