"""The one check every adapter runs before importing its framework."""

from __future__ import annotations

import importlib.util

from deltacore.errors import MissingExtraError


def require(framework: str, extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` naming ``extra`` unless every module is importable."""
    for module in modules:
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            raise MissingExtraError(f"deltacore.adapters.{extra} ({framework})", extra, module)
