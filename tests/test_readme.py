"""README.md's snippets that show their results (``>>>``) run, on each backend, and show what they say."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"```python\n(>>> .*?)```", re.S)


def doctest_blocks() -> list[str]:
    return _BLOCK.findall((ROOT / "README.md").read_text())


def test_the_readme_has_a_what_is_still_true_snippet():
    assert any("memory.history(" in block and "memory.conflicts()" in block for block in doctest_blocks())


def test_readme_doctests_show_what_they_print(memory):
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for number, block in enumerate(doctest_blocks()):
        test = parser.get_doctest(block, {"memory": memory}, f"README.md block {number}", "README.md", 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
