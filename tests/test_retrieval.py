"""Retrieval: each router on a hand-made history, fusion and packing properties, backend parity.

The history is small and hand-made so that each router's case is solvable *only* by that router:
every case first shows that plain semantic + lexical search (``HYBRID``) gets it wrong, then that
the router alone (``routers=[name]``) and the automatic routing get it right. The embedder is
``FakeEmbedder`` (hashed bag of words), so "semantic similarity" is word overlap and every
ranking here is deterministic.
"""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timezone

import pytest
from sqlalchemy import update

from deltacore import DeltaCore, InvalidQueryError, MemoryFlag, MemoryPacket, QueryCriteria
from deltacore.delta.mentions import has_time_expression
from deltacore.governor import count_tokens
from deltacore.retrieval import PRESETS, analyze, choose_routers, pack
from deltacore.retrieval.fusion import normalized_score_fusion, reciprocal_rank_fusion
from deltacore.storage.fulltext import query_terms
from deltacore.storage.tables import deltas
from deltacore.testing import FakeEmbedder

UTC = timezone.utc


def at(month: int, day: int, hour: int = 10, minute: int = 0) -> datetime:
    return datetime(2024, month, day, hour, minute, tzinfo=UTC)


# ---- the history ------------------------------------------------------------------------------
#
# Speakers (actor): Priya, Marco, Lena, an assistant and its deploy tool; six months of 2024;
# conversations are sessions and episodes (an episode's turns are chained in time order).


def _conversation(session: str, episode: str | None, turns: list[tuple]) -> list[dict]:
    events = []
    for event_id, ts, actor, text, *extra in turns:
        event = {"id": event_id, "ts": ts, "text": text, "actor": actor, "role": "user", "session_id": session}
        if episode:
            event["episode_id"] = episode
        if extra:
            event.update(extra[0])
        events.append(event)
    return events


def history() -> list[dict]:
    events: list[dict] = []
    # January: Priya decides; the others talk *about* deciding (the entity case).
    events += _conversation("s-jan", "ep-jan", [
        ("jan-01", at(1, 8, 9, 0), "Marco", "Kickoff for project Atlas with the whole group."),
        ("jan-02", at(1, 8, 9, 5), "Priya", "I like the new logo and the colour palette."),
        ("jan-03", at(1, 8, 9, 10), "Marco", "Did the board decide on the budget yet?"),
        ("jan-04", at(1, 8, 9, 15), "Lena", "They decided to wait until the audit."),
        ("jan-05", at(1, 8, 9, 20), "Priya", "I decided we ship the beta without the export feature."),
        ("jan-06", at(1, 8, 9, 25), "Marco", "Fine by me, I will tell the sales team."),
    ])
    # February: only feb-03 says *when* the migration happened (the "when" case); the plan and
    # the owner share more words with the question.
    events += _conversation("s-feb", "ep-feb", [
        ("feb-01", at(2, 12, 14, 0), "Marco",
         "The database migration plan: the team will migrate the database to the new cluster."),
        ("feb-02", at(2, 12, 14, 5), "Priya", "Database migration owner is Lena; the team reviews the migration runbook."),
        ("feb-03", at(2, 26, 16, 0), "Lena", "We finished the database migration last Tuesday, without downtime."),
    ])
    # March: the named-month case; none of these texts says "happened".
    events += _conversation("s-mar", "ep-mar", [
        ("mar-01", at(3, 4), "Lena", "Security review of the payments API found two medium issues."),
        ("mar-02", at(3, 14), "Marco", "Priya presented the roadmap to the investors."),
        ("mar-03", at(3, 27), "Lena", "The office plants were replaced by the landlord."),
    ])
    # April: a deploy run (request -> tool call -> tool result -> reply) and a question/answer
    # pair; the tool result and the answer share no word with the questions that reach them.
    events += [
        {"id": "apr-01", "ts": at(4, 9, 10, 0), "text": "Please deploy the billing service to staging.",
         "actor": "Marco", "role": "user", "session_id": "s-apr", "episode_id": "run-deploy"},
        {"id": "apr-02", "ts": at(4, 9, 10, 1), "kind": "tool_call", "text": "deploy billing service to staging",
         "tool_name": "deploy", "tool_args": {"service": "billing", "env": "staging"},
         "actor": "assistant", "role": "assistant", "session_id": "s-apr", "episode_id": "run-deploy"},
        {"id": "apr-03", "ts": at(4, 9, 10, 3), "kind": "tool_result",
         "text": "exit code 137: container killed, out of memory", "tool_name": "deploy",
         "parent_ids": ["apr-02"], "meta": {"status": "error"},
         "role": "tool", "session_id": "s-apr", "episode_id": "run-deploy"},
        {"id": "apr-04", "ts": at(4, 9, 10, 4), "text": "Raising the memory limit to 2 GiB and retrying.",
         "actor": "assistant", "role": "assistant", "session_id": "s-apr", "episode_id": "run-deploy"},
    ]
    events += _conversation("s-apr-qa", "ep-qa", [
        ("apr-10", at(4, 20, 9, 0), "Marco", "Which port should the billing service use?"),
        ("apr-11", at(4, 20, 9, 2), "Lena", "Eighty-four forty-three; nine thousand is taken by metrics."),
    ])
    events += _conversation("s-apr-2", None, [
        ("apr-12", at(4, 22, 9), "Priya", "Sorry, I was offline yesterday."),
    ])
    # May: three equally relevant facts (the belief case) and two equally relevant outcomes
    # with opposite rewards (the utility case). The ids that would win an id tie-break are the
    # ones the routers must push down.
    events += [
        {"id": f"wifi-{n}", "ts": at(5, 8, 9), "kind": "fact", "text": f"The guest wifi password is {word}.",
         "session_id": f"s-cfg-{n}"}
        for n, word in ((1, "pelican"), (2, "heron"), (3, "osprey"))
    ]
    events += [
        {"id": f"fix-{n}", "ts": at(5, 15, 9), "kind": "outcome", "text": "Restarting the cache fixed the checkout latency.",
         "meta": {"reward": reward}, "session_id": f"s-ops-{n}"}
        for n, reward in ((1, -1.0), (2, 1.0))
    ]
    # Status updates (the recency case): the oldest is the shortest, so it is the best word match.
    events += _conversation("s-status", None, [
        ("status-feb", at(2, 20, 9), "Marco", "Status: red, export blocked."),
        ("status-may", at(5, 20, 9), "Lena", "Status update: amber, QA pending."),
        ("offsite", at(6, 1, 9), "Marco", "Nothing much happened at the offsite."),
        ("status-jun", at(6, 3, 9), "Priya", "Status update: green, beta shipped."),  # the newest memory
    ])
    return events


HISTORY = history()
BY_ID = {event["id"]: event for event in HISTORY}
MARCH = {event["id"] for event in HISTORY if event["ts"].month == 3}


def seed(memory: DeltaCore) -> None:
    result = memory.ingest(HISTORY)
    assert not result.rejected and not result.duplicates and len(result.stored) == len(HISTORY)


def ids(packets: list[MemoryPacket]) -> list[str]:
    return [p.id for p in packets]


def found(memory: DeltaCore, text: str, **criteria) -> list[str]:
    return ids(memory.query(text, **criteria))


def by_id(packets: list[MemoryPacket]) -> dict[str, MemoryPacket]:
    return {p.id: p for p in packets}


def analysis(memory: DeltaCore, text: str):
    with memory._sql.engine.connect() as conn:  # noqa: SLF001 - analyze() needs the store's connection
        return analyze(text, conn, "default")


def auto_routers(memory: DeltaCore, text: str, **criteria) -> dict[str, float]:
    return choose_routers(QueryCriteria(text=text, **criteria), analysis(memory, text))


def set_conflict_flags(memory: DeltaCore, event_id: str, flags: list[str]) -> None:
    # No public API sets conflict flags yet (the belief layer arrives with its issue), so the test
    # writes them straight into dc_deltas, on the store's own engine.
    with memory._sql.engine.begin() as conn:  # noqa: SLF001
        changed = conn.execute(update(deltas).where(deltas.c.event_id == event_id).values(conflict_flags=flags))
        assert changed.rowcount == 1


# ---- temporal ---------------------------------------------------------------------------------


def test_temporal_router_answers_when_questions_and_named_months(memory):
    seed(memory)
    question = "When did the team migrate the database?"
    assert analysis(memory, question).asks_when
    assert "temporal" in auto_routers(memory, question)
    assert found(memory, question, routers=["HYBRID"])[0] == "feb-01"  # the plan: more words in common

    alone = memory.query(question, routers=["temporal"])
    assert alone[0].id == "feb-03"
    assert all(has_time_expression(p.text) for p in alone)  # only memories that say when
    for routers in ([], ["TEMPORAL"]):
        packets = memory.query(question, routers=routers)
        assert packets[0].id == "feb-03", routers
        assert "temporal" in packets[0].routers
    answer = memory.query(question, top_k=1)[0]
    # "last Tuesday" is resolved by the reader against the memory's own timestamp.
    assert answer.ts == BY_ID["feb-03"]["ts"] == memory.get("feb-03").ts

    # A named month and year: that month's memories, first.
    question = "What was going on in March 2024?"
    named = analysis(memory, question).time_range
    assert (named.start, named.end) == (at(3, 1, 0), at(4, 1, 0))
    assert "temporal" in auto_routers(memory, question)
    assert set(found(memory, question, routers=["HYBRID"])[: len(MARCH)]) != MARCH

    assert set(found(memory, question, routers=["temporal"], top_k=20)) == MARCH  # only that month
    for routers in ([], ["TEMPORAL"]):
        packets = memory.query(question, routers=routers, top_k=10)
        assert set(ids(packets[: len(MARCH)])) == MARCH, routers
        assert all(p.ts.month == 3 and "temporal" in p.routers for p in packets[: len(MARCH)])


def test_a_named_month_beats_a_word_match_from_another_month(memory):
    seed(memory)
    question = "what happened in March 2024?"
    assert set(found(memory, question, routers=["temporal"], top_k=20)) == MARCH
    for routers in ([], ["TEMPORAL"]):
        assert set(found(memory, question, routers=routers)[: len(MARCH)]) == MARCH, routers


@pytest.mark.parametrize(
    "question, must_reach",
    [
        ("what changed since March 2024?", at(5, 1)),
        ("what happened after March 2024?", at(5, 1)),
        ("what did we use before March 2024?", at(1, 15)),
        ("what happened since 2023?", at(5, 1)),
    ],
)
def test_an_open_ended_range_is_not_read_as_that_period_alone(question, must_reach):
    named = analyze(question).time_range
    assert named is None or named.start <= must_reach < named.end


# ---- entity -----------------------------------------------------------------------------------


def test_entity_speaker_index_links_a_name_to_first_person_turns(memory):
    seed(memory)
    assert "priya" not in BY_ID["jan-05"]["text"].lower()  # only the speaker index links them
    for question in ("What did Priya decide?", "what did priya decide"):  # a speaker's name, any case
        assert analysis(memory, question).entities == ("priya",), question
        assert "entity" in auto_routers(memory, question)
        assert found(memory, question, routers=["HYBRID"])[0] != "jan-05"

        alone = memory.query(question, routers=["entity"])
        assert alone[0].id == "jan-05", question
        assert all(p.actor == "Priya" or "Priya" in p.text for p in alone)
        for routers in ([], ["ENTITY"]):
            ranking = found(memory, question, routers=routers, top_k=10)
            assert ranking[0] == "jan-05", (question, routers)  # above the others' turns about deciding
            assert "entity" in memory.query(question, routers=routers, top_k=1)[0].routers

    # Unknown names, and lower-case words that are no speaker's name, do not trigger it.
    for question in ("What did Zorblax decide?", "What did Priyanka decide?", "what did atlas decide"):
        assert analysis(memory, question).entities == (), question
        assert "entity" not in auto_routers(memory, question), question
        assert memory.query(question, routers=["entity"]) == [], question
    # A capitalised name mentioned in a memory is known; lower-case, only a speaker's name is.
    assert analysis(memory, "What did Atlas decide?").entities == ("atlas",)
    assert analyze("What did Priya decide?").entities == ()  # no store, no known entities


# ---- causal -----------------------------------------------------------------------------------


CAUSAL_CASES = [
    ("deploy the billing service to staging", "apr-02", "apr-03"),  # tool call -> its result
    ("Which port should the billing service use?", "apr-10", "apr-11"),  # question -> answer
]


def test_causal_router_brings_the_next_step_that_shares_no_word(memory):
    seed(memory)
    top_k = 4
    for question, hit, next_step in CAUSAL_CASES:
        assert not set(query_terms(question)) & set(query_terms(BY_ID[next_step]["text"]))
        hybrid = found(memory, question, routers=["HYBRID"], top_k=top_k)
        assert hit in hybrid and next_step not in hybrid, question
        for routers in ([], ["CAUSAL_FIRST"], ["semantic", "lexical", "causal"]):
            packets = by_id(memory.query(question, routers=routers, top_k=top_k))
            assert hit in packets and next_step in packets, (question, routers)
            assert "causal" in packets[next_step].routers, (question, routers)
        # The link is the stored provenance: the hit is the next step's causal parent.
        chain = memory.query_causal(next_step, depth=1)
        assert BY_ID[hit]["text"] in {d.result for d in chain.deltas.values()}


def test_a_stage_two_router_alone_is_not_silently_empty(memory):
    seed(memory)
    for router in ("causal", "utility", "belief"):
        try:
            packets = memory.query("deploy the billing service to staging", routers=[router])
        except InvalidQueryError as exc:
            assert exc.field == "routers"
        else:
            assert packets, f"routers=[{router!r}] returned nothing and raised nothing"


# ---- belief (stale / contradicted) ------------------------------------------------------------


def test_belief_router_pushes_doubted_facts_down_and_exclude_stale_hides_stale_ones(memory):
    seed(memory)
    question = "what is the guest wifi password?"
    wifi = ["wifi-1", "wifi-2", "wifi-3"]
    hybrid = memory.query(question, routers=["HYBRID"])
    assert ids(hybrid[:3]) == wifi and len({p.score for p in hybrid[:3]}) == 1  # equally relevant
    set_conflict_flags(memory, "wifi-1", ["stale"])
    set_conflict_flags(memory, "wifi-2", ["contradicted"])

    for routers in (["HYBRID", "belief"], []):
        packets = memory.query(question, routers=routers)
        assert ids(packets[:3]) == ["wifi-3", "wifi-1", "wifi-2"], routers  # contradicted costs more
        assert "belief" in packets[0].routers
    flagged = by_id(memory.query(question))
    assert flagged["wifi-1"].flags == {MemoryFlag.STALE} and flagged["wifi-1"].stale
    assert flagged["wifi-2"].flags == {MemoryFlag.CONTRADICTED} and flagged["wifi-2"].conflicted
    assert flagged["wifi-3"].flags == frozenset()
    assert {f for d in flagged["wifi-1"].deltas for f in d.conflict_flags} == {"stale"}

    shown = by_id(memory.query(question, exclude_stale=True))
    assert "wifi-1" not in shown and "wifi-3" in shown
    assert shown["wifi-2"].conflicted  # contradicted is flagged, not hidden, by exclude_stale
    assert "wifi-1" in by_id(memory.query(question, routers=["HYBRID"]))  # nothing is deleted


# ---- utility ----------------------------------------------------------------------------------


def test_utility_router_puts_the_memory_that_proved_useful_first(memory):
    seed(memory)
    question = "what fixed the checkout latency?"
    hybrid = memory.query(question, routers=["HYBRID"])
    assert ids(hybrid[:2]) == ["fix-1", "fix-2"] and hybrid[0].score == hybrid[1].score  # a tie
    assert "utility" not in auto_routers(memory, question)
    assert "utility" in auto_routers(memory, question, action="outcome")

    for criteria in ({"routers": ["UTILITY"]}, {"action": "outcome"}, {"routers": ["UTILITY"], "action": "outcome"}):
        packets = memory.query(question, **criteria)
        assert ids(packets[:2]) == ["fix-2", "fix-1"], criteria
        assert "utility" in packets[0].routers
        assert packets[0].utility > packets[1].utility  # reward +1 against reward -1
    assert {p.kind.value for p in memory.query(question, action="outcome")} == {"outcome"}


# ---- recency ----------------------------------------------------------------------------------

NEWEST_FIRST = [e["id"] for e in sorted(HISTORY, key=lambda e: e["ts"], reverse=True)]


def test_recency_is_chosen_for_latest_questions_and_orders_by_time(memory):
    seed(memory)
    question = "what is the latest status?"
    assert analysis(memory, question).wants_recent
    assert "recency" in auto_routers(memory, question)
    assert "recency" not in auto_routers(memory, "what is the guest wifi password?")
    assert auto_routers(memory, "") == {"recency": 1.0}

    for routers in (["recency"], ["RECENT"]):
        packets = memory.query(question, routers=routers, top_k=8)
        assert packets[0].id == NEWEST_FIRST[0] == "status-jun", routers
        stamps = [p.ts for p in packets]
        assert stamps == sorted(stamps, reverse=True)
    assert found(memory, None, top_k=3) == NEWEST_FIRST[:3]  # no text: the newest memories


def test_latest_question_returns_the_newest_status_first(memory):
    seed(memory)
    question = "what is the latest status?"
    assert found(memory, question, routers=["HYBRID"])[0] == "status-feb"  # the best word match
    assert found(memory, question)[0] == "status-jun"


# ---- presets and router names -----------------------------------------------------------------

PRESET_CASES = {
    "HYBRID": ("what is the guest wifi password?", "wifi-1"),
    "TEMPORAL": ("When did the team migrate the database?", "feb-03"),
    "CAUSAL_FIRST": ("Which port should the billing service use?", "apr-10"),
    "ENTITY": ("What did Priya decide?", "jan-05"),
    "UTILITY": ("what fixed the checkout latency?", "fix-2"),
    "RECENT": ("what is the latest status?", "status-jun"),
}


def test_presets_run_their_routers_and_answer_their_case(memory):
    seed(memory)
    assert set(PRESET_CASES) == set(PRESETS)
    for name, (question, expected) in PRESET_CASES.items():
        packets = memory.query(question, routers=[name], top_k=5)
        assert packets and packets[0].id == expected, name
        used = {router for p in packets for router in p.routers}
        assert used <= set(PRESETS[name]), name
    # Presets and router names combine; the later one sets a weight both name.
    assert auto_routers(memory, "x", routers=["HYBRID", "causal"]) == {"semantic": 1.0, "lexical": 1.0, "causal": 0.7}
    assert auto_routers(memory, "x", routers=["HYBRID", "semantic"]) == {"semantic": 0.7, "lexical": 1.0}
    with pytest.raises(InvalidQueryError) as raised:  # end to end (the pure cases are below)
        memory.query("deploy", routers=["HYBRID", "telepathy"])
    assert raised.value.field == "routers"


def test_an_unknown_router_name_is_an_invalid_query_naming_the_field():
    for routers in (["semantic", "telepathy"], ["hybrid"], ["Semantic"], ["HYBRID", ""], "telepathy"):
        criteria = QueryCriteria(text="deploy", routers=routers)
        with pytest.raises(InvalidQueryError) as raised:
            choose_routers(criteria, analyze(criteria.text))
        assert raised.value.field == "routers", routers
        assert isinstance(raised.value, ValueError)
    assert "telepathy" in str(raised.value)


# ---- fusion (pure functions) ------------------------------------------------------------------

FUSIONS = {
    "rrf": lambda ranked, weights=None, depth=None: reciprocal_rank_fusion(ranked, weights),
    "scores": normalized_score_fusion,
}


def _random_lists(rng: random.Random) -> tuple[dict[str, list[tuple[str, float]]], dict[str, float]]:
    pool = [f"m{i:02d}" for i in range(rng.randint(2, 15))]
    ranked = {}
    for r in range(rng.randint(1, 5)):
        items = rng.sample(pool, rng.randint(0, len(pool)))
        scores = sorted((rng.choice([1.0, 0.9, 0.5, 0.5, 0.3, 0.25, 0.1, 0.0]) for _ in items), reverse=True)
        ranked[f"r{r}"] = list(zip(items, scores))
    weights = {name: rng.choice([0.3, 0.5, 0.7, 1.0, 1.5]) for name in ranked}
    return ranked, weights


def _order(fuse, ranked, weights, depth=None) -> list[str]:
    return [item for item, _, _ in fuse(ranked, weights, depth=depth)]


@pytest.mark.parametrize("fusion", FUSIONS)
def test_fusion_ties_break_by_id_and_simple_inputs_do_not_depend_on_router_order(fusion):
    fuse = FUSIONS[fusion]
    lists = {"a": [("x", 3.0), ("y", 2.0), ("z", 1.0)], "b": [("y", 9.0), ("w", 1.0)], "c": [("z", 1.0)]}
    orders = {tuple(_order(fuse, dict(p), None, depth=50)) for p in itertools.permutations(lists.items())}
    assert len(orders) == 1
    assert _order(fuse, {"a": [("q", 1.0)], "b": [("p", 1.0)]}, None) == ["p", "q"]
    # Mirror-image lists: every item scores the same, so the ids decide.
    mirror = {"a": [("k", 2.0), ("j", 1.0)], "b": [("j", 2.0), ("k", 1.0)]}
    assert _order(fuse, mirror, None) == ["j", "k"]


@pytest.mark.parametrize("fusion", FUSIONS)
def test_fusion_never_depends_on_router_order(fusion):
    fuse = FUSIONS[fusion]
    # Minimal cases: x and y are tied exactly (the same contributions, met in another order).
    if fusion == "rrf":  # x at ranks 1, 2, 7 and y at ranks 2, 7, 1
        fill = [(f"f{i}", 1.0) for i in range(5)]
        minimal = {"r0": [("x", 1.0), ("y", 1.0)], "r1": [fill[0], ("x", 1.0), *fill[1:], ("y", 1.0)],
                   "r2": [("y", 1.0), *fill, ("x", 1.0)]}
    else:  # x gets 0.1 + 0.2 + 0.3 and y 0.3 + 0.2 + 0.1
        minimal = {"r0": [("top", 1.0), ("y", 0.3), ("x", 0.1)], "r1": [("top", 1.0), ("x", 0.2), ("y", 0.2)],
                   "r2": [("top", 1.0), ("x", 0.3), ("y", 0.1)]}
    rng = random.Random(0)
    cases = [(minimal, None)] + [_random_lists(rng) for _ in range(300)]
    for ranked, weights in cases:
        permuted = ({r: ranked[r] for r in perm} for perm in itertools.permutations(ranked))
        assert len({tuple(_order(fuse, lists, weights, depth=50)) for lists in permuted}) == 1, ranked


@pytest.mark.parametrize("fusion", FUSIONS)
def test_fusion_of_nothing_is_nothing(fusion):
    fuse = FUSIONS[fusion]
    assert fuse({}) == []
    assert fuse({"a": [], "b": []}) == []
    assert fuse({"a": [], "b": [("x", 1.0)]})[0][:1] == ("x",)
    assert fuse({"a": [("x", 1.0)]}, {"a": 0.0}) == []
    assert fuse({"a": [("x", 1.0)]}, {"a": -1.0}) == []


@pytest.mark.parametrize("fusion", FUSIONS)
def test_fusion_weights_and_a_zero_weight_ignores_its_router(fusion):
    fuse = FUSIONS[fusion]
    ranked = {"a": [("x", 1.0), ("y", 0.5)], "b": [("y", 1.0), ("z", 0.5)]}
    assert _order(fuse, ranked, {"a": 1.0, "b": 0.01})[0] == "x"
    assert _order(fuse, ranked, {"a": 0.01, "b": 1.0})[0] == "y"
    ignored = fuse(ranked, {"a": 1.0, "b": 0.0})
    assert [item for item, _, _ in ignored] == ["x", "y"]  # z only came from b
    assert all("b" not in routers for _, _, routers in ignored)
    assert fuse(ranked, {"a": 1.0, "b": 0.0}) == fuse({"a": ranked["a"]}, {"a": 1.0})
    # A router missing from the weights counts at weight 1.
    assert fuse(ranked, {"a": 1.0}) == fuse(ranked, {"a": 1.0, "b": 1.0})


def test_normalized_fusion_floors_a_short_list_at_zero_not_at_its_last_hit():
    lists = {"a": [("x", 4.0), ("y", 1.0)]}
    short = dict((item, score) for item, score, _ in normalized_score_fusion(lists, depth=50))
    assert short == {"x": 1.0, "y": 0.25}  # nothing else matched: y is a weak hit, not a non-hit
    full = dict((item, score) for item, score, _ in normalized_score_fusion(lists, depth=2))
    assert full == {"x": 1.0, "y": 0.0}  # a full list: its weakest hit is the floor
    assert dict((i, s) for i, s, _ in normalized_score_fusion(lists)) == full  # no depth: a full list
    # A router whose results all score the same gives each its full weight.
    same = normalized_score_fusion({"a": [("x", 0.2), ("y", 0.2)]}, {"a": 0.5}, depth=2)
    assert [(i, s) for i, s, _ in same] == [("x", 0.5), ("y", 0.5)]
    # Ranks are 1-based.
    assert normalized_score_fusion(lists, depth=50)[1][2] == {"a": 2}


@pytest.mark.parametrize("fusion", FUSIONS)
def test_fusion_counts_a_repeated_id_once_at_its_best_rank(fusion):
    fuse = FUSIONS[fusion]
    fused = fuse({"a": [("x", 1.0), ("x", 0.6), ("y", 0.5)]}, None, depth=50)
    assert [(item, routers) for item, _, routers in fused] == [("x", {"a": 1}), ("y", {"a": 2})]
    once = fuse({"a": [("x", 1.0), ("y", 0.5)]}, None, depth=50)
    assert [item for item, _, _ in fused] == [item for item, _, _ in once]


def test_a_repeated_id_does_not_change_the_other_scores():
    repeated = normalized_score_fusion({"a": [("x", 1.0), ("y", 0.5), ("x", 0.1)]}, depth=3)
    once = normalized_score_fusion({"a": [("x", 1.0), ("y", 0.5)]}, depth=2)
    assert repeated == once


# ---- packing ----------------------------------------------------------------------------------


def _packet(i: int, score: float, cost: int) -> MemoryPacket:
    return MemoryPacket(id=f"p{i:02d}", text="t", kind="message", ts=at(1, 1), score=score, token_cost=cost)


def test_pack_never_exceeds_random_budgets_and_keeps_relevance_order():
    rng = random.Random(0)
    for _ in range(300):
        packets = [_packet(i, rng.random(), rng.randint(1, 60)) for i in range(rng.randint(0, 25))]
        packets.sort(key=lambda p: -p.score)
        budget, top_k = rng.randint(1, 400), rng.randint(1, 30)
        chosen = pack(packets, budget, top_k)
        assert sum(p.token_cost for p in chosen) <= budget
        assert len(chosen) <= top_k
        positions = [packets.index(p) for p in chosen]
        assert positions == sorted(positions)  # returned best first
        # Greedy: whatever was left out did not fit (or top_k was reached).
        spare = budget - sum(p.token_cost for p in chosen)
        if len(chosen) < top_k:
            assert all(p.token_cost > spare for p in packets if p not in chosen)
    assert pack([], 100, 5) == []
    assert pack([_packet(0, 1.0, 10)], 9, 5) == []


def test_pack_prefers_value_per_token():
    long_best, short_good = _packet(0, 1.0, 100), _packet(1, 0.6, 20)
    assert pack([long_best, short_good], 100, 10) == [short_good]  # 0.03 per token beats 0.01
    cheap = [_packet(i, 0.5, 10) for i in range(2, 7)]
    assert pack([long_best, *cheap], 100, 10) == cheap  # five halves beat one whole
    assert pack([long_best, *cheap], 200, 10) == [long_best, *cheap]  # all fit: all, best first
    same_cost = [_packet(7, 0.9, 30), _packet(8, 0.4, 30)]
    assert pack(same_cost, 40, 10) == same_cost[:1]
    assert pack([long_best, short_good], None, 1) == [long_best]  # no budget: plain top k


def test_a_budget_that_fits_the_best_does_not_change_them():
    best, weak = _packet(0, 1.0, 50), _packet(1, 0.1, 2)
    assert pack([best, weak], max_tokens=1000, top_k=1) == [best]


QUESTIONS = [
    "When did the team migrate the database?",
    "what happened in March 2024?",
    "What did Priya decide?",
    "deploy the billing service to staging",
    "what is the latest status?",
    "what fixed the checkout latency?",
]


def test_query_with_a_budget_never_exceeds_it_and_costs_are_tiktoken_counts(memory):
    seed(memory)
    everything = memory.query("billing database status password", top_k=100)
    assert {p.id for p in everything} == set(BY_ID)
    for p in everything:
        assert p.token_cost > 0 and p.token_cost == count_tokens(p.text), p.id
    rankings = {question: found(memory, question, top_k=100) for question in QUESTIONS}
    rng = random.Random(0)
    for _ in range(25):
        question, budget = rng.choice(QUESTIONS), rng.randint(1, 200)
        packets = memory.query(question, max_tokens=budget, top_k=rng.randint(1, 12))
        assert sum(p.token_cost for p in packets) <= budget, (question, budget)
        assert all(p.token_cost == count_tokens(p.text) > 0 for p in packets)
        positions = [rankings[question].index(p.id) for p in packets]
        assert positions == sorted(positions)  # best first, as without a budget
    smallest = min(p.token_cost for p in everything)
    assert smallest > 1 and memory.query("billing database", max_tokens=smallest - 1) == []
    generous = memory.query(QUESTIONS[0], top_k=100, max_tokens=sum(p.token_cost for p in everything))
    assert ids(generous) == ids(memory.query(QUESTIONS[0], top_k=100))  # everything fits: nothing changes


# ---- parity across backends -------------------------------------------------------------------

WIFI = "what is the guest wifi password?"
PORT = "Which port should the billing service use?"
MARCH_Q = "What was going on in March 2024?"
PARITY = {
    # router choice -> (questions, top k); ordered ids must agree. The entity and temporal routers
    # merge a lexical sub-ranking, which these questions leave with at most one hit.
    ("semantic",): (QUESTIONS + [WIFI, PORT], 8),
    ("entity",): (["What did Priya decide?", "what did lena decide", "What did Marco say?"], 6),
    ("temporal",): ([QUESTIONS[0], MARCH_Q, "when was Priya offline?"], 6),
    ("semantic", "causal"): ([QUESTIONS[3], PORT], 6),
    # The default routing includes lexical, whose order legitimately differs (FTS5 bm25 against
    # ts_rank_cd); these questions are decided by the other routers.
    (): (QUESTIONS[:3] + [QUESTIONS[5], WIFI, MARCH_Q], 3),
}
# Same set, not order: lexical rankings, and the default routing where bm25 / ts_rank_cd swap
# the two word-matching hits (the causal step is in the top 4 on both).
SETS = {
    ("lexical",): ([WIFI, "deploy billing service staging", "Restarting the cache"], 5),
    (): ([QUESTIONS[3], PORT], 4),
}


def _answers(memory: DeltaCore) -> dict:
    answers = {}
    for routers, (questions, top_k) in PARITY.items():
        for question in questions:
            answers[(routers, question)] = found(memory, question, routers=list(routers), top_k=top_k)
    for routers, (questions, top_k) in SETS.items():
        for question in questions:
            answers[(routers, question, "set")] = set(found(memory, question, routers=list(routers), top_k=top_k))
    return answers


def test_same_answers_on_every_backend(backend, tmp_path):
    """``backend`` against a SQLite + embedded Chroma baseline built in the same test (on the
    sqlite parameter, two fresh stores must agree). Each store is read twice: through the
    in-process HOT tier (the default for a small tenant), and with ``hot_capacity=0`` so that
    semantic search goes to Chroma itself, embedded against server."""
    expected, actual = {}, {}
    for hot_capacity in (4096, 0):
        with DeltaCore.open(path=tmp_path / "baseline", embedder=FakeEmbedder(), hot_capacity=hot_capacity) as baseline:
            if hot_capacity:
                seed(baseline)
            expected.update({(hot_capacity, *key): value for key, value in _answers(baseline).items()})
        with backend.open(hot_capacity=hot_capacity) as memory:
            if hot_capacity:
                seed(memory)
            actual.update({(hot_capacity, *key): value for key, value in _answers(memory).items()})
            assert (memory._hot.hits > 0) == bool(hot_capacity)  # noqa: SLF001 - which tier answered
    assert all(expected.values())  # every question finds something, so equality means something
    mismatches = {key: (expected[key], actual[key]) for key in expected if expected[key] != actual[key]}
    assert not mismatches


def test_a_now_question_gets_the_newest_of_what_matches_not_the_newest_memory(tmp_path):
    """"How does Rosa get to work now?" in a store whose newest memories are canteen news:
    recency re-ranks what the content routers found by age, and adds nothing of its own."""
    from deltacore.testing import FakeEmbedder

    memory = DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder())
    try:
        old, new = at(3, 1, 9), at(5, 1, 9)
        memory.ingest([
            {"id": "commute-old", "ts": old, "text": "Rosa cycles to work.", "entities": ["Rosa"]},
            {"id": "commute-new", "ts": new, "text": "Rosa now takes the tram to work.", "entities": ["Rosa"]},
        ])  # fmt: skip
        memory.ingest([
            {"id": f"news-{n}", "ts": at(6, 1 + n % 28, 9 + n % 8), "text": f"The canteen menu for week {n} is out."}
            for n in range(150)
        ])  # fmt: skip
        question = "How does Rosa get to work now?"
        explained = memory.query(question, top_k=5, explain=True)
        assert {r.name: r.stage for r in explained.routers}["recency"] == "expand"
        assert [p.id for p in explained.packets[:2]] == ["commute-new", "commute-old"]
        # With a word router that finds only the two, recency orders them and adds nothing.
        named = memory.query(question, routers=["lexical", "recency"], top_k=10)
        assert [p.id for p in named] == ["commute-new", "commute-old"]
        # Without content recency still finds the newest memories on its own.
        assert {r.name: r.stage for r in memory.query(top_k=1, explain=True).routers} == {"recency": "find"}
    finally:
        memory.close()
