"""Layer 3, beliefs: facts in time, contradictions settled per slot, beliefs that go stale."""

from typing import Any

from deltacore.belief.attributes import AttributeResolver
from deltacore.belief.extract import FactClaim, FactExtractor, RuleFactExtractor
from deltacore.belief.layer import BeliefLayer, FactRepository
from deltacore.belief.llm_facts import LLMFactExtractor, LLMStats
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
from deltacore.errors import ConfigurationError


def belief_extractor(policy: BeliefPolicy, embedder: Any | None = None) -> RuleFactExtractor:
    """The default extractor, its attribute similarity on ``embedder`` (the store's) when the
    policy allows it."""
    embed = (lambda texts: embedder(input=texts)) if embedder is not None and policy.attribute_embedding else None
    return RuleFactExtractor(AttributeResolver(embed, threshold=policy.attribute_similarity))


def fact_extractor_for(chosen: FactExtractor | None, rules: RuleFactExtractor) -> FactExtractor:
    """The store's fact extractor: ``rules`` unless the caller chose one; a chosen extractor that
    runs rules first and was given none gets these (``LLMFactExtractor.use_rules``)."""
    if chosen is None:
        return rules
    if not callable(getattr(chosen, "claims", None)):
        raise ConfigurationError("fact_extractor", "must have claims(event) -> list[FactClaim] (see FactExtractor)")
    use_rules = getattr(chosen, "use_rules", None)
    if use_rules is not None:
        use_rules(rules)
    return chosen


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
    "LLMFactExtractor",
    "LLMStats",
    "FactRepository",
    "FactStatus",
    "RuleFactExtractor",
    "SlotBelief",
    "SlotMatcher",
    "belief_extractor",
    "fact_extractor_for",
    "slot_matcher",
]
