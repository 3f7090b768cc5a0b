"""What an erasure audit needs from a store: :class:`AuditTarget`.

The audit sits in the compliance layer, below the engine, so it does not know ``DeltaCore``: the
engine hands it an object with these few members (``deltacore.engine.erasure_audit`` builds one),
and a test or a tool can hand it any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_ROUTE = ""
"""The router name :meth:`AuditTarget.probe` takes for the normal read path (the routers a
query picks itself)."""


@dataclass(frozen=True)
class ProbeHit:
    """One memory a probe returned."""

    event_id: str
    rank: int
    """1-based rank in the router's answer."""
    text: str
    """Everything of the memory a reader sees (its text, entities, actor, user, tool arguments
    and result): the audit looks for the subject's identifiers in it."""


class AuditTarget(Protocol):
    """A store as the audit sees it."""

    @property
    def folder(self) -> Path | None:
        """The embedded store's folder (every file under it is scanned), or None when the store
        keeps nothing in a local folder (PostgreSQL with a Chroma server)."""
        ...

    @property
    def sql_url(self) -> str:
        """The SQLAlchemy URL of the store's database (SQL scans; ``pg_dump`` on PostgreSQL)."""
        ...

    @property
    def routers(self) -> Sequence[str]:
        """The router names :meth:`probe` accepts (every router of the read path)."""
        ...

    def probe(self, text: str, router: str, top_k: int) -> Sequence[ProbeHit]:
        """What the read path returns for ``text`` through ``router`` (an expander runs on the
        results of the finding routers, as in a normal query), best first. ``router`` is
        :data:`DEFAULT_ROUTE` for the normal read path."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The store's embedder (the membership test's confidence is a cosine)."""
        ...
