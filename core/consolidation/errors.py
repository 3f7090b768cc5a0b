"""Errors of the consolidation layer (branches of the one ``DeltaCoreError`` tree)."""

from __future__ import annotations

from deltacore.errors import DeltaCoreError


class InvalidConsolidationError(DeltaCoreError, ValueError):
    """A bad argument to ``consolidate`` (or a probe): names the field and what to do."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class ConsolidationBusyError(DeltaCoreError):
    """Another cycle of the same tenant is running (in this process or another)."""
