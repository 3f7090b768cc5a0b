"""One Scope record in every scoped record, and one scope filter that SQL, Chroma and the HOT tier
apply alike."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError
from sqlalchemy import select, update

from deltacore import DeltaCore, InvalidEventError, InvalidQueryError
from deltacore.model import Delta, Event, MemoryPacket, QueryCriteria, Scope, ScopeFilter
from deltacore.storage import chroma_where
from deltacore.storage.filters import SCOPE_METADATA, chroma_scope, scope_clauses, scope_predicate
from deltacore.storage.tables import events
from deltacore.testing import FakeEmbedder

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


# ---- the record --------------------------------------------------------------------------------


def test_flat_scope_fields_are_folded_into_one_scope_and_read_back_flat():
    event = Event(text="deploy api", tenant="acme", agent_id="planner", user_id="alice", session_id="s1")
    assert event.scope == Scope(tenant="acme", agent_id="planner", user_id="alice", session_id="s1")
    assert (event.tenant, event.agent_id, event.user_id, event.session_id) == ("acme", "planner", "alice", "s1")
    assert Event(text="x", scope=Scope(tenant="acme")).tenant == "acme"
    assert Event(text="x").scope == Scope()  # tenant "default", nothing else
    # Dicts from JSON lines and framework payloads are flat too.
    assert Event.model_validate({"text": "x", "user_id": "bob"}).scope.user_id == "bob"
    assert QueryCriteria(text="q", tenant="acme", session_id="s1").scope == Scope(tenant="acme", session_id="s1")


def test_dumps_stay_flat_in_their_old_field_order():
    event = Event(id="e1", ts=T0, text="deploy api", tenant="acme", user_id="alice")
    dumped = event.model_dump(mode="json")
    assert "scope" not in dumped
    assert list(dumped)[:12] == [
        "id", "ts", "kind", "text", "role", "actor", "source", "tenant", "agent_id", "user_id", "session_id", "episode_id",
    ]
    assert Event.model_validate(dumped) == event
    assert Event.model_validate_json(event.model_dump_json()) == event
    delta = Delta(id="d", event_id="e1", tenant="acme", ts=T0, kind="message", trigger="t", action="say", result="r")
    assert list(delta.model_dump())[:3] == ["id", "event_id", "tenant"]
    assert list(delta.model_dump())[-4:] == ["agent_id", "user_id", "session_id", "episode_id"]
    packet = MemoryPacket(id="e1", text="x", kind="message", ts=T0, score=1.0, tenant="acme", deltas=(delta,))
    assert json.loads(packet.model_dump_json())["deltas"][0]["tenant"] == "acme"
    # A query never had a flat agent_id: its dump only shows one when it was given.
    assert "agent_id" not in QueryCriteria(text="q").model_dump()
    assert QueryCriteria(text="q", agent_id="planner").model_dump()["agent_id"] == "planner"


def test_a_scope_and_a_flat_field_that_disagree_is_an_error_naming_the_field():
    with pytest.raises(ValidationError) as raised:
        Event(text="x", scope=Scope(tenant="acme"), tenant="other")
    assert raised.value.errors()[0]["loc"] == ("tenant",)
    assert "tenant" in str(raised.value)
    # Agreeing values are not a conflict, and flat fields add to a scope dict.
    assert Event(text="x", scope=Scope(tenant="acme"), tenant="acme").tenant == "acme"
    assert Event(text="x", scope={"tenant": "acme"}, user_id="u").scope == Scope(tenant="acme", user_id="u")
    with pytest.raises(ValidationError) as raised:
        QueryCriteria(text="q", agent_id="a", agent_filter=["b"])
    assert raised.value.errors()[0]["loc"] == ("agent_filter",)


def test_a_bad_scope_field_is_reported_under_the_name_the_caller_used(tmp_path):
    with pytest.raises(ValidationError) as raised:
        Event(text="x", tenant="")
    assert raised.value.errors()[0]["loc"] == ("tenant",)
    with DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder()) as memory:
        result = memory.ingest([{"text": "ok"}, {"text": "bad tenant", "tenant": "t" * 200}])
        assert result.rejected[0].field == "tenant"
        with pytest.raises(InvalidEventError) as error:
            memory.add("x", scope=Scope(tenant="acme"), tenant="other")
        assert error.value.field == "tenant"
        with pytest.raises(InvalidQueryError):
            memory.query("x", tenant="")


def test_a_copy_with_flat_scope_updates_changes_the_scope(tmp_path):
    criteria = QueryCriteria(text="q", tenant="acme", user_id="alice")
    moved = criteria.model_copy(update={"tenant": "other", "top_k": 3})
    assert (moved.tenant, moved.user_id, moved.top_k) == ("other", "alice", 3)
    with DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder()) as memory:
        memory.add("the api deploy failed", tenant="other")
        # DeltaCore.query(criteria, **fields) copies the criteria with the fields.
        assert [p.tenant for p in memory.query(QueryCriteria(text="api deploy"), tenant="other")] == ["other"]
        assert memory.query(QueryCriteria(text="api deploy")) == []


# ---- one filter, three compilers -----------------------------------------------------------------


def _history() -> list[dict]:
    rows = []
    for i in range(48):
        rows.append(
            {
                "id": f"e{i}",
                "text": f"memory {i} about the api deploy and the billing service",
                "ts": T0 + timedelta(hours=i),
                "kind": ("message", "observation", "fact")[i % 3],
                "agent_id": ("planner", "coder", None)[i % 3 if i % 4 else 2],
                "user_id": ("alice", "bob")[i % 2],
                "session_id": f"s{i % 4}",
                "episode_id": None if i % 5 == 0 else f"run{i % 3}",
            }
        )
    return rows


FILTERS = {
    "tenant only": ScopeFilter(),
    "one agent": ScopeFilter(agents=("planner",)),
    "two agents, a user": ScopeFilter(agents=("planner", "coder"), user_id="alice"),
    "session": ScopeFilter(session_id="s2"),
    "episode": ScopeFilter(episode_id="run1"),
    "kinds": ScopeFilter(kinds=("fact", "observation")),
    "time window": ScopeFilter(since=(T0 + timedelta(hours=10)).timestamp(), until=(T0 + timedelta(hours=30)).timestamp()),
    "everything at once": ScopeFilter(
        agents=("coder",), user_id="bob", kinds=("message", "observation"), since=(T0 + timedelta(hours=3)).timestamp()
    ),
    "quarantine shown": ScopeFilter(include_quarantined=True),
    "nothing": ScopeFilter(user_id="nobody"),
}


def test_sql_chroma_and_the_hot_tier_keep_the_same_rows(backend):
    with backend.open() as memory:
        memory.ingest(_history())
        memory.apply_outbox()  # the Chroma index is read directly below: background writes first
        with memory._sql.engine.begin() as conn:  # noqa: SLF001 - only the gateway quarantines
            conn.execute(update(events).where(events.c.id.in_(["e7", "e8"])).values(namespace="quarantine"))
        index = memory._vectors.current()  # noqa: SLF001
        assert index is not None and index.count("default") == 48
        collection = index._collection("default")  # noqa: SLF001 - Chroma's own exact metadata filter
        with memory._sql.reader() as conn:  # noqa: SLF001
            ids, _vectors, metadata = memory._sql.tenant_vectors(conn, "default", SCOPE_METADATA)  # noqa: SLF001
            for name, scope in FILTERS.items():
                in_sql = set(conn.execute(select(events.c.id).where(*scope_clauses(scope))).scalars())
                keep = scope_predicate(scope)
                in_hot = {item for item, meta in zip(ids, metadata) if keep(meta)}
                in_chroma = set(collection.get(where=chroma_where(chroma_scope(scope)), include=[])["ids"])
                assert in_hot == in_sql, name
                # Chroma does not pre-filter quarantine (the final SQL fetch drops it).
                hidden = set() if scope.include_quarantined else {"e7", "e8"}
                assert in_chroma - hidden == in_sql, name
                assert name == "nothing" or in_sql, name  # every case keeps something


def test_excluding_an_episode_keeps_memories_without_one_except_in_chromas_prefilter(backend):
    scope = ScopeFilter(exclude_episode_id="run1")
    with backend.open() as memory:
        memory.ingest(_history())
        memory.apply_outbox()  # the Chroma collection is read directly below: background writes first
        collection = memory._vectors.current()._collection("default")  # noqa: SLF001
        with memory._sql.reader() as conn:  # noqa: SLF001
            ids, _vectors, metadata = memory._sql.tenant_vectors(conn, "default", SCOPE_METADATA)  # noqa: SLF001
            in_sql = set(conn.execute(select(events.c.id).where(*scope_clauses(scope))).scalars())
        keep = scope_predicate(scope)
        assert {item for item, meta in zip(ids, metadata) if keep(meta)} == in_sql
        without_episode = {row["id"] for row in _history() if row["episode_id"] is None}
        assert without_episode <= in_sql
        # Chroma cannot say "missing or different": its pre-filter may drop those, never add any.
        in_chroma = set(collection.get(where=chroma_where(chroma_scope(scope)), include=[])["ids"])
        assert in_sql - without_episode <= in_chroma <= in_sql


def test_a_query_is_scoped_the_same_by_every_tier(backend):
    with backend.open(hot_capacity=0) as warm:
        warm.ingest(_history())
        expected = [p.id for p in warm.query("api deploy", routers=["semantic"], user_id="alice", agent_id="planner")]
    with backend.open(hot_capacity=1000) as hot:
        found = hot.query("api deploy", routers=["semantic"], scope=Scope(user_id="alice", agent_id="planner"))
        assert [p.id for p in found] == expected and expected
        assert {(p.user_id, p.agent_id) for p in found} == {("alice", "planner")}
        assert hot._hot.hits > 0  # noqa: SLF001 - the HOT tier answered


# ---- adapters --------------------------------------------------------------------------------------


def test_adapters_accept_a_scope_or_the_flat_keywords(tmp_path):
    from deltacore.adapters._shared import adapter_scope, unfold_scope

    scope = Scope(tenant="acme", user_id="alice")
    assert adapter_scope(scope) is scope
    assert adapter_scope(tenant="acme", user_id="alice") == scope
    assert adapter_scope(scope, tenant="acme") is scope
    with pytest.raises(ValueError, match="user_id"):
        adapter_scope(scope, user_id="bob")
    assert unfold_scope({"scope": scope, "top_k": 3}) == {
        "top_k": 3, "tenant": "acme", "user_id": "alice", "session_id": None, "agent_id": None,
    }
    assert unfold_scope({"scope": Scope(agent_id="a")}, agents_field="agent_ids")["agent_ids"] == ["a"]


def test_framework_adapters_built_with_a_scope_write_and_read_in_it(tmp_path):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from langchain_core.messages import HumanMessage

    from deltacore.adapters.langchain import DeltaCoreChatMessageHistory, DeltaCoreRetriever
    from deltacore.adapters.llamaindex import DeltaCoreMemoryBlock

    scope = Scope(tenant="acme", user_id="alice", session_id="chat-1")
    with DeltaCore.open(tmp_path / "store", embedder=FakeEmbedder()) as memory:
        history = DeltaCoreChatMessageHistory(memory, scope=scope)
        assert (history.tenant, history.session_id, history.scope) == ("acme", "chat-1", scope)
        history.add_messages([HumanMessage("the billing api moved to port 8443")])
        stored = memory.events(tenant="acme")
        assert [(e.tenant, e.user_id, e.session_id) for e in stored] == [("acme", "alice", "chat-1")]
        retriever = DeltaCoreRetriever(store=memory, scope=Scope(tenant="acme", user_id="alice"))
        assert [d.page_content for d in retriever.invoke("billing api port")] == ["the billing api moved to port 8443"]
        assert DeltaCoreRetriever(store=memory, user_id="bob", tenant="acme").invoke("billing api port") == []
        block = DeltaCoreMemoryBlock(store=memory, scope=scope)
        assert (block.tenant, block.user_id, block.session_id, block.scope) == ("acme", "alice", "chat-1", scope)
        with pytest.raises(ValidationError, match="tenant"):
            DeltaCoreMemoryBlock(store=memory, scope=scope, tenant="other")
