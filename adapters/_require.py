"""The one check every adapter runs before it imports its framework."""

from __future__ import annotations

import importlib

from deltacore.errors import MissingExtraError


def require(framework: str, extra: str, *modules: str) -> None:
    """Import each module, or raise :class:`MissingExtraError` naming the extra to install."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise MissingExtraError(f"deltacore.adapters.{extra} ({framework})", extra, module) from exc
