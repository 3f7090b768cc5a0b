"""The records that flow through DeltaCore: plain, immutable data.

Behaviour lives in the layer that owns it (``ingest``, ``delta``, ``retrieval``…); these classes
only validate their own fields. Inputs (:class:`Event`, :class:`QueryCriteria`) accept plain
dicts through ``model_validate`` so JSON lines and framework payloads map onto them directly.

One module per concern: ``scope`` (where a record belongs), ``events`` (what happened),
``packets`` (what a query returns), ``query`` (what to retrieve, how, within which budget),
``trust`` (the gateway's vocabulary and reports), ``learning`` (credit, review, drift),
``results`` (what the store reports back).
"""

from deltacore.model.base import as_utc, new_id, utc_now
from deltacore.model.events import Delta, Event, EventKind, Rejection
from deltacore.model.learning import (
    CreditUpdate,
    Decision,
    DriftReport,
    OutcomeReport,
    PropagationReport,
    ReviewItem,
    ToolDrift,
)
from deltacore.model.packets import MemoryFlag, MemoryPacket, PacketKind, SchemaMatch
from deltacore.model.query import PresetName, QueryCriteria, RouterName, SearchBudget
from deltacore.model.results import CausalChain, DeleteResult, IngestResult, StoreStats
from deltacore.model.scope import SCOPE_FIELDS, Scope, ScopeFilter
from deltacore.model.trust import Channel, Namespace, QuarantineReview, SecurityEvent, TrustAction, TrustDecision
from deltacore.model.versions import MemoryVersion, UpdateResult
from deltacore.model.consolidation import ConsolidationPhase, ConsolidationReport, ConsolidationStatus
from deltacore.model.explain import PacketExplanation, QueryExplanation, RouterChoice, RouterScore
from deltacore.model.plans import Migration, Plan, PlanEvidence, PlanStep, Schema, SchemaStep, Slot

__all__ = [
    "ConsolidationPhase",
    "ConsolidationReport",
    "ConsolidationStatus",
    "Migration",
    "Plan",
    "PlanEvidence",
    "PlanStep",
    "Schema",
    "SchemaStep",
    "Slot",
    "SCOPE_FIELDS",
    "CausalChain",
    "Channel",
    "CreditUpdate",
    "Decision",
    "DeleteResult",
    "Delta",
    "DriftReport",
    "Event",
    "EventKind",
    "IngestResult",
    "MemoryFlag",
    "MemoryVersion",
    "MemoryPacket",
    "Namespace",
    "PacketKind",
    "SchemaMatch",
    "OutcomeReport",
    "PacketExplanation",
    "PresetName",
    "PropagationReport",
    "QuarantineReview",
    "QueryCriteria",
    "QueryExplanation",
    "Rejection",
    "ReviewItem",
    "RouterChoice",
    "RouterName",
    "RouterScore",
    "Scope",
    "ScopeFilter",
    "SearchBudget",
    "SecurityEvent",
    "StoreStats",
    "ToolDrift",
    "TrustAction",
    "TrustDecision",
    "UpdateResult",
    "as_utc",
    "new_id",
    "utc_now",
]
