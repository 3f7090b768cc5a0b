"""Setting it up as a newcomer would: each make target installs what it needs, and the install
advice (docs and MissingExtraError) works from a checkout, where DeltaCore actually comes from."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from deltacore.errors import MissingExtraError

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(target: str, tmp_path: Path) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, f"VENV={tmp_path / 'venv'}"], capture_output=True, text=True, check=True
    )
    return result.stdout


def test_make_quickstart_installs_only_the_core_and_the_local_embedder(tmp_path):
    commands = _dry_run("quickstart", tmp_path)
    installs = [line for line in commands.splitlines() if " install " in line and "pip>=" not in line]
    assert any("-e '.[local]'" in line for line in installs), installs
    assert not any("[all]" in line or "--group" in line or "langchain" in line for line in installs), installs
    assert "torch==2.13.0" in commands  # the CPU build, before sentence-transformers


def test_make_test_installs_every_extra_and_the_dev_group(tmp_path):
    commands = _dry_run("test", tmp_path)
    assert "-e '.[all]' --group dev" in commands and "pytest" in commands


def test_missing_extra_advice_works_from_a_checkout():
    message = str(MissingExtraError("The default embedder (local MiniLM)", "local", "sentence_transformers"))
    assert "pip install -e '.[local]'" in message and "checkout" in message
    assert (ROOT / "pyproject.toml").read_text().count("local = [") == 1  # the extra it names exists


def test_adapters_doc_installs_from_a_checkout_with_an_embedder():
    doc = (ROOT / "docs" / "adapters.md").read_text()
    assert "pip install -e '.[langchain,local]'" in doc
    assert "pip wheel --no-deps -w dist ." in doc
    # No bare index install offered as the way to get it.
    assert not re.search(r"^`?pip install 'deltacore\[", doc, re.M)
