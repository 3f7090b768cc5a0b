"""Typed retrieval configuration: router names, presets, one router registry, a per-query budget."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from deltacore import DeltaCore, QueryCriteria
from deltacore.model import PresetName, RouterName, SearchBudget
from deltacore.retrieval import PRESETS, analyze, choose_routers
from deltacore.retrieval import presets as preset_module
from deltacore.retrieval.routers import ROUTERS, Ranked, SearchContext, Stage
from deltacore.retrieval.routers.registry import STAGE_ONE, STAGE_TWO
from deltacore.testing import FakeEmbedder

NOTES = [
    "the api deploy failed on a missing migration",
    "billing moved to port 8443",
    "alice prefers morning standups",
    "the search cluster needs two more nodes",
    "deploy the api after the migration runs",
]


@pytest.fixture
def memory(tmp_path):
    with DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder()) as store:
        store.ingest([{"id": f"n{i}", "text": text} for i, text in enumerate(NOTES)])
        yield store


def test_router_names_are_an_enum_and_plain_strings_still_work(memory):
    assert RouterName("semantic") is RouterName.SEMANTIC and RouterName.SEMANTIC == "semantic"
    for name in RouterName:
        plain = [p.id for p in memory.query("api deploy migration", routers=[name.value, "lexical"])]
        typed = [p.id for p in memory.query("api deploy migration", routers=[name, RouterName.LEXICAL])]
        assert plain == typed, name
    packet = memory.query("api deploy", routers=[RouterName.SEMANTIC])[0]
    assert list(packet.model_dump(mode="json")["routers"]) == ["semantic"]


def test_presets_are_typed_constants_under_their_old_names():
    assert set(PRESETS) == {name.value for name in PresetName}
    for name in PresetName:
        preset = getattr(preset_module, name.name)
        assert preset.name is name and PRESETS[name] is preset.weights
        assert set(preset.weights) <= set(RouterName)
        with pytest.raises(TypeError):
            preset.weights[RouterName.BELIEF] = 1.0  # type: ignore[index]
    criteria = QueryCriteria(text="x", routers=["ENTITY"])
    assert choose_routers(criteria, analyze("x")) == {"semantic": 1.0, "lexical": 1.0, "entity": 1.5}
    # Presets are told apart from routers by case, as before.
    assert choose_routers(QueryCriteria(text="x", routers=["entity"]), analyze("x")) == {"entity": 1.0}


def test_one_registry_lists_every_router_once_and_the_read_path_runs_it(memory):
    assert [entry.name for entry in ROUTERS] == list(RouterName)
    assert STAGE_ONE == tuple(e.name for e in ROUTERS if e.stage is Stage.FIND)
    assert STAGE_TWO == tuple(e.name for e in ROUTERS if e.stage is Stage.EXPAND)
    assert preset_module.AUTO_WEIGHTS == {entry.name: entry.weight for entry in ROUTERS}
    retriever = memory._retriever  # noqa: SLF001
    assert list(retriever._routers) == list(STAGE_ONE)  # noqa: SLF001
    assert list(retriever._expanders) == list(STAGE_TWO)  # noqa: SLF001
    for name, router in {**retriever._routers, **retriever._expanders}.items():  # noqa: SLF001
        assert router.name == name


def test_search_budget_is_a_frozen_record_with_checked_fields():
    budget = SearchBudget(candidate_pool=20, max_tokens=100, deadline_ms=50)
    with pytest.raises(ValidationError):
        budget.candidate_pool = 5  # type: ignore[misc]
    for bad in ({"candidate_pool": 0}, {"max_tokens": 0}, {"deadline_ms": -1}):
        with pytest.raises(ValidationError) as raised:
            SearchBudget(**bad)
        assert raised.value.errors()[0]["loc"] == (next(iter(bad)),)


class _BudgetSpy:
    """A recency router that remembers the budget each search was given."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.budgets: list[SearchBudget] = []

    def search(self, context: SearchContext) -> Ranked:
        self.budgets.append(context.budget)
        return self.inner.search(context)


def test_the_read_path_fills_the_budget_and_routers_get_the_one_a_governor_sets(memory):
    retriever = memory._retriever  # noqa: SLF001
    spy = _BudgetSpy(retriever._routers[RouterName.RECENCY])  # noqa: SLF001
    retriever._routers[RouterName.RECENCY] = spy  # noqa: SLF001
    criteria = QueryCriteria(routers=["recency"], top_k=30, max_tokens=400)
    default = retriever.query(criteria)
    pool = max(memory.config.candidate_pool, 30 * 3)
    assert spy.budgets[-1] == SearchBudget(candidate_pool=pool, max_tokens=400)
    # Utilities decay with time, so compare what was found and how it ranked.
    assert [(p.id, p.score) for p in retriever.query(criteria, retriever.budget(criteria))] == [
        (p.id, p.score) for p in default
    ]
    tight = SearchBudget(candidate_pool=2, max_tokens=400, deadline_ms=20)
    found = retriever.query(criteria, tight)
    assert spy.budgets[-1] is tight
    assert [p.id for p in found] == [p.id for p in default][:2]  # the two newest
    few_tokens = retriever.query(criteria, SearchBudget(candidate_pool=pool, max_tokens=default[0].token_cost))
    assert sum(p.token_cost for p in few_tokens) <= default[0].token_cost and few_tokens


def test_a_context_built_without_a_budget_gets_one_from_its_limit(memory):
    with memory._sql.reader() as conn:  # noqa: SLF001
        criteria = QueryCriteria(text="x", max_tokens=50)
        context = SearchContext(
            criteria=criteria, analysis=analyze("x"), conn=conn, sql=memory._sql, filters=[], limit=25,  # noqa: SLF001
            index=None, embed_query=lambda text: memory.embed([text])[0],
        )
    assert context.budget == SearchBudget(candidate_pool=25, max_tokens=50)
    assert context.scope.tenant == "default"
