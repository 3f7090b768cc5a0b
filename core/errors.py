"""Every error DeltaCore raises, in one tree.

::

    DeltaCoreError
    ├── ConfigurationError (ValueError)      bad config value, URL
    │   └── EmbedderMismatchError            store opened with another embedder than it was built with
    ├── InvalidEventError (ValueError)       one malformed event; names the field
    ├── InvalidQueryError (ValueError)       malformed QueryCriteria
    ├── NotFoundError (KeyError)             an id that is not in the store
    ├── MissingExtraError (ImportError)      optional dependency not installed; names the extra
    ├── BackendError                         the database or vector index failed
    │   └── BackendUnavailableError          cannot reach PostgreSQL / a Chroma server
    ├── StoreLockedError                     another process owns an embedded store's vector index
    └── MemoryException                      the nine memory failure classes, each with ``code``
        ├── PoisonDetected            E01    reported: quarantined and logged, never raised at the writer
        ├── CircularCausalChain       E02    raised by provenance walks on a loop
        ├── TemporalContradiction     E03    reported: the old fact superseded or a ConflictRecord opened, logged
        ├── SchemaDrift               E04    reported: logged and returned; ToolDrift.error() builds it
        ├── BeliefStale               E05    reported: the packet flagged STALE with a re-observe hint
        ├── MemoryAlias               E06    reported: look-alike subjects logged as ALIAS_AMBIGUITY, kept apart
        ├── DistributionShift         E07    reported: logged, recent memories promoted, older beliefs DEGRADED
        ├── CompressionLimit          E08    reserved: raised when consolidation lands
        └── ConsolidationTimeout      E09    reserved: raised when consolidation lands

Caller mistakes also subclass ``ValueError`` (or ``KeyError``/``ImportError``) so that code
written against the standard library's conventions keeps working. Backend exceptions are
translated at the storage boundary (``deltacore.storage.errors.translate_backend_errors``) and
re-raised with ``from exc`` so the original is never lost.

A memory failure is *raised* when the caller's call cannot go on, *reported* (in the result and
the security or system log) when the store handles it itself, and *reserved* while the layer
that detects it does not exist yet: the class and its code are fixed so that code written
against them keeps working when that layer lands.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BackendError",
    "BackendUnavailableError",
    "BeliefStale",
    "CircularCausalChain",
    "CompressionLimit",
    "ConfigurationError",
    "ConsolidationTimeout",
    "DeltaCoreError",
    "DistributionShift",
    "EmbedderMismatchError",
    "InvalidEventError",
    "InvalidQueryError",
    "MEMORY_EXCEPTIONS",
    "MemoryAlias",
    "MemoryException",
    "MissingExtraError",
    "NotFoundError",
    "PoisonDetected",
    "SchemaDrift",
    "StoreLockedError",
    "TemporalContradiction",
    "first_validation_error",
]


class DeltaCoreError(Exception):
    """Root of every error DeltaCore raises."""


class ConfigurationError(DeltaCoreError, ValueError):
    """A configuration value is wrong; the message names the field and how to fix it."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class EmbedderMismatchError(ConfigurationError):
    """A store was opened with a different embedder than the one its vectors come from."""

    def __init__(self, stored_name: str, stored_dimension: int, opened_name: str, opened_dimension: int) -> None:
        self.stored_name = stored_name
        self.stored_dimension = stored_dimension
        self.opened_name = opened_name
        self.opened_dimension = opened_dimension
        super().__init__(
            "embedder",
            f"this store was built with '{stored_name}' ({stored_dimension} dimensions) but was opened with "
            f"'{opened_name}' ({opened_dimension}); open it with the same embedder, or call "
            "reindex(reembed=True) after opening with allow_embedder_change=True",
        )


def first_validation_error(exc: Any, default_field: str) -> tuple[str, str]:
    """(dotted field, message) of a pydantic ``ValidationError``'s first error."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or default_field
    return field, error["msg"].removeprefix("Value error, ")


class InvalidEventError(DeltaCoreError, ValueError):
    """An event failed validation.

    ``field`` is the dotted path of the offending field (``"text"``, ``"tool_args"``),
    ``index`` its position in the batch when known.
    """

    def __init__(self, field: str, message: str, index: int | None = None) -> None:
        self.field = field
        self.reason = message
        self.index = index
        where = f"event[{index}]." if index is not None else ""
        super().__init__(f"{where}{field}: {message}")


class InvalidQueryError(DeltaCoreError, ValueError):
    """A query's criteria are malformed; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class NotFoundError(DeltaCoreError, KeyError):
    """An id (event, delta) does not exist in this store."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class MissingExtraError(DeltaCoreError, ImportError):
    """An optional dependency is missing; the message says which extra installs it."""

    def __init__(self, what: str, extra: str, package: str | None = None) -> None:
        self.extra = extra
        hint = f"pip install 'deltacore[{extra}]'"
        detail = f" (the '{package}' package is not installed)" if package else ""
        super().__init__(f"{what} needs the '{extra}' extra{detail}: run {hint}")


class BackendError(DeltaCoreError):
    """The SQL database or the vector index reported an error."""


class BackendUnavailableError(BackendError):
    """A configured backend (PostgreSQL, a Chroma server) cannot be reached."""


class StoreLockedError(DeltaCoreError):
    """Another process owns the vector index of an embedded store.

    Raised only when ``DeltaCoreConfig.multi_process`` is ``"refuse"``; the default mode lets the
    other process write to SQL and leaves the vector writes in the outbox for the owner.
    """


class MemoryException(DeltaCoreError):
    """Base of the nine memory failure classes, E01–E09 (``code``, ``name`` and ``details``)."""

    code: str = ""
    name: str = ""

    def __init__(self, message: str, **details: Any) -> None:
        self.details = details
        super().__init__(f"{self.code} {self.name}: {message}")


class PoisonDetected(MemoryException):
    """E01: a write's trust score is below the quarantine threshold.

    Reported, never raised at the writer: telling a writer its content was caught helps an
    attacker tune the next attempt. The write is blocked or quarantined and logged as a
    ``POISON_DETECTED`` security event; operators read ``IngestResult.decisions`` and
    :meth:`DeltaCore.security_events`.
    """

    code, name = "E01", "POISON_DETECTED"


class CircularCausalChain(MemoryException):
    """E02: a provenance traversal found a loop.

    Raised when a provenance walk (:meth:`DeltaCore.query_causal`, ``walk_provenance``) meets a
    loop in stored provenance. A loop a write would form is broken at its weakest edge instead,
    logged as ``CAUSAL_LOOP`` and reported in ``IngestResult.causal_loops``.

    ``cycle`` holds the delta ids on the loop, in traversal order.
    """

    code, name = "E02", "CIRCULAR_CAUSAL_CHAIN"

    def __init__(self, message: str, cycle: list[str] | None = None, **details: Any) -> None:
        self.cycle = list(cycle or [])
        super().__init__(message, cycle=self.cycle, **details)


class TemporalContradiction(MemoryException):
    """E03: a new fact has the subject and predicate of a stored one, with a different object.

    Reported, not raised: the belief layer (``deltacore.belief.policy``) supersedes the old fact
    (its ``valid_until`` closed, ``superseded_by`` set, never deleted) or keeps both with belief
    weights and opens a ``ConflictRecord`` (``DeltaCore.conflicts()``), logs a
    ``TEMPORAL_CONTRADICTION`` system event each time, and retrieved memories carry the
    SUPERSEDED or CONTRADICTED flag.
    """

    code, name = "E03", "TEMPORAL_CONTRADICTION"


class SchemaDrift(MemoryException):
    """E04: a tool's schema hash differs from the one stored on earlier deltas.

    Reported, not raised: the drift is logged as ``SCHEMA_DRIFT``, the affected deltas are
    demoted and migrated or queued for review, and the drift comes back in
    ``IngestResult.schema_drifts`` or the ``DriftReport`` of ``observe_tools``.
    ``ToolDrift.error()`` builds this exception for callers that want to raise it.
    """

    code, name = "E04", "SCHEMA_DRIFT"


class BeliefStale(MemoryException):
    """E05: a belief's confidence decayed below 0.5; re-observe before acting.

    Reported, not raised: an observation's belief loses confidence with time
    (``BeliefPolicy.half_life_hours``); below ``stale_below`` the packet is flagged STALE with a
    "re-observe before acting" hint, and ``QueryCriteria.exclude_stale`` drops it.
    """

    code, name = "E05", "BELIEF_STALE"


class MemoryAlias(MemoryException):
    """E06: two memories are semantically close but come from diverging contexts.

    Reported, not raised: when a fact names a subject that reads like a known one ("Anna" and
    "Ana", "api-staging" and "api-production"), the belief layer keeps the two apart, logs one
    ``ALIAS_AMBIGUITY`` system event for the pair, lists the other in
    ``BeliefState.ambiguous_with`` and flags the memories AMBIGUOUS (``deltacore.belief.aliasing``).
    """

    code, name = "E06", "MEMORY_ALIAS"


class DistributionShift(MemoryException):
    """E07: the context distribution moved (a spike in KL divergence of the context features).

    Reported, not raised: the belief layer's shift monitor (``deltacore.belief.shift``) logs a
    ``DISTRIBUTION_SHIFT`` system event, promotes the tenant's memories written since the shift
    in ranking and marks the beliefs last observed before it DEGRADED (packets carry the flag).
    """

    code, name = "E07", "DISTRIBUTION_SHIFT"


class CompressionLimit(MemoryException):
    """E08: an item is at the maximum compression depth and must not be re-summarised.

    Reserved: raised when consolidation lands (summaries of summaries drift from what happened;
    an item at the limit is archived instead).
    """

    code, name = "E08", "COMPRESSION_LIMIT"


class ConsolidationTimeout(MemoryException):
    """E09: a consolidation phase (NREM or REM) exceeded its time budget.

    Reserved: raised when consolidation lands (it checkpoints and resumes in the next cycle).
    """

    code, name = "E09", "CONSOLIDATION_TIMEOUT"


MEMORY_EXCEPTIONS: dict[str, type[MemoryException]] = {
    cls.code: cls
    for cls in (
        PoisonDetected,
        CircularCausalChain,
        TemporalContradiction,
        SchemaDrift,
        BeliefStale,
        MemoryAlias,
        DistributionShift,
        CompressionLimit,
        ConsolidationTimeout,
    )
}
"""The memory failure classes by code (``"E01"`` … ``"E09"``)."""
