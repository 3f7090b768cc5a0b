"""Honeypot canaries cost the caller's embedder once per store, not once per tenant."""

from __future__ import annotations

import numpy as np

from deltacore import TrustPolicy
from deltacore.gateway.honeypots import canary_id
from deltacore.testing import FakeEmbedder


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting every text it is asked to embed (what a paid API bills)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def __call__(self, input: list[str]) -> np.ndarray:
        self.texts.extend(input)
        return super().__call__(input)


def _canary_count(texts: list[str], written: set[str]) -> int:
    return sum(1 for text in texts if text not in written)


def test_canaries_are_embedded_once_per_store_and_kept(backend):
    embedder = CountingEmbedder()
    written = {f"note for tenant {n}" for n in range(5)}
    with backend.open(embedder=embedder) as memory:
        for n in range(3):
            memory.add(f"note for tenant {n}", tenant=f"t{n}", channel="user")
        hits = memory._honeypots.canaries("t2")[0]  # every tenant is protected ...
        assert sorted(hits) == sorted(canary_id("t2", number) for number in range(4))
    assert _canary_count(embedder.texts, written) == 4  # ... for one embedding of 4 canaries, not 3 x 4

    again = CountingEmbedder()
    with backend.open(embedder=again) as memory:  # a new process: the vectors were kept
        memory.add("note for tenant 3", tenant="t3", channel="user")
        assert len(memory._honeypots.canaries("t3")[0]) == 4
    assert _canary_count(again.texts, written) == 0


def test_a_query_probing_a_copied_canary_still_alerts(backend):
    with backend.open() as memory:
        memory.add("first tenant's note", tenant="a", channel="user")
        memory.add("second tenant's note", tenant="b", channel="user")
        _, tokens, _ = memory._honeypots.canaries("b")
        memory.query(" ".join(sorted(tokens[0])), tenant="b")
        assert [e.kind for e in memory.security_events(kind="HONEYPOT_TRIGGERED", tenant="b")] == ["HONEYPOT_TRIGGERED"]


def test_callers_can_turn_canaries_off(backend):
    embedder = CountingEmbedder()
    with backend.open(embedder=embedder, trust=TrustPolicy(honeypots=0)) as memory:
        memory.add("a note", channel="user")
        memory.query("a note")
        assert memory._honeypots.canaries("default")[0] == []
    assert embedder.texts == ["a note", "a note"]  # the write and the query, nothing else
