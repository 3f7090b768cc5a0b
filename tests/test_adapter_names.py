"""One name for the store across the adapters (``store``), the host framework's own names where
it has one (LangGraph's ``index={"fields": [...]}``), the old names still working with a
DeprecationWarning."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import warnings

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters import langchain as lc  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402

CLASSES = {
    "DeltaCoreChatMessageHistory": {"session_id": "s1"},
    "DeltaCoreCallbackHandler": {},
    "DeltaCoreMiddleware": {},
    "DeltaCoreStore": {},
    "DeltaCoreLangGraphStore": {},
    "DeltaCoreCheckpointSaver": {},
}
TOOLS_OF = {"langchain": "langchain_core", "autogen": "autogen_agentchat", "crewai": "crewai", "llamaindex": "llama_index.core"}


@pytest.fixture
def store(tmp_path):
    with DeltaCore.open(tmp_path / "memory", embedder=FakeEmbedder()) as memory:
        yield memory


def _classes():
    return {name: getattr(lc, name) for name in CLASSES if hasattr(lc, name)}


def test_every_adapter_names_its_first_argument_store():
    import deltacore.adapters.autogen as ag
    import deltacore.adapters.crewai as cr

    for cls in [*_classes().values(), ag.DeltaCoreMemory, cr.DeltaCoreMemory, cr.DeltaCoreStorage, cr.DeltaCoreListener]:
        assert next(iter(list(inspect.signature(cls.__init__).parameters)[1:])) == "store", cls
    assert "store" in lc.DeltaCoreRetriever.model_fields
    for framework in TOOLS_OF:
        tools = importlib.import_module(f"deltacore.adapters.{framework}").memory_tools
        assert next(iter(inspect.signature(tools).parameters)) == "store", framework


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_store_keyword_works_and_memory_keyword_warns(store, name):
    cls = _classes().get(name)
    if cls is None:
        pytest.skip(f"{name} is not exported")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        cls(store=store, **CLASSES[name])
        cls(store, **CLASSES[name])
    with pytest.warns(DeprecationWarning, match=r"memory=\.\.\.\) is deprecated; pass store="):
        cls(memory=store, **CLASSES[name])
    with pytest.raises(TypeError, match="needs the DeltaCore store"):
        cls(**CLASSES[name])


def test_retriever_takes_store_and_still_accepts_memory(store):
    store.add("billing runs on port 8443")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        docs = lc.DeltaCoreRetriever(store=store).invoke("billing port")
    assert docs[0].page_content == "billing runs on port 8443"
    with pytest.warns(DeprecationWarning):
        old = lc.DeltaCoreRetriever(memory=store)
    assert old.store is store and old.invoke("billing port")[0].page_content == "billing runs on port 8443"


def test_langgraph_store_takes_langgraphs_index_config(store):
    graph_store = lc.DeltaCoreLangGraphStore(store, index={"fields": ["title"]})

    asyncio.run(graph_store.aput(("docs",), "a", {"title": "billing runbook", "body": "zebra crossing"}))
    texts = [event.text for event in store.events()]
    assert any("billing runbook" in text for text in texts)
    assert not any("zebra" in text for text in texts)  # only the configured field is the memory's text
    with pytest.warns(DeprecationWarning, match="index_fields"):
        assert lc.DeltaCoreLangGraphStore(store, index_fields=["body"]).index_fields == ["body"]
    with pytest.raises(ValueError, match="embedder= to DeltaCore.open"):
        lc.DeltaCoreLangGraphStore(store, index={"dims": 1536, "embed": "openai:text-embedding-3-small", "fields": ["x"]})


def _names(tools: list) -> list[str]:
    return [getattr(tool, "name", None) or tool.metadata.name for tool in tools]  # LlamaIndex: metadata.name


@pytest.mark.parametrize("framework", sorted(TOOLS_OF))
def test_memory_tools_take_store_and_memory_keyword_warns(store, framework):
    pytest.importorskip(TOOLS_OF[framework])
    memory_tools = importlib.import_module(f"deltacore.adapters.{framework}").memory_tools
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert _names(memory_tools(store=store, user_id="alice")) == ["manage_memory", "search_memory", "recall_plans"]
        memory_tools(store, user_id="alice")
    with pytest.warns(DeprecationWarning, match=r"memory_tools\(memory=\.\.\.\) is deprecated; pass store="):
        old = memory_tools(memory=store, user_id="alice")
    assert _names(old) == ["manage_memory", "search_memory", "recall_plans"]
    with pytest.raises(TypeError, match="needs the DeltaCore store"):
        memory_tools(user_id="alice")
