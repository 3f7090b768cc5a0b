"""The errors tree in core/errors.py is the map users read: it must list every error, give each
memory failure its code, and say truthfully whether DeltaCore raises it today."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import deltacore
from deltacore import errors

ROOT = Path(__file__).resolve().parents[1]
TREE_LINE = re.compile(r"^[\s│├└─]*(?P<name>[A-Z]\w+)(?: \((?P<base>\w+)\))?(?:\s+(?P<rest>.*))?$")


def tree() -> dict[str, str]:
    """Class name → the rest of its line in the module docstring's tree."""
    block = errors.__doc__.split("::", 1)[1].split("\n\n")[1]
    lines = {}
    for line in block.splitlines():
        match = TREE_LINE.match(line)
        if match:
            lines[match["name"]] = match["rest"] or ""
    return lines


def error_classes() -> list[type[Exception]]:
    return [getattr(errors, name) for name in errors.__all__ if isinstance(getattr(errors, name), type)]


def raised_in_core() -> set[str]:
    """Names of the exception classes some module of core/ raises (``raise Name(...)``)."""
    names = set()
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                names.add(node.exc.func.id)
    return names


def test_every_error_is_exported_and_drawn_in_the_tree():
    defined = {
        name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, errors.DeltaCoreError)
    }
    assert defined == {cls.__name__ for cls in error_classes()}, "errors.__all__ must list every error class"
    assert set(tree()) == defined, "the tree in errors.py's docstring must draw every error class"
    assert defined <= set(deltacore.__all__), "every error is importable from deltacore"


@pytest.mark.parametrize("code", sorted(errors.MEMORY_EXCEPTIONS))
def test_each_memory_failure_carries_its_code(code):
    cls = errors.MEMORY_EXCEPTIONS[code]
    line = tree()[cls.__name__]
    assert line.split()[0] == code == cls.code, f"{cls.__name__}: tree says {line.split()[0]}, class says {cls.code}"
    assert issubclass(cls, errors.MemoryException)
    error = cls("what happened") if cls is not errors.CircularCausalChain else cls("loop", cycle=["a", "b"])
    assert str(error).startswith(f"{code} {cls.name}: ")
    assert code in (cls.__doc__ or "")


def test_the_codes_are_e01_to_e09_once_each():
    assert sorted(errors.MEMORY_EXCEPTIONS) == [f"E0{i}" for i in range(1, 10)]
    assert len({cls.name for cls in errors.MEMORY_EXCEPTIONS.values()}) == 9


@pytest.mark.parametrize("code", sorted(errors.MEMORY_EXCEPTIONS))
def test_the_tree_says_truthfully_whether_a_failure_is_raised(code):
    cls = errors.MEMORY_EXCEPTIONS[code]
    status = tree()[cls.__name__].split()[1].rstrip(":")
    assert status in {"raised", "reported", "reserved"}, f"{cls.__name__}: say raised, reported or reserved"
    raised = cls.__name__ in raised_in_core()
    if status == "raised":
        assert raised, f"the tree says {cls.__name__} is raised, but nothing in core/ raises it"
    else:
        assert not raised, f"core/ now raises {cls.__name__}: update its line in the tree and its docstring"
        assert status.capitalize() in (cls.__doc__ or ""), f"{cls.__name__}'s docstring should say it is {status}"
