"""query(..., explain=True): which routers ran and why, and what each said about each packet."""

from __future__ import annotations

import asyncio

from deltacore import AsyncDeltaCore
from deltacore.model import QueryExplanation


def _seed(memory) -> None:
    memory.add("alice deployed the billing api on 3 May 2024", actor="alice", entities=["alice"], channel="user")
    memory.add("bob fixed the login bug in the auth service", actor="bob", channel="user")
    memory.add("the billing api runs on port 8443", kind="fact", channel="user")


def test_explain_says_which_routers_the_question_chose_and_why(memory):
    _seed(memory)
    plain = memory.query("when did alice deploy the billing api?", top_k=3)
    explained = memory.query("when did alice deploy the billing api?", top_k=3, explain=True)
    assert isinstance(explained, QueryExplanation)
    # The answer is the same with or without the explanation.
    assert [p.id for p in explained.packets] == [p.id for p in plain]
    assert [p.score for p in explained.packets] == [p.score for p in plain]

    assert explained.chosen_by == "question"
    reasons = {r.name: r.reason for r in explained.routers}
    assert set(reasons) >= {"semantic", "lexical", "entity", "temporal"}
    assert "alice" in reasons["entity"] and reasons["temporal"] == "the question asks when"
    assert "recency" not in reasons  # nothing asked for the latest
    assert explained.analysis["entities"] == ["alice"] and explained.analysis["asks_when"] is True

    top = explained.explanations[0]
    assert top.id == explained.packets[0].id and "alice deployed" in explained.packets[0].text
    # Each router's rank matches the packet's own record of it, and comes with the router's score.
    assert {name: score.rank for name, score in top.routers.items()} == explained.packets[0].routers
    assert top.routers["lexical"].score > 0 and top.routers["entity"].rank == 1
    assert {r.name: r.candidates for r in explained.routers}["entity"] >= 1


def test_explain_shows_the_callers_routers_turned_the_choice_off(memory):
    _seed(memory)
    explained = memory.query("what is the latest on alice?", routers=["lexical"], explain=True)
    assert explained.chosen_by == "caller"
    assert [r.name for r in explained.routers] == ["lexical"]
    assert "named by the caller" in explained.routers[0].reason and "does not choose" in explained.routers[0].reason
    assert all(set(e.routers) <= {"lexical"} for e in explained.explanations)

    preset = memory.query("billing api", routers=["CAUSAL_FIRST"], explain=True)
    assert {r.name: r.stage for r in preset.routers} == {"semantic": "find", "lexical": "find", "causal": "expand"}
    assert all("preset CAUSAL_FIRST" in r.reason for r in preset.routers)


def test_explain_without_text_and_async(backend):
    async def main() -> QueryExplanation:
        async with AsyncDeltaCore(backend.open()) as memory:
            await memory.add("a note", channel="user")
            return await memory.query(explain=True)

    explained = asyncio.run(main())
    assert [r.name for r in explained.routers] == ["recency"]
    assert explained.routers[0].reason == "no question text: the newest memories"
    assert [p.text for p in explained.packets] == ["a note"]
