"""Delete removes rows, full-text entries and vectors together; reindex rebuilds from SQL."""

from __future__ import annotations

import pytest

from deltacore import ConfigurationError, InvalidQueryError
from deltacore.testing import FakeEmbedder


def seed(memory):
    memory.ingest([
        {"id": "a1", "text": "Alice asked to cancel the Tuesday standup", "entities": ["Alice"], "session_id": "s1"},
        {"id": "a2", "text": "standup moved to Wednesday at ten", "actor": "Alice", "session_id": "s1", "parent_ids": ["a1"]},
        {"id": "b1", "text": "Bob owns the standup notes", "entities": ["Bob"], "user_id": "bob", "session_id": "s2"},
        {"id": "c1", "text": "the standup bot posts a summary", "agent_id": "bot", "session_id": "s2"},
    ])


def everything_finds(memory, text):
    """Ids found by each router on its own: a deleted event must vanish from all of them."""
    return {
        router: {p.id for p in memory.query(text, routers=[router], top_k=50)}
        for router in ("semantic", "lexical", "recency")
    }


def test_delete_by_id_removes_it_from_every_index(memory):
    seed(memory)
    result = memory.delete(["a2"])
    assert result.event_ids == ["a2"] and result.deltas_removed == 1 and result.links_removed == 1
    for router, found in everything_finds(memory, "standup Wednesday").items():
        assert "a2" not in found, router
        assert "a1" in found or router == "recency"
    stats = memory.stats()
    assert stats.events == stats.deltas == stats.vectors == 3 and stats.links == 0


def test_delete_by_entity(memory):
    seed(memory)
    result = memory.delete(entity="alice")
    assert sorted(result.event_ids) == ["a1", "a2"]  # listed as entity, and spoken by Alice
    found = everything_finds(memory, "Alice standup")
    assert all(not ({"a1", "a2"} & ids) for ids in found.values())
    assert memory.stats().vectors == 2


def test_delete_by_scope_and_by_combined_selectors(memory):
    seed(memory)
    assert memory.delete(session_id="s2", agent_id="bot").event_ids == ["c1"]
    assert sorted(memory.delete(session_id="s1").event_ids) == ["a1", "a2"]
    assert [p.id for p in memory.query("standup")] == ["b1"]


def test_delete_needs_a_selector_and_ignores_other_tenants(memory):
    seed(memory)
    with pytest.raises(InvalidQueryError):
        memory.delete()
    assert memory.delete(["a1"], tenant="someone-else").event_ids == []
    assert memory.delete(["no-such-id"]).event_ids == []
    assert memory.stats().events == 4


def test_reindex_rebuilds_the_vector_index_from_sql(memory):
    seed(memory)
    before = [p.id for p in memory.query("standup notes owner", routers=["semantic"])]
    assert memory.reindex() == 4
    after = [p.id for p in memory.query("standup notes owner", routers=["semantic"])]
    assert after == before and memory.stats().vectors == 4


def test_opening_with_another_embedder_is_refused_until_reembedded(backend):
    with backend.open() as memory:
        seed(memory)
    with pytest.raises(ConfigurationError) as info:
        with backend.open(embedder=FakeEmbedder(dimension=32)) as other:
            other.query("standup")
    assert info.value.field == "embedder" and "reembed" in str(info.value)
    with backend.open(embedder=FakeEmbedder(dimension=32), allow_embedder_change=True) as other:
        assert other.reindex(reembed=True) == 4
        assert other.query("Bob standup notes", routers=["semantic"])[0].id == "b1"
    with backend.open(embedder=FakeEmbedder(dimension=32)) as reopened:  # now the store's embedder
        assert reopened.query("standup", top_k=1)
