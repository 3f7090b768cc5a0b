"""``deltacore facts`` and ``deltacore conflicts``: what is believed now or then, and settling a
contradiction, on a real store (each configured backend)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from deltacore.cli import main

NOW = datetime.now(timezone.utc)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


@pytest.fixture(autouse=True)
def _hermetic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DELTACORE_PATH", "DELTACORE_DATABASE_URL", "DELTACORE_CHROMA_URL", "DELTACORE_COLLECTION_PREFIX"):
        monkeypatch.delenv(name, raising=False)


def _store_args(backend) -> list[str]:
    settings = backend.settings
    args = ["--path", str(settings["path"]), "--embedder", "fake"]
    if "database_url" in settings:
        args += ["--database-url", settings["database_url"], "--chroma-url", settings["chroma_url"]]
    return args


@pytest.fixture
def cli(backend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run ``deltacore <store options> ARGS…`` in-process; returns (exit code, stdout, stderr)."""
    if "collection_prefix" in backend.settings:
        monkeypatch.setenv("DELTACORE_COLLECTION_PREFIX", backend.settings["collection_prefix"])

    def run(*args: str) -> tuple[int, str, str]:
        code = main([*_store_args(backend), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def beliefs(memory):
    """Alice moved from Paris to Berlin; the user's language is contested (Python vs an unsure Go)."""
    memory.add("Alice lives in Paris", ts=days_ago(40))
    memory.add("Alice moved to Berlin", ts=days_ago(2))
    memory.add("The user prefers Python", ts=days_ago(30))
    memory.add("The user prefers Go", ts=days_ago(1), confidence=0.7)
    memory.add("Bob works at Acme", ts=days_ago(5), tenant="ops")
    [conflict] = memory.conflicts()
    memory.close()  # the CLI opens the store itself
    return conflict


def test_facts_lists_what_is_believed_now_as_a_table(cli, beliefs) -> None:
    code, out, err = cli("facts")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["subject", "attribute", "value", "status"]
    rows = [line.split("  ") for line in lines[1:-1]]
    cells = [[cell.strip() for cell in row if cell.strip()] for row in rows]
    assert [row[:4] for row in cells] == [
        ["alice", "home city", "Berlin", "current"],
        ["user", "preferred language", "Python", "contested"],
        ["user", "preferred language", "Go", "contested"],
    ]
    assert lines[-1] == "3 facts (2 contested: see `deltacore conflicts`)"
    code, out, _ = cli("facts", "--tenant", "ops")
    assert code == 0 and "Acme" in out and "Berlin" not in out


def test_facts_at_a_date_answers_as_it_stood_then(cli, beliefs) -> None:
    then = days_ago(20).date().isoformat()
    code, out, _ = cli("facts", "--subject", "Alice", "--at", then)
    assert code == 0
    assert "Paris" in out and "superseded" in out and "Berlin" not in out
    assert out.splitlines()[-1] == f"1 fact as of {then} 00:00"
    code, out, _ = cli("facts", "--subject", "alice", "--at", days_ago(100).date().isoformat())
    assert code == 0 and out.startswith("no facts as of")


def test_facts_json_filters_by_subject_and_attribute(cli, beliefs) -> None:
    code, out, _ = cli("facts", "--subject", "user", "--attribute", "language", "--json")
    facts = json.loads(out)
    assert code == 0 and {f["value"] for f in facts} == {"Python", "Go"}
    assert {f["attribute"] for f in facts} == {"preferred language"} and all(f["status"] == "contested" for f in facts)


def test_conflicts_lists_the_open_one_with_its_belief_weights(cli, beliefs) -> None:
    code, out, err = cli("conflicts")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "subject", "attribute"]
    assert lines[1].startswith(beliefs.id) and "Python (0.5" in lines[1] and "Go (0.4" in lines[1]
    assert lines[-1] == "1 open; settle one with: deltacore conflicts --resolve ID --as old|new|VALUE [--note TEXT]"
    code, out, _ = cli("conflicts", "--json")
    [listed] = json.loads(out)
    assert listed["id"] == beliefs.id and listed["resolution"] == "pending"


def test_resolve_settles_it_and_the_loser_stays_in_history(cli, beliefs) -> None:
    code, out, _ = cli("conflicts", "--resolve", beliefs.id, "--as", "go", "--note", "the user confirmed it")
    assert code == 0
    assert out.strip() == f"conflict {beliefs.id} (user preferred language) resolved: Go (the user confirmed it)"
    assert cli("conflicts")[1].strip() == "no open conflicts"
    code, out, _ = cli("conflicts", "--all")
    assert "human_resolved: Go" in out
    code, out, _ = cli("facts", "--subject", "user", "--json")
    assert [f["value"] for f in json.loads(out)] == ["Go"]


def test_mistakes_exit_2_naming_the_option(cli, beliefs) -> None:
    code, _, err = cli("facts", "--at", "last tuesday")
    assert code == 2 and "argument --at: not an ISO 8601 time: 'last tuesday'" in err
    code, _, err = cli("conflicts", "--resolve", "no-such-conflict", "--as", "new")
    assert code == 2 and "--resolve: no conflict with id 'no-such-conflict'" in err
    code, _, err = cli("conflicts", "--resolve", beliefs.id, "--as", "Rust")
    assert code == 2 and "--as: 'Rust' is neither side of the conflict" in err
    code, _, err = cli("conflicts", "--resolve", beliefs.id)
    assert code == 2 and "--as old, --as new or --as VALUE" in err
    code, _, err = cli("conflicts", "--as", "new")
    assert code == 2 and "--as needs --resolve ID" in err
    code, _, err = cli("conflicts", "--note", "why")
    assert code == 2 and "--note needs --resolve ID" in err
    assert cli("conflicts", "--resolve", beliefs.id, "--as", "old")[0] == 0
    code, _, err = cli("conflicts", "--resolve", beliefs.id, "--as", "new")
    assert code == 2 and "--resolve: conflict" in err and "already resolved" in err


def test_the_installed_command_runs(backend, beliefs) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DELTACORE_")}
    if "collection_prefix" in backend.settings:
        env["DELTACORE_COLLECTION_PREFIX"] = backend.settings["collection_prefix"]
    done = subprocess.run(
        [sys.executable, "-m", "deltacore.cli", *_store_args(backend), "facts", "--subject", "alice"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Berlin" in done.stdout and done.stdout.splitlines()[-1] == "1 fact"
