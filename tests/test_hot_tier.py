"""The HOT tier answers semantic search in process, and never differently from the warm tier."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from deltacore.storage import HotTier

T0 = datetime(2026, 1, 5, tzinfo=timezone.utc)
TOPICS = ["database backup", "deploy pipeline", "billing invoice", "vpn certificate", "search cluster", "oncall rota"]
QUERIES = [
    "when is the database backup?", "pipeline failed", "invoice for billing", "certificate expiry",
    "cluster nodes search", "who is oncall", "backup deploy", "nothing matches zebra",
]


WORDS = " ".join(TOPICS).split() + (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu red green blue amber violet"
).split()


def history() -> list[dict]:
    import random

    rng = random.Random(7)  # distinct texts, so no two memories tie in similarity
    return [
        {
            "id": f"e{i}",
            "text": " ".join(rng.sample(WORDS, 6)),
            "ts": T0 + timedelta(hours=i),
            "session_id": f"s{i % 3}",
            "kind": "observation" if i % 4 == 0 else "message",
        }
        for i in range(120)
    ]


def semantic_ids(memory, **criteria) -> list[list[str]]:
    return [[p.id for p in memory.query(q, routers=["semantic"], top_k=10, **criteria)] for q in QUERIES]


def test_hot_tier_returns_what_the_warm_tier_returns(backend):
    with backend.open(hot_capacity=0) as warm:
        warm.ingest(history())
        expected = semantic_ids(warm)
        expected_scoped = semantic_ids(warm, session_id="s1", kinds=["message"])
        expected_default = [[p.id for p in warm.query(q, top_k=10)] for q in QUERIES]
    with backend.open(hot_capacity=1000) as hot:
        assert semantic_ids(hot) == expected
        assert semantic_ids(hot, session_id="s1", kinds=["message"]) == expected_scoped
        assert [[p.id for p in hot.query(q, top_k=10)] for q in QUERIES] == expected_default
        assert hot._hot.hits > 0  # noqa: SLF001 - the tier really answered


def test_a_write_from_anywhere_invalidates_the_cached_tenant(backend):
    with backend.open(hot_capacity=1000) as memory:
        memory.ingest(history())
        memory.query("database backup", routers=["semantic"])
        with backend.open(hot_capacity=0) as other_writer:  # another handle: the cache cannot see it
            other_writer.ingest([{"id": "late", "text": "zebra crossing painted"}])
        assert memory.query("zebra crossing", routers=["semantic"], top_k=1)[0].id == "late"
        memory.delete(["late"])
        assert "late" not in {p.id for p in memory.query("zebra crossing", routers=["semantic"])}


def test_a_tenant_too_big_for_the_tier_goes_to_the_warm_tier(backend):
    with backend.open(hot_capacity=50) as memory:
        memory.ingest(history())
        assert semantic_ids(memory)[0]
        assert memory._hot.hits == 0 and len(memory._hot) == 0  # noqa: SLF001


def test_least_recently_used_tenants_are_evicted():
    import numpy as np

    tier = HotTier(capacity=10)
    for name in ("a", "b", "c"):
        tier.load(name, (4, 1), [f"{name}{i}" for i in range(4)], np.eye(4, 8, dtype=np.float32), [{}] * 4)
    assert len(tier) <= 10
    assert tier.lookup("a", (4, 1)) is None and tier.lookup("c", (4, 1)) is not None
