"""Every error DeltaCore raises, in one tree.

::

    DeltaCoreError
    ├── ConfigurationError (ValueError)      bad config value, URL
    │   ├── EmbedderMismatchError            store opened with another embedder than it was built with
    │   └── ForeignDatabaseError             the database file is empty or belongs to another application
    ├── InvalidEventError (ValueError)       one malformed event; names the field
    ├── InvalidQueryError (ValueError)       malformed QueryCriteria
    ├── NotFoundError (KeyError)             an id that is not in the store
    ├── MissingExtraError (ImportError)      optional dependency not installed; names the extra
    ├── BackendError                         the database or vector index failed
    │   ├── BackendUnavailableError          cannot reach PostgreSQL / a Chroma server
    │   └── StorageFullError                 the disk (or the database's size limit) is full; reads still work
    ├── StoreLockedError                     another process owns an embedded store's vector index
    ├── ReadOnlyStoreError                   a write on a store opened with read_only=True
    ├── QuotaExceededError                   a write would pass a tenant's MemoryBudget; names the limit
    ├── OverloadedError                      the governor is at level 5 for the tenant: retry later
    ├── StoreClosedError                     a call on a store after close()
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
    "ForeignDatabaseError",
    "InvalidEventError",
    "InvalidQueryError",
    "MEMORY_EXCEPTIONS",
    "MemoryAlias",
    "MemoryException",
    "MissingExtraError",
    "NotFoundError",
    "OverloadedError",
    "PoisonDetected",
    "ReadOnlyStoreError",
    "QuotaExceededError",
    "SchemaDrift",
    "StorageFullError",
    "StoreClosedError",
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
    message = error["msg"].removeprefix("Value error, ")
    named, _, rest = message.partition(": ")
    if not error["loc"] and rest and named.isidentifier():
        field, message = named, rest  # a whole-model check names the field it is about
    expected = _EXPECTED.get(error["type"].split("_")[0]) if error["type"] not in ("value_error", "missing") else None
    if expected:
        message = f"{message}; expected {expected} (got {_shown(error.get('input'))})"
    return field, message


# What a field of each pydantic type looks like, with an example (the type-error families).
_EXPECTED = {
    "datetime": "an ISO 8601 date-time such as '2026-03-01T12:00:00Z' (no zone = UTC), a datetime or unix seconds",
    "date": "an ISO 8601 date such as '2026-03-01'",
    "int": "a whole number such as 5",
    "float": "a number such as 0.5",
    "bool": "true or false",
    "dict": "a JSON object such as {\"service\": \"billing\"}",
    "list": "a list such as [\"a\", \"b\"]",
    "tuple": "a list such as [\"a\", \"b\"]",
    "string": "text such as \"deploy billing\"",
    "enum": "one of the listed values",
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
        # DeltaCore is installed from a checkout or a built wheel (it is not on a package index):
        # the first command works from the repository root; the last only with an index that has it.
        hint = (
            f"in a DeltaCore checkout run pip install -e '.[{extra}]' (a built wheel: "
            f"pip install 'dist/deltacore-<version>-py3-none-any.whl[{extra}]'; an index that has it: "
            f"pip install 'deltacore[{extra}]')"
        )
        detail = f" (the '{package}' package is not installed)" if package else ""
        super().__init__(f"{what} needs the '{extra}' extra{detail}: {hint}")


class BackendError(DeltaCoreError):
    """The SQL database or the vector index reported an error."""


class BackendUnavailableError(BackendError):
    """A configured backend (PostgreSQL, a Chroma server) cannot be reached."""


class StoreLockedError(DeltaCoreError):
    """Another process owns the vector index of an embedded store.

    Raised only when ``DeltaCoreConfig.multi_process`` is ``"refuse"``; the default mode lets the
    other process write to SQL and leaves the vector writes in the outbox for the owner.
    """


class ForeignDatabaseError(ConfigurationError):
    """The database is not a DeltaCore store: a zero-length file, not SQLite at all, or the
    tables of another application. Refused rather than turned into a new, empty store."""

    def __init__(self, location: str, why: str) -> None:
        super().__init__(
            "database",
            f"{location} is not a DeltaCore store ({why}); point path/database_url at a DeltaCore store "
            "or at a folder/database that does not exist yet, and restore the file from a backup if it was one",
        )


class StorageFullError(BackendError):
    """A write failed because the disk (or the database's size limit) is full. Nothing of that
    write was committed; reads keep working, and writes work again once space is freed."""


class ReadOnlyStoreError(DeltaCoreError):
    """A write was attempted on a store opened with ``read_only=True``."""


class QuotaExceededError(DeltaCoreError):
    """A write would pass a limit of its tenant's ``MemoryBudget``; nothing of the batch was
    stored. The message names the limit, the usage and how to raise it."""

    def __init__(self, tenant: str, limit_name: str, limit: int, used: int, adding: int, unit: str) -> None:
        self.tenant, self.limit_name, self.limit, self.used, self.adding = tenant, limit_name, limit, used, adding
        super().__init__(
            f"tenant {tenant!r}: MemoryBudget.{limit_name} is {limit:,} {unit}; {used:,} are used and this batch "
            f"adds {adding:,}, so nothing of it was stored. Raise the limit with "
            f"memory.set_budget({tenant!r}, {limit_name}=...) or DeltaCoreConfig.budgets[{tenant!r}], "
            f"or delete memories of this tenant first"
        )


class OverloadedError(DeltaCoreError):
    """The governor is at degradation level 5 (refuse) for a tenant: query p95 stayed above its
    target at every lower level. ``retry_after`` is the number of seconds until it probes level 4."""

    def __init__(self, tenant: str, operation: str, p95_ms: float | None, target_ms: float | None, retry_after: float) -> None:
        self.tenant, self.retry_after = tenant, retry_after
        p95 = f"p95 {p95_ms:.1f} ms" if p95_ms is not None else "p95"
        super().__init__(
            f"tenant {tenant!r} is overloaded (degradation level 5: {p95} over the {target_ms} ms target at every "
            f"lower level), so this {operation} was refused (level 5 refuses writes and runs only "
            f"GovernorPolicy.refuse_concurrency queries at once); retry in {retry_after:.1f} s, lower the load, or raise "
            f"MemoryBudget.query_p95_ms / pin a level with memory.set_budget({tenant!r}, pin_level=3)"
        )


class StoreClosedError(DeltaCoreError):
    """A method was called on a ``DeltaCore`` after :meth:`~deltacore.DeltaCore.close` (or after
    its ``with`` block ended); open the store again with ``DeltaCore.open(...)``."""


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
