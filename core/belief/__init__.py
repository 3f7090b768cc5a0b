"""Layer 3, beliefs: facts in time, contradictions settled per slot, beliefs that go stale."""

from deltacore.belief.extract import FactClaim, FactExtractor, RuleFactExtractor
from deltacore.belief.layer import BeliefLayer, FactRepository
from deltacore.belief.policy import BeliefPolicy
from deltacore.belief.records import UNKNOWN, BeliefState, ConflictRecord, ConflictResolution, Fact, FactStatus, SlotBelief

__all__ = [
    "UNKNOWN",
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
]
