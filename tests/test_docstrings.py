"""The examples in docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "deltacore.async_engine",
    "deltacore.config",
    "deltacore.delta.provenance",
    "deltacore.engine",
    "deltacore.engine.versions",
    "deltacore.model",
    "deltacore.retrieval.fusion",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
