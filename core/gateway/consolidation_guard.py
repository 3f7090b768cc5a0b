"""The hook the consolidation layer calls before it generalises memories into schemas.

Consolidation poisoning (docs/security.md) times injected events just before an NREM
phase so that they become schemas — durable, generalised, and no longer tied to the event that
planted them. The guard is the one place that says what may be generalised: only memories that
are TRUSTED, untainted, not synthetic rehearsal, and at fast-path trust. Everything else
waits (it may still be released by a reviewer, corroborated, or confirmed by outcomes).

>>> from deltacore.gateway.consolidation_guard import TrustGuard
>>> TrustGuard().admit(namespace="trusted", trust=0.9, flags=()).allowed
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from deltacore.trust_policy import TrustPolicy
from deltacore.model import MemoryFlag, Namespace

Item = TypeVar("Item")


@dataclass(frozen=True, slots=True)
class GuardDecision:
    allowed: bool
    reason: str | None = None


class ConsolidationGuard(Protocol):
    """What consolidation needs: may this memory become (part of) a schema?"""

    def admit(self, *, namespace: str, trust: float, flags: Iterable[str]) -> GuardDecision: ...

    def filter(self, items: Sequence[Any]) -> tuple[list[Any], list[tuple[Any, str]]]: ...


class TrustGuard:
    """The default guard, driven by the trust policy's fast-path threshold."""

    def __init__(self, policy: TrustPolicy | None = None) -> None:
        self.policy = policy or TrustPolicy()

    def admit(self, *, namespace: str, trust: float, flags: Iterable[str] = ()) -> GuardDecision:
        """Whether a memory with this namespace, trust and flags may be generalised."""
        namespace = Namespace(namespace)
        flags = {str(getattr(f, "value", f)) for f in flags}
        if namespace is Namespace.QUARANTINE:
            return GuardDecision(False, "quarantined")
        if namespace is Namespace.SYNTHETIC:
            return GuardDecision(False, "synthetic rehearsal is never a source of schemas")
        if namespace is Namespace.UNVERIFIED:
            return GuardDecision(False, "unverified")
        if MemoryFlag.TAINTED.value in flags:
            return GuardDecision(False, "tainted through provenance")
        if trust < self.policy.fast_path:
            return GuardDecision(False, "trust below the fast path")
        return GuardDecision(True)

    def filter(self, items: Sequence[Any]) -> tuple[list[Any], list[tuple[Any, str]]]:
        """Split memories (``MemoryPacket``s, or anything with ``namespace``, ``trust`` and
        ``flags``) into those consolidation may use and those refused, with the reason."""
        kept: list[Any] = []
        refused: list[tuple[Any, str]] = []
        for item in items:
            flags = set(getattr(item, "flags", ()) or ())
            for delta in getattr(item, "deltas", ()) or ():
                flags.update(delta.conflict_flags)
            decision = self.admit(
                namespace=str(getattr(item.namespace, "value", item.namespace)), trust=float(item.trust), flags=flags
            )
            if decision.allowed:
                kept.append(item)
            else:
                refused.append((item, decision.reason or "refused"))
        return kept, refused
