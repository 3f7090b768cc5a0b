"""The house: imports follow the layer order written in docs/architecture.md.

Reads every module of ``core/`` and ``adapters/`` with ``ast`` (imports inside functions and
under ``TYPE_CHECKING`` count: a lazy import is still a dependency) and fails on

- an import that runs back up the layer order (a lower layer importing a higher one),
- a cycle between layer folders,
- ``deltacore.storage.tables`` imported outside storage (the tables are storage's own business),
- a module over 500 lines.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500


def layer_order() -> dict[str, int]:
    """Unit → rank, from the ```layers block of docs/architecture.md (first line = lowest)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    match = re.search(r"```layers\n(.*?)```", text, re.S)
    assert match, "docs/architecture.md must keep the ```layers block this test reads"
    ranks: dict[str, int] = {}
    for rank, line in enumerate(l for l in match.group(1).splitlines() if l.strip()):
        for unit in line.split("#")[0].split():
            ranks[unit] = rank
    return ranks


def modules() -> list[tuple[Path, str]]:
    """(file, unit) for every module; a unit is a folder of core/, a top-level module, or 'adapters'."""
    found = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        parts = path.relative_to(ROOT / "core").parts
        found.append((path, parts[0] if len(parts) > 1 else path.stem))
    for path in sorted((ROOT / "adapters").rglob("*.py")):
        found.append((path, "adapters"))
    return found


def unit_of(module: str) -> str | None:
    """The unit an absolute module name belongs to, or None when it is not ours."""
    parts = module.split(".")
    if parts[0] != "deltacore":
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # `from deltacore import storage` names a unit too.
            if node.module == "deltacore":
                found.extend((node.lineno, f"deltacore.{alias.name}") for alias in node.names)
    return found


def arrows() -> list[tuple[Path, int, str, str, str]]:
    """(file, line, imported module, from unit, to unit) for every import of our own code."""
    result = []
    for path, unit in modules():
        for lineno, module in imported_modules(path):
            target = unit_of(module)
            if target is not None and target != unit:
                result.append((path, lineno, module, unit, target))
    return result


def test_every_unit_has_a_place_in_the_layer_order():
    ranks = layer_order()
    missing = sorted({unit for _, unit in modules()} - set(ranks))
    assert not missing, f"add these to the ```layers block of docs/architecture.md: {missing}"


def test_no_import_runs_back_up_the_layer_order():
    ranks = layer_order()
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {module} ({src} may not depend on {dst})"
        for path, line, module, src, dst in arrows()
        if src in ranks and dst in ranks and ranks[dst] > ranks[src]
    ]
    assert not upward, "\n".join(upward)


def test_no_cycle_between_layer_folders():
    graph: dict[str, set[str]] = defaultdict(set)
    for _, _, _, src, dst in arrows():
        graph[src].add(dst)
    cycles = []
    for start in sorted(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    cycles.append(" -> ".join([*trail, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    assert not cycles, "\n".join(sorted(set(cycles)))


def test_storage_tables_stay_inside_storage():
    leaks = [
        f"{path.relative_to(ROOT)}:{line}"
        for path, line, module, src, _ in arrows()
        if module.startswith("deltacore.storage.tables") and src != "storage"
    ]
    assert not leaks, "use a storage repository instead of the tables: " + ", ".join(leaks)


@pytest.mark.parametrize("path", [p for p, _ in modules()], ids=lambda p: str(p.relative_to(ROOT)))
def test_module_stays_small(path: Path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by responsibility"
