"""``deltacore review``: list the review queue as a table (or JSON) and resolve items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltacore import DeltaCore
from deltacore.cli import main
from deltacore.testing import FakeEmbedder

V1 = {"type": "object", "properties": {"service": {"type": "string"}, "env": {"type": "string"}}}
V2 = {"type": "object", "properties": {"service": {"type": "string"}, "region": {"type": "integer"}}, "required": ["region"]}


@pytest.fixture(autouse=True)
def _hermetic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DELTACORE_PATH", "DELTACORE_DATABASE_URL", "DELTACORE_CHROMA_URL", "DELTACORE_COLLECTION_PREFIX"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def cli(store: Path, capsys: pytest.CaptureFixture[str]):
    def run(*args: str) -> tuple[int, str, str]:
        code = main(["--path", str(store), "--embedder", "fake", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def queued(store: Path) -> list[int]:
    """A store with one UNSTABLE item (tenant ops) and one failed schema migration (default)."""
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        flaky = memory.add("retry the upload twice", episode_id="u", tenant="ops")
        for reward in (1.0, -1.0, 1.0, -1.0):
            memory.feedback(flaky, reward)
        memory.add("deploy", kind="tool_call", tool_name="deploy", tool_args={"service": "api", "env": "prod"},
                   tool_schema=V1, episode_id="d")  # fmt: skip
        memory.observe_tools({"deploy": V2})
        return [item.id for item in memory.review_queue(tenant=None)]


def test_lists_every_tenants_items_as_a_table(cli, queued) -> None:
    code, out, err = cli("review")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["id", "kind", "tenant", "created", "event"]
    assert "UNSTABLE" in lines[1] and "ops" in lines[1]
    assert "SCHEMA_DRIFT" in lines[2] and "cannot migrate the call's arguments: parameter 'env'" in lines[2]
    assert lines[-1].startswith("2 waiting; resolve one with: deltacore review --resolve ID --as accept|reject")
    code, out, _ = cli("review", "--tenant", "ops")
    assert code == 0 and "SCHEMA_DRIFT" not in out and "UNSTABLE" in out


def test_json_lists_items_with_their_reason(cli, queued) -> None:
    code, out, _ = cli("review", "--json")
    items = json.loads(out)
    assert code == 0 and [item["id"] for item in items] == queued
    assert items[1]["kind"] == "SCHEMA_DRIFT" and "'env' no longer exists" in items[1]["reason"]


def test_resolve_then_it_leaves_the_queue(cli, queued, store: Path) -> None:
    unstable, drift = queued
    code, out, _ = cli("review", "--resolve", str(drift), "--as", "reject", "--note", "the region cannot be derived")
    assert code == 0 and out.strip() == f"item {drift} (SCHEMA_DRIFT) resolved: reject: the region cannot be derived"
    code, out, _ = cli("review", "--resolve", str(unstable), "--as", "accept")
    assert code == 0
    assert cli("review")[1].strip() == "nothing to review"
    code, out, _ = cli("review", "--all")
    assert "reject: the region cannot be derived" in out and "accept" in out
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        assert memory.recall_decisions("deploy api") == []  # the rejected decision is gone
        assert memory.review_queue(tenant=None) == []


def test_mistakes_exit_2_with_a_clear_message(cli, queued) -> None:
    code, _, err = cli("review", "--resolve", "999", "--as", "accept")
    assert code == 2 and "no review item 999" in err
    assert cli("review", "--resolve", str(queued[0]), "--as", "accept")[0] == 0
    code, _, err = cli("review", "--resolve", str(queued[0]), "--as", "reject")
    assert code == 2 and "already resolved" in err
    code, _, err = cli("review", "--resolve", str(queued[1]))
    assert code == 2 and "--as accept or --as reject" in err
    code, _, err = cli("review", "--as", "accept")
    assert code == 2 and "--as needs --resolve ID" in err
    code, _, err = cli("review", "--resolve", "1", "--as", "maybe")
    assert code == 2 and "invalid choice" in err


def test_an_empty_store_folder_is_explained(cli) -> None:
    code, _, err = cli("review")
    assert code == 2 and "no store in" in err


def test_resolve_with_migrated_arguments(cli, queued, store: Path) -> None:
    _, drift = queued
    code, _, err = cli("review", "--resolve", str(drift), "--as", "accept", "--args", "{not json")
    assert code == 2 and "--args is not valid JSON" in err
    code, _, err = cli("review", "--resolve", str(drift), "--as", "accept", "--args", '{"service": "api"}')
    assert code == 2 and "requires 'region'" in err
    code, _, err = cli("review", "--args", '{"region": 1}')
    assert code == 2 and "--args needs --resolve ID" in err
    code, out, _ = cli("review", "--resolve", str(drift), "--as", "accept", "--args", '{"service": "api", "region": 1}')
    assert code == 0 and "resolved: accept" in out
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        [decision] = memory.recall_decisions("deploy api")
        assert decision.migrated and decision.args == {"service": "api", "region": 1}
