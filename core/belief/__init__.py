"""Layer 3, beliefs: facts in time, contradictions settled per slot, beliefs that go stale."""

from typing import Any

from deltacore.belief.attributes import AttributeResolver
from deltacore.belief.extract import FactClaim, FactExtractor, RuleFactExtractor
from deltacore.belief.layer import BeliefLayer, FactRepository
from deltacore.belief.policy import BeliefPolicy
from deltacore.belief.records import (
    UNKNOWN,
    BeliefState,
    ConflictRecord,
    ConflictResolution,
    Fact,
    FactStatus,
    SlotBelief,
)
from deltacore.belief.slots import SlotMatcher


def belief_extractor(policy: BeliefPolicy, embedder: Any | None = None) -> RuleFactExtractor:
    """The default extractor, its attribute similarity on ``embedder`` (the store's) when the
    policy allows it."""
    embed = (lambda texts: embedder(input=texts)) if embedder is not None and policy.attribute_embedding else None
    return RuleFactExtractor(AttributeResolver(embed, threshold=policy.attribute_similarity))


def slot_matcher(policy: BeliefPolicy, embedder: Any | None = None) -> SlotMatcher | None:
    """Open-vocabulary slot identity on ``embedder`` (the store's); None without one or when
    the policy turns attribute embedding off."""
    if embedder is None or not policy.attribute_embedding:
        return None
    return SlotMatcher(lambda texts: embedder(input=texts), threshold=policy.slot_similarity)


__all__ = [
    "UNKNOWN",
    "AttributeResolver",
    "BeliefLayer",
    "BeliefPolicy",
    "BeliefState",
    "ConflictRecord",
    "ConflictResolution",
    "Fact",
    "FactClaim",
    "FactExtractor",
    "FactRepository",
    "FactStatus",
    "RuleFactExtractor",
    "SlotBelief",
    "SlotMatcher",
    "belief_extractor",
    "slot_matcher",
]
