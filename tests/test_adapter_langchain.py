"""The LangChain adapter, driven by real LangChain / LangGraph objects and LangChain's fake models."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import asyncio  # noqa: E402
import uuid  # noqa: E402
from typing import Any, ClassVar  # noqa: E402

import pytest  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain.tools import ToolRuntime  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.runnables import RunnableConfig, chain  # noqa: E402
from langchain_core.tools import ToolException, tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp  # noqa: E402

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters.langchain import (  # noqa: E402
    AsyncDeltaCoreCallbackHandler,
    DeltaCoreCallbackHandler,
    DeltaCoreChatMessageHistory,
    DeltaCoreEmbeddings,
    DeltaCoreLangGraphStore,
    DeltaCoreMiddleware,
    DeltaCoreRetriever,
    DeltaCoreStore,
    LangChainEmbedder,
)
from deltacore.testing import FakeEmbedder  # noqa: E402

# ---- fixtures: a store, tools, a scripted tool-calling model ----------------------------------------


@pytest.fixture
def memory(tmp_path):
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as store:
        yield store


@tool
def deploy(service: str, env: str) -> str:
    """Deploy a service to an environment."""
    return f"deployed {service} to {env}: version 1.4.2 is live"


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"kaboom: {reason}")


@tool
def soft_fail(reason: str) -> str:
    """Fails with a ToolException that the tool turns into an error message."""
    raise ToolException(f"cannot: {reason}")


soft_fail.handle_tool_error = True  # the @tool decorator has no such argument in langchain-core 1.x


class ScriptedModel(GenericFakeChatModel):
    """The core fake chat model with bind_tools, logging every message list it is sent."""

    seen: ClassVar[list[list[BaseMessage]]] = []

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        ScriptedModel.seen.append(messages)
        return super()._generate(messages, *args, **kwargs)


def calls(*items: tuple[str, dict[str, Any]]) -> AIMessage:
    tool_calls = [{"name": n, "args": a, "id": f"call_{n}_{i}", "type": "tool_call"} for i, (n, a) in enumerate(items)]
    return AIMessage("", tool_calls=tool_calls)


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def episode_events(memory: DeltaCore, episode_id: str) -> list:
    return memory.events(episode_id=episode_id)


def by_kind(events: list, kind: str) -> list:
    return [e for e in events if e.kind.value == kind]


def ancestors(memory: DeltaCore, event_id: str) -> set[str]:
    return {delta.event_id for delta in memory.query_causal(event_id, depth=10).deltas.values()}


# ---- middleware: the episode -----------------------------------------------------------------------


def test_middleware_records_tool_calls_as_one_causal_episode(memory):
    model = ScriptedModel(messages=iter([calls(("deploy", {"service": "api", "env": "staging"})), AIMessage("Done.")]))
    agent = create_agent(model, [deploy], middleware=[DeltaCoreMiddleware(memory, user_id="alice", name="ops")])
    run_id = str(uuid.uuid4())
    agent.invoke(ask("deploy api to staging"), config={"run_id": run_id})

    events = episode_events(memory, run_id)
    assert [e.kind.value for e in events] == ["message", "tool_call", "tool_result", "message", "outcome"]
    assert all(e.user_id == "alice" and e.source == "langchain:ops" for e in events)
    assert all(e.meta["framework"] == "langchain" for e in events)
    user, call, result, reply, outcome = events
    assert user.role == "user" and user.text == "deploy api to staging"
    assert call.tool_name == "deploy" and call.tool_args == {"service": "api", "env": "staging"}
    assert call.parent_ids == (user.id,)
    assert call.tool_schema_hash == memory.tool_schemas("deploy")[0]["schema_hash"]
    assert sorted(memory.tool_schemas("deploy")[0]["schema"]["properties"]) == ["env", "service"]
    assert result.tool_name == "deploy" and "1.4.2" in result.text and result.parent_ids == (call.id,)
    assert reply.role == "assistant" and reply.text == "Done."
    assert outcome.meta["success"] is True and "Done." in outcome.text and outcome.parent_ids == (reply.id,)
    # As deltas: the call's delta names the tool and schema, and its causal parent is the request.
    (packet,) = memory.query("deploy", kinds=["tool_call"], episode_id=run_id)
    (delta,) = packet.deltas
    assert (delta.tool_name, delta.tool_schema_hash, delta.episode_id) == ("deploy", call.tool_schema_hash, run_id)
    chain_up = memory.query_causal(call.id, depth=1)
    assert {chain_up.deltas[parent].event_id for _, parent in chain_up.edges} == {user.id}
    # The outcome's causal history reaches back to the user's request through the tool call.
    assert {user.id, call.id, result.id} <= ancestors(memory, outcome.id)
    # A call is found by its action, within its episode.
    assert [p.id for p in memory.query("deploy", action="deploy", kinds=["tool_call"], episode_id=run_id)] == [call.id]


def test_middleware_records_a_tool_error_as_an_error_result(memory):
    model = ScriptedModel(messages=iter([calls(("explode", {"reason": "disk"}))]))
    agent = create_agent(model, [explode], middleware=[DeltaCoreMiddleware(memory)])
    run_id = str(uuid.uuid4())
    with pytest.raises(RuntimeError, match="kaboom"):
        agent.invoke(ask("blow up"), config={"run_id": run_id})
    (result,) = by_kind(episode_events(memory, run_id), "tool_result")
    assert result.tool_name == "explode" and "kaboom: disk" in result.text
    assert result.meta["error"]["type"] == result.meta["error_type"] == "RuntimeError"


def test_handled_tool_error_is_an_error_result_and_the_run_goes_on(memory):
    model = ScriptedModel(messages=iter([calls(("soft_fail", {"reason": "quota"})), AIMessage("Could not.")]))
    agent = create_agent(model, [soft_fail], middleware=[DeltaCoreMiddleware(memory)])
    run_id = str(uuid.uuid4())
    agent.invoke(ask("try it"), config={"run_id": run_id})
    events = episode_events(memory, run_id)
    (result,) = by_kind(events, "tool_result")
    assert result.meta["error"]["message"] and "cannot: quota" in result.text
    assert by_kind(events, "outcome")[0].meta["success"] is True


def test_next_run_gets_the_earlier_tool_use_injected_once(memory):
    ScriptedModel.seen = []
    script = [
        calls(("deploy", {"service": "api", "env": "staging"})),
        AIMessage("Deployed."),
        calls(("deploy", {"service": "api", "env": "prod"})),
        AIMessage("Deployed to prod too."),
    ]
    middleware = DeltaCoreMiddleware(memory, inject_memories=True, memory_query={"top_k": 4})
    stale = "<deltacore_memories>\n- something old\n</deltacore_memories>"
    agent = create_agent(
        ScriptedModel(messages=iter(script)), [deploy], middleware=[middleware], system_prompt=f"Be brief.\n\n{stale}"
    )
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    agent.invoke(ask("deploy api to staging"), config={"run_id": first})
    sent_before = len(ScriptedModel.seen)
    agent.invoke(ask("what version of api is on staging? deploy it to prod"), config={"run_id": second})

    second_run = ScriptedModel.seen[sent_before:]
    assert len(second_run) == 2  # two model calls in run 2
    for messages in second_run:
        system = messages[0]
        assert isinstance(system, SystemMessage) and system.content.startswith("Be brief.")
        assert system.content.count("<deltacore_memories>") == 1  # replaced, never piled up
        assert "something old" not in system.content
        assert "version 1.4.2" in system.content  # the earlier tool result
    # Run 2's own input is not handed back to it; the retrieval is recorded once, for run 2.
    assert "what version of api" not in second_run[0][0].content
    retrieved = memory.retrievals(second)
    assert retrieved and {memory.get(r["event_id"]).episode_id for r in retrieved} == {first}


def test_middleware_async_run_records_the_same_episode(memory):
    model = ScriptedModel(messages=iter([calls(("deploy", {"service": "web", "env": "dev"})), AIMessage("ok")]))
    agent = create_agent(model, [deploy], middleware=[DeltaCoreMiddleware(memory, inject_memories=True)])
    run_id = str(uuid.uuid4())
    asyncio.run(agent.ainvoke(ask("deploy web to dev"), config={"run_id": run_id}))
    kinds = [e.kind.value for e in episode_events(memory, run_id)]
    assert kinds == ["message", "tool_call", "tool_result", "message", "outcome"]


# ---- callback handlers -----------------------------------------------------------------------------


def test_callback_handler_turns_the_run_tree_into_an_episode(memory):
    handler = DeltaCoreCallbackHandler(memory, tools=[deploy, explode], session_id="s1")
    model = ScriptedModel(
        messages=iter([calls(("deploy", {"service": "api", "env": "qa"}), ("explode", {"reason": "x"}))])
    )
    agent = create_agent(model, [deploy, explode])
    run_id = uuid.uuid4()
    with pytest.raises(RuntimeError):
        agent.invoke(ask("deploy api to qa"), config={"callbacks": [handler], "run_id": run_id})

    events = episode_events(memory, str(run_id))
    assert all(e.episode_id == str(run_id) and e.session_id == "s1" for e in events)
    calls_by_tool = {e.tool_name: e for e in by_kind(events, "tool_call")}
    assert set(calls_by_tool) == {"deploy", "explode"}
    assert calls_by_tool["deploy"].tool_args == {"service": "api", "env": "qa"}
    assert calls_by_tool["deploy"].tool_schema_hash == memory.tool_schemas("deploy")[0]["schema_hash"]
    assert calls_by_tool["deploy"].meta["parent_run_id"]  # the tools node that ran it
    results = {e.tool_name: e for e in by_kind(events, "tool_result")}
    # on_tool_error carries no tool name: it is matched to its call by run id.
    assert results["explode"].meta["error_type"] == "RuntimeError"
    assert results["explode"].parent_ids == (calls_by_tool["explode"].id,)
    assert results["deploy"].parent_ids == (calls_by_tool["deploy"].id,)
    (outcome,) = by_kind(events, "outcome")
    assert outcome.meta["success"] is False and "kaboom" in outcome.text


def test_callback_handler_uses_offered_schemas_without_a_registry(memory):
    handler = DeltaCoreCallbackHandler(memory)
    model = ScriptedModel(messages=iter([calls(("deploy", {"service": "a", "env": "b"})), AIMessage("fine")]))
    run_id = uuid.uuid4()
    create_agent(model, [deploy]).invoke(ask("go"), config={"callbacks": [handler], "run_id": run_id})
    events = episode_events(memory, str(run_id))
    (call,) = by_kind(events, "tool_call")
    assert call.tool_schema_hash is not None
    assert memory.tool_schemas("deploy")[0]["schema"] == convert_to_openai_tool(deploy)["function"]["parameters"]
    assert by_kind(events, "outcome")[0].meta["success"] is True


def test_async_callback_handler_records_a_chain_episode(memory):
    handler = AsyncDeltaCoreCallbackHandler(memory, tools=[deploy])
    llm = ScriptedModel(messages=iter([calls(("deploy", {"service": "db", "env": "prod"})), AIMessage("db is live")]))
    bound = llm.bind_tools([deploy])

    @chain
    async def agent(question: str, config: RunnableConfig) -> str:
        messages: list[BaseMessage] = [HumanMessage(question)]
        while True:
            reply = await bound.ainvoke(messages, config=config)
            messages.append(reply)
            if not reply.tool_calls:
                return str(reply.content)
            for tool_call in reply.tool_calls:
                messages.append(await deploy.ainvoke(tool_call, config=config))

    run_id = uuid.uuid4()
    assert asyncio.run(agent.ainvoke("ship db", config={"callbacks": [handler], "run_id": run_id})) == "db is live"
    events = episode_events(memory, str(run_id))
    assert [e.kind.value for e in events] == ["message", "tool_call", "tool_result", "message", "outcome"]
    assert events[0].text == "ship db" and events[-1].text == "episode succeeded: db is live"


def test_middleware_and_handler_together_write_each_event_once(memory):
    handler = DeltaCoreCallbackHandler(memory)
    model = ScriptedModel(messages=iter([calls(("deploy", {"service": "x", "env": "y"})), AIMessage("done")]))
    agent = create_agent(model, [deploy], middleware=[DeltaCoreMiddleware(memory)])
    agent.invoke(ask("deploy x"), config={"callbacks": [handler]})  # no run id given: found via the handler
    episodes = {p.episode_id for p in memory.query(routers=("recency",), top_k=100)}
    assert len(episodes) == 1
    kinds = [e.kind.value for e in episode_events(memory, episodes.pop())]
    assert kinds == ["message", "tool_call", "tool_result", "message", "outcome"]


# ---- chat history ----------------------------------------------------------------------------------


def test_chat_history_round_trip_and_clear(memory):
    history = DeltaCoreChatMessageHistory(memory, "chat-1", user_id="alice")
    other = DeltaCoreChatMessageHistory(memory, "chat-2")
    call = {"name": "deploy", "args": {"service": "api", "env": "qa"}, "id": "c1", "type": "tool_call"}
    conversation = [
        SystemMessage("be brief"),
        HumanMessage("ok"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("deployed", tool_call_id="c1", name="deploy"),
        AIMessage("ok"),
        HumanMessage("ok"),  # a repeated text is a new turn, not a duplicate
    ]
    history.add_messages(conversation[:3])
    history.add_messages(conversation[3:])
    other.add_user_message("elsewhere")

    restored = history.messages
    assert [type(m) for m in restored] == [type(m) for m in conversation]
    assert [m.content for m in restored] == [m.content for m in conversation]
    assert restored[2].tool_calls[0]["name"] == "deploy" and restored[2].tool_calls[0]["args"] == call["args"]
    assert restored[3].tool_call_id == "c1"
    # Stored as message events of the session, searchable like any memory.
    assert memory.query("deployed", session_id="chat-1", kinds=["message"])[0].role == "tool"

    history.clear()
    assert history.messages == []
    assert [m.content for m in other.messages] == ["elsewhere"]
    # The clear went through forget: its certificate's status is in the store's journal.
    (status,) = memory.system_events("FORGET")
    assert status["payload"]["state"] == "completed" and status["payload"]["counts"]["events"] == len(conversation)


def test_chat_history_async(memory):
    history = DeltaCoreChatMessageHistory(memory, "chat-async")

    async def go() -> list[BaseMessage]:
        await history.aadd_messages([HumanMessage("hello"), AIMessage("hi there")])
        messages = await history.aget_messages()
        await history.aclear()
        return messages

    assert [m.content for m in asyncio.run(go())] == ["hello", "hi there"]
    assert history.messages == []


# ---- retriever -------------------------------------------------------------------------------------


def test_retriever_returns_documents_with_memory_metadata_sync_and_async(memory):
    memory.ingest(
        [
            {"text": "the api service runs on port 8080", "kind": "fact", "user_id": "alice"},
            {"text": "the billing service runs on port 9090", "kind": "fact", "user_id": "bob"},
        ]
    )
    retriever = DeltaCoreRetriever(store=memory, top_k=1, user_id="alice")
    (doc,) = retriever.invoke("which port does the api use?")
    assert isinstance(doc, Document) and doc.page_content == "the api service runs on port 8080"
    meta = doc.metadata
    assert meta["id"] == doc.id and meta["kind"] == "fact" and meta["token_cost"] > 0
    assert meta["score"] > 0 and meta["flags"] == [] and isinstance(meta["provenance"], list)
    assert {"ts", "actor", "trust"} <= set(meta)
    (adoc,) = asyncio.run(retriever.ainvoke("which port does the api use?"))
    assert adoc.id == doc.id
    # Per-call criteria; a token budget.
    assert len(retriever.invoke("port", top_k=2, user_id=None)) == 2
    assert len(DeltaCoreRetriever(store=memory, max_tokens=1).invoke("port")) == 0


def test_retriever_inside_a_run_records_the_retrieval(memory):
    fact_id = memory.add("alice prefers green tea", kind="fact")
    retriever = DeltaCoreRetriever(store=memory, top_k=1, kinds=["fact"])  # not the run's own input

    @chain
    def answer(question: str, config: RunnableConfig) -> str:
        return retriever.invoke(question, config=config)[0].page_content

    run_id = uuid.uuid4()
    answer.invoke("what does alice drink?", config={"run_id": run_id})
    recorded = [(r["event_id"], r["query"]) for r in memory.retrievals(str(run_id))]
    assert recorded == [(fact_id, "what does alice drink?")]
    retriever.invoke("what does alice drink?")  # outside a run tree: nothing to credit
    assert len(memory.retrievals()) == 1

    handler = DeltaCoreCallbackHandler(memory)  # with the handler attached, it records (once)
    run_id = uuid.uuid4()
    asyncio.run(answer.ainvoke("tea?", config={"run_id": run_id, "callbacks": [handler]}))
    assert [r["event_id"] for r in memory.retrievals(str(run_id))] == [fact_id]


def test_retriever_called_by_an_agent_tool_credits_the_agent_episode(memory):
    fact_id = memory.add("the staging database is db-7", kind="fact")
    retriever = DeltaCoreRetriever(store=memory, top_k=1, kinds=["fact"])

    @tool
    def lookup(question: str) -> str:
        """Look something up in memory."""
        return retriever.invoke(question)[0].page_content

    model = ScriptedModel(messages=iter([calls(("lookup", {"question": "staging database"})), AIMessage("db-7")]))
    agent = create_agent(model, [lookup], middleware=[DeltaCoreMiddleware(memory)])
    run_id = str(uuid.uuid4())
    agent.invoke(ask("which database does staging use?"), config={"run_id": run_id})
    assert [r["event_id"] for r in memory.retrievals(run_id)] == [fact_id]


# ---- LangGraph store -------------------------------------------------------------------------------


def test_langgraph_store_get_put_search_delete_list(memory):
    store = DeltaCoreLangGraphStore(memory, scope=lambda ns: {"user_id": ns[1]} if len(ns) > 1 else {})
    store.put(("memories", "alice"), "drink", {"text": "alice drinks green tea", "rating": 5})
    store.put(("memories", "alice"), "food", {"text": "alice likes ramen", "rating": 3})
    store.put(("memories", "bob"), "drink", {"text": "bob drinks coffee", "rating": 4})
    store.put(("memories", "bob"), "copy", {"text": "bob drinks coffee", "rating": 4})  # same value, other key

    item = store.get(("memories", "alice"), "drink")
    assert item.value == {"text": "alice drinks green tea", "rating": 5} and item.namespace == ("memories", "alice")
    assert store.get(("memories", "alice"), "missing") is None

    hits = store.search(("memories", "alice"), query="which tea does alice drink?", limit=1)
    assert [h.key for h in hits] == ["drink"] and hits[0].score is not None
    assert {h.key for h in store.search(("memories",), limit=10)} == {"drink", "food", "copy"}
    assert len(store.search(("memories",), limit=10)) == 4
    assert [h.key for h in store.search(("memories",), filter={"rating": {"$gte": 4}}, limit=10, offset=0)].count(
        "drink"
    ) == 2
    assert [h.value["text"] for h in store.search(("memories", "alice"), filter={"rating": 3})] == ["alice likes ramen"]
    assert len(store.search(("memories",), limit=2, offset=3)) == 1

    # Items are memories of their user.
    assert memory.query("green tea", user_id="alice", top_k=1)[0].text == "alice drinks green tea"

    created = item.created_at
    store.put(("memories", "alice"), "drink", {"text": "alice drinks oolong now", "rating": 5})
    updated = store.get(("memories", "alice"), "drink")
    assert updated.value["text"] == "alice drinks oolong now" and updated.created_at == created
    assert not memory.query("green tea", kinds=["fact"], user_id="alice", routers=["lexical"])  # the old value is hidden
    # ... but kept: the put was an update, a new version of the item's memory.
    current = memory.query("oolong", kinds=["fact"], user_id="alice", routers=["lexical"])[0]
    assert [v.event.meta["value"]["text"] for v in memory.versions(current.id)] == [
        "alice drinks green tea",
        "alice drinks oolong now",
    ]

    store.delete(("memories", "bob"), "copy")
    assert store.get(("memories", "bob"), "copy") is None
    store.put(("other", "x", "y"), "k", {"text": "deep"})
    assert store.list_namespaces() == [("memories", "alice"), ("memories", "bob"), ("other", "x", "y")]
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "alice"), ("memories", "bob")]
    assert store.list_namespaces(suffix=("y",)) == [("other", "x", "y")]
    assert store.list_namespaces(max_depth=1) == [("memories",), ("other",)]
    assert store.list_namespaces(prefix=("*", "bob")) == [("memories", "bob")]


def test_langgraph_store_batch_and_async(memory):
    store = DeltaCoreLangGraphStore(memory)
    results = store.batch(
        [
            PutOp(("docs",), "a", {"text": "alpha release notes"}),
            PutOp(("docs",), "b", {"text": "beta release notes"}),
            GetOp(("docs",), "a"),
            SearchOp(("docs",), query="beta", limit=1),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("docs",)),)),
            PutOp(("docs",), "a", None),
            GetOp(("docs",), "a"),
        ]
    )
    assert results[0] is None and results[2].value == {"text": "alpha release notes"}
    assert [item.key for item in results[3]] == ["b"]
    assert results[4] == [("docs",)]
    assert results[6] is None

    async def go() -> tuple[Any, Any, Any]:
        await store.aput(("docs", "v2"), "c", {"text": "gamma"}, index=False)
        got = await store.aget(("docs", "v2"), "c")
        found = await store.asearch(("docs",), query="gamma")
        await store.adelete(("docs", "v2"), "c")
        return got, found, await store.alist_namespaces()

    got, found, namespaces = asyncio.run(go())
    assert got.value == {"text": "gamma"}
    assert "c" not in [item.key for item in found]  # index=False: stored, but not searchable
    assert namespaces == [("docs",)]


def test_create_agent_tools_write_to_the_langgraph_store(memory):
    @tool
    def remember(note: str, runtime: ToolRuntime) -> str:
        """Remember a note."""
        runtime.store.put(("notes",), "n1", {"text": note})
        return "saved"

    store = DeltaCoreLangGraphStore(memory)
    note = calls(("remember", {"note": "the deploy window is friday"}))
    model = ScriptedModel(messages=iter([note, AIMessage("ok")]))
    create_agent(model, [remember], store=store, middleware=[DeltaCoreMiddleware(memory)]).invoke(ask("remember it"))
    assert store.get(("notes",), "n1").value == {"text": "the deploy window is friday"}
    assert memory.query("when is the deploy window?", kinds=["fact"], top_k=1)[0].text == "the deploy window is friday"


# ---- key-value store, embeddings ------------------------------------------------------------------


def test_kv_store_latest_value_wins(memory):
    store = DeltaCoreStore(memory, namespace="prefs")
    other = DeltaCoreStore(memory, namespace="other")
    store.mset([("alice:drink", "green tea"), ("bob:drink", "green tea"), ("alice:cfg", {"theme": "dark"})])
    other.mset([("alice:drink", "water")])
    store.mset([("blob", b"\x00\x01binary")])
    assert store.mget(["alice:drink", "bob:drink", "alice:cfg", "blob", "nope"]) == [
        "green tea",
        "green tea",
        {"theme": "dark"},
        b"\x00\x01binary",
        None,
    ]
    store.mset([("alice:drink", "oolong")])
    assert store.mget(["alice:drink"]) == ["oolong"] and other.mget(["alice:drink"]) == ["water"]
    current = memory.query("oolong", kinds=["fact"], routers=["lexical"])[0]
    assert [v.event.text for v in memory.versions(current.id)] == ["green tea", "oolong"]  # mset kept the old value
    assert sorted(store.yield_keys(prefix="alice:")) == ["alice:cfg", "alice:drink"]
    store.mdelete(["alice:drink", "never-set"])
    assert store.mget(["alice:drink"]) == [None]
    assert sorted(store.yield_keys()) == ["alice:cfg", "blob", "bob:drink"]
    assert memory.query("oolong", kinds=["fact"], routers=["lexical"]) == []  # mdelete removes every version
    with pytest.raises(ValueError, match="not JSON"):
        store.mset([("bad", object())])


def test_store_items_with_the_same_text_stay_apart(memory):
    first, second = DeltaCoreStore(memory, namespace="a"), DeltaCoreStore(memory, namespace="b")
    first.mset([("k", "same"), ("k2", "same")])
    second.mset([("k", "same")])
    assert first.mget(["k", "k2"]) == ["same", "same"] and second.mget(["k"]) == ["same"]
    graph = DeltaCoreLangGraphStore(memory)
    graph.put(("a", "b"), "c", {"text": "same"})
    graph.put(("a",), "b/c", {"text": "same"})  # reads as the same path "a/b/c"
    assert graph.get(("a", "b"), "c").value == graph.get(("a",), "b/c").value == {"text": "same"}
    items = memory.events(kinds=["fact"])
    assert len(items) == 5
    # The item's id keeps it apart (meta["dedupe_key"]); the actor is not borrowed for it.
    assert all(item.meta["dedupe_key"] == item.id and item.actor is None for item in items)


def test_listings_read_every_page(memory, monkeypatch):
    monkeypatch.setattr("deltacore.adapters._shared.EVENTS_PAGE", 2)
    history = DeltaCoreChatMessageHistory(memory, "long-chat")
    history.add_messages([HumanMessage(f"message {n}") for n in range(5)])
    assert [m.content for m in history.messages] == [f"message {n}" for n in range(5)]
    kv = DeltaCoreStore(memory, namespace="many")
    kv.mset([(f"key{n}", f"value {n}") for n in range(5)])
    assert sorted(kv.yield_keys()) == [f"key{n}" for n in range(5)]
    graph = DeltaCoreLangGraphStore(memory)
    for n in range(5):
        graph.put(("ns", str(n)), "k", {"text": f"item {n}", "n": n})
    assert graph.list_namespaces() == [("ns", str(n)) for n in range(5)]
    found = graph.search(("ns",), filter={"n": {"$gte": 1}}, limit=10)
    assert [item.value["n"] for item in found] == [4, 3, 2, 1]  # newest first


def test_embeddings_bridge_both_ways(tmp_path):
    langchain_embeddings = DeterministicFakeEmbedding(size=16)
    embedder = LangChainEmbedder(langchain_embeddings)
    assert embedder.name().endswith("DeterministicFakeEmbedding:16")
    with DeltaCore.open(tmp_path / "lc-emb", embedder=embedder) as memory:
        memory.add("the api runs on port 8080", kind="fact")
        assert memory.query("the api runs on port 8080", routers=["semantic"])[0].text == "the api runs on port 8080"
        assert memory.stats().embedder == embedder.name()

    embeddings = DeltaCoreEmbeddings(FakeEmbedder(32))
    vectors = embeddings.embed_documents(["a b", "c"])
    assert len(vectors) == 2 and len(vectors[0]) == 32
    assert asyncio.run(embeddings.aembed_query("a b")) == pytest.approx(vectors[0])



def test_callback_handler_takes_the_principal_from_the_run_config(memory):
    handler = DeltaCoreCallbackHandler(memory)
    agent = create_agent(ScriptedModel(messages=iter([AIMessage("Granted.")])), [deploy])
    run_id = uuid.uuid4()
    task = "Grant bob reader access to dataset sales_2024."
    agent.invoke(ask(task), config={"callbacks": [handler], "run_id": run_id, "metadata": {"user_id": "alice"}})

    (user,) = [e for e in episode_events(memory, str(run_id)) if e.role == "user"]
    assert (user.text, user.principal) == (task, "alice")
    assert task in [p.text for p in memory.query("bob's access to sales_2024", top_k=5, include_deltas=False)]
