"""``deltacore mcp``: the MCP server, driven by the official SDK's own stdio client.

Every server is a real ``deltacore mcp`` subprocess spawned by ``mcp.client.stdio`` (as an MCP
client such as Claude Desktop spawns it), on a real store:

- the tools round-trip (store, search, learn from an outcome, recall decisions, facts as of a
  time) and malformed calls are tool errors that name the argument and change nothing;
- two servers on one store, both writing at once, lose nothing — on the embedded store (one of
  them owns the Chroma index, the other writes SQL and leaves its vectors in the outbox) and on
  PostgreSQL + a Chroma server (both write everything).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

from deltacore import DeltaCore
from deltacore.storage.ownership import VectorOwnership
from deltacore.testing import FakeEmbedder
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

QUIET = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "OTEL_SDK_DISABLED": "true",
}


def server_params(
    settings: dict[str, Any], tenant: str = "default"
) -> StdioServerParameters:
    """``deltacore mcp`` on the store ``settings`` describe (the backend fixture's settings)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DELTACORE_")
    }
    env.update(QUIET)
    if "collection_prefix" in settings:
        env["DELTACORE_COLLECTION_PREFIX"] = settings["collection_prefix"]
    args = [
        "-m",
        "deltacore.cli",
        "--embedder",
        "fake",
        "--path",
        str(settings["path"]),
        "--tenant",
        tenant,
    ]
    if "database_url" in settings:
        args += [
            "--database-url",
            settings["database_url"],
            "--chroma-url",
            settings["chroma_url"],
        ]
    return StdioServerParameters(command=sys.executable, args=[*args, "mcp"], env=env)


@asynccontextmanager
async def mcp_session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(
    session: ClientSession, tool_name: str, /, **arguments: Any
) -> dict[str, Any]:
    """A tool call that must succeed; its structured result."""
    result = await session.call_tool(tool_name, arguments)
    assert not result.isError, result.content[0].text
    return json.loads(result.content[0].text)


async def error_of(session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
    """A tool call that must fail; its error text."""
    result = await session.call_tool(tool, arguments)
    assert result.isError, (
        f"{tool}({arguments}) should have failed, returned {result.content[0].text}"
    )
    return result.content[0].text


async def test_tools_round_trip_and_malformed_calls_change_nothing(
    tmp_path: Path,
) -> None:
    settings = {"path": tmp_path / "store"}
    start = datetime.now(UTC) - timedelta(days=30)
    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        memory.add(
            "the ops team's pager rota is in the wiki", kind="fact", tenant="ops"
        )
    async with mcp_session(server_params(settings, tenant="sales")) as session:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {
            "add_memory",
            "ingest_events",
            "search_memory",
            "record_outcome",
            "recall_decisions",
            "facts_as_of",
        } <= tools

        stored = await call(
            session,
            "add_memory",
            text="the payments api listens on port 8443",
            kind="fact",
        )
        found = await call(
            session,
            "search_memory",
            query="which port does the payments api use?",
            top_k=3,
        )
        assert found["memories"][0]["id"] == stored["id"]
        assert found["memories"][0]["text"] == "the payments api listens on port 8443"

        # Malformed calls: each is a tool error naming the argument, and stores nothing.
        assert "top_k" in await error_of(
            session, "search_memory", {"query": "port", "top_k": "three"}
        )
        unknown = await error_of(
            session, "add_memory", {"txt": "typo in the argument name"}
        )
        assert "'txt'" in unknown and "text" in unknown
        assert "kind" in await error_of(
            session, "add_memory", {"text": "x", "kind": "rumour"}
        )
        assert "reward" in await error_of(
            session, "record_outcome", {"episode_id": "e1", "reward": 7}
        )
        assert "events[1]" in await error_of(
            session, "ingest_events", {"events": [{"text": "fine"}, "not an object"]}
        )
        assert "query" in await error_of(session, "search_memory", {"query": "   "})

        # One server, one tenant: another tenant's memories are out of reach, and naming a
        # tenant in an event does not write there.
        await call(
            session,
            "ingest_events",
            events=[{"text": "sales quota is 40 deals", "tenant": "ops"}],
        )
        found = await call(
            session, "search_memory", query="pager rota in the wiki", top_k=5
        )
        assert all("pager" not in memory["text"] for memory in found["memories"])

        # A batch stores its good events and reports the bad one by index and field.
        batch = await call(
            session,
            "ingest_events",
            events=[
                {"text": "open the incident for the deploy", "kind": "message", "role": "user", "episode_id": "ep1",
                 "ts": start.isoformat()},
                {"kind": "tool_call", "tool_name": "rollback", "tool_args": {"service": "payments"}, "episode_id": "ep1",
                 "text": "rollback payments", "ts": (start + timedelta(minutes=1)).isoformat()},
                {"kind": "tool_result", "tool_name": "rollback", "text": "rollback of payments done", "episode_id": "ep1",
                 "ts": (start + timedelta(minutes=2)).isoformat()},
                {"text": "bad confidence", "confidence": 3},
            ],
        )  # fmt: skip
        assert batch["stored"] == 3
        assert [(r["index"], r["field"]) for r in batch["rejected"]] == [
            (3, "confidence")
        ]

        outcome = await call(session, "record_outcome", episode_id="ep1", reward=1.0)
        assert len(outcome["steps"]) == 3 and all(
            step["credit"] > 0 for step in outcome["steps"]
        )
        decisions = await call(
            session,
            "recall_decisions",
            context="the deploy of payments broke",
            tool="rollback",
        )
        assert decisions["decisions"][0]["tool"] == "rollback"
        assert decisions["decisions"][0]["args"] == {"service": "payments"}
        assert decisions["decisions"][0]["outcome"] == "worked"

        await call(
            session,
            "add_memory",
            text="Alice lives in Paris",
            ts=(start - timedelta(days=60)).isoformat(),
        )
        await call(
            session,
            "add_memory",
            text="Alice moved to Berlin",
            ts=(start + timedelta(days=20)).isoformat(),
        )
        now = await call(session, "facts_as_of", subject="alice", attribute="home city")
        then = await call(
            session,
            "facts_as_of",
            subject="alice",
            attribute="home city",
            at=start.isoformat(),
        )
        assert [fact["value"] for fact in now["facts"]] == ["Berlin"]
        assert [fact["value"] for fact in then["facts"]] == ["Paris"]
        assert "at" in await error_of(session, "facts_as_of", {"at": "last tuesday"})

    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        texts = sorted(event.text for event in memory.events(tenant="sales", limit=100))
        assert [e.text for e in memory.events(tenant="ops")] == [
            "the ops team's pager rota is in the wiki"
        ]
    assert texts == sorted(
        [
            "sales quota is 40 deals", "the payments api listens on port 8443", "open the incident for the deploy", "rollback payments",
            "rollback of payments done", "Alice lives in Paris", "Alice moved to Berlin",
        ]
    )  # fmt: skip


async def test_two_servers_on_one_store_writing_at_once_lose_nothing(backend) -> None:
    per_server = 15
    names = ("alpha", "beta")
    up, written = asyncio.Barrier(2), asyncio.Barrier(2)

    async def agent(name: str) -> tuple[list[str], str]:
        # Each session lives in its own task (anyio scopes must close where they opened). Both
        # start together, like two agents' clients on one machine: on the embedded store the
        # process that takes the index lock first owns it, the other writes SQL only.
        async with mcp_session(server_params(backend.settings)) as session:
            await up.wait()
            if backend.name == "sqlite" and name == "alpha":
                # One of the two servers holds the embedded index's lock, so the other cannot.
                lock = VectorOwnership(Path(backend.settings["path"]))
                assert not lock.try_acquire(), (
                    "neither server owns the embedded vector index"
                )
            writes = [
                call(
                    session,
                    "add_memory",
                    text=f"note {name}-{i}: the canary build {i} of {name} passed",
                    kind="fact",
                )
                for i in range(per_server)
            ]
            ids = [result["id"] for result in await asyncio.gather(*writes)]
            await written.wait()
            # Each server finds what the other one wrote (read-your-writes across processes).
            other = names[1 - names.index(name)]
            found = await call(
                session, "search_memory", query=f"canary build 7 of {other}", top_k=3
            )
            await (
                written.wait()
            )  # neither closes (and hands the index over) before both searched
            return ids, found["memories"][0]["text"]

    (ids_a, top_a), (ids_b, top_b) = await asyncio.gather(agent("alpha"), agent("beta"))
    assert len(set(ids_a) | set(ids_b)) == 2 * per_server
    assert top_a.startswith("note beta-7:") and top_b.startswith("note alpha-7:")

    with backend.open() as memory:
        stored = sorted(event.text for event in memory.events(limit=1000))
        stats = memory.stats()
    expected = sorted(
        f"note {name}-{i}: the canary build {i} of {name} passed"
        for i in range(per_server)
        for name in ("alpha", "beta")
    )
    assert stored == expected
    # Every vector reached the index: the embedded owner (or this reopen) drained the outbox.
    assert stats.outbox_pending == 0 and stats.vectors == 2 * per_server


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """``deltacore mcp STORE --http PORT`` in a subprocess; yields its URL once the port answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = server_params({"path": tmp_path / "unused"}).env
    # The store as the positional STORE, as in the docs' client configuration.
    command = [
        sys.executable,
        "-m",
        "deltacore.cli",
        "mcp",
        str(tmp_path / "store"),
        "--embedder",
        "fake",
        "--http",
        str(port),
    ]
    log_path = tmp_path / "mcp-http.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline, (
                        log_path.read_text()
                    )
                    time.sleep(0.3)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


async def test_streamable_http_on_loopback(http_server: str, tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(http_server) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        stored = await call(
            session,
            "add_memory",
            text="the staging database is pg-staging-2",
            kind="fact",
        )
        found = await call(
            session, "search_memory", query="which staging database?", top_k=1
        )
        assert found["memories"][0]["id"] == stored["id"]
    assert (tmp_path / "store" / "deltacore.db").exists() and not (
        tmp_path / "unused"
    ).exists()


async def test_forget_tool_needs_confirmation_and_erases_only_this_tenant(tmp_path: Path) -> None:
    settings = {"path": tmp_path / "store"}
    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        memory.add("Alice Smith asked for a refund of order 991", tenant="sales")
        memory.add("Alice Smith is on the ops rota", tenant="ops")
        memory.add("Bob Jones renewed his plan", tenant="sales")
    async with mcp_session(server_params(settings, tenant="sales")) as session:
        refused = await error_of(session, "forget", {"subject": "Alice Smith"})
        assert "confirm" in refused and "events=1" in refused
        with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
            assert memory.query("Alice Smith refund", tenant="sales", top_k=5)  # still there
        assert "confirm" in await error_of(session, "forget", {"subject": "Alice Smith", "confirm": "yes please"})
        done = await call(session, "forget", subject="Alice Smith", confirm=True, reason="user request")
        assert done["counts"]["events"] == 1 and not done["nothing_found"] and done["audit_hash"]
        again = await call(session, "forget", subject="Alice Smith", confirm=True)
        assert again["nothing_found"]
    with DeltaCore.open(embedder=FakeEmbedder(), **settings) as memory:
        texts = [e.text for e in memory.events(limit=10, tenant="sales")]
        assert texts == ["Bob Jones renewed his plan"]
        assert [e.text for e in memory.events(limit=10, tenant="ops")] == ["Alice Smith is on the ops rota"]
