"""Every ```python snippet of the reference pages runs: docs/api.md, docs/compliance.md, docs/operating.md.

(README.md and docs/adapters.md have their own test, tests/test_snippets.py: their snippets are
whole programs.) The snippets of these pages continue a session, as a reader meets them: a
``memory`` is already open. Each page runs as one session in its own process (a snippet may set
a global OpenTelemetry provider), in a fresh folder, in page order. The session starts with a
store on the fake embedder (``same_embedder``) that holds a few memories in tenants ``default``
and ``acme``; a snippet that opens ``./memory`` itself gets the real default embedder.
The one placeholder (``postgresql+psycopg://…/memory`` with ``http://…:8000``, in the restore
example) is pointed at a local folder; nothing else in a snippet is changed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
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


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_reference_page_snippets_run_in_order(page, tmp_path):
    if any("DeltaCore.open(\"./memory\"" in b for b in _blocks(page)) and importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("a snippet opens the default (MiniLM) embedder: pip install -e '.[local]'")
    blocks = [block.replace(_PLACEHOLDER, 'DeltaCore.open("./restored", embedder=same_embedder)') for block in _blocks(page)]
    script = _PRELUDE + "".join(f"\n# ---- {page} block {i}\n{block}" for i, block in enumerate(blocks))
    (tmp_path / "session.py").write_text(script)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    result = subprocess.run(
        [sys.executable, "session.py"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
