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
    └── MemoryException                      the seed's nine failure classes, each with ``code``
        ├── PoisonDetected            E01
        ├── CircularCausalChain       E02
        ├── TemporalContradiction     E03
        ├── SchemaDrift               E04
        ├── BeliefStale               E05
        ├── MemoryAlias               E06
        ├── DistributionShift         E07
        ├── CompressionLimit          E08
        └── ConsolidationTimeout      E09

Caller mistakes also subclass ``ValueError`` (or ``KeyError``/``ImportError``) so that code
written against the standard library's conventions keeps working. Backend exceptions are
translated at the storage boundary (``deltacore.storage.errors.translate_backend_errors``) and
re-raised with ``from exc`` so the original is never lost.
"""

from __future__ import annotations

from typing import Any


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
    """Base of the seed's nine memory failure classes (E01–E09)."""

    code: str = ""
    name: str = ""

    def __init__(self, message: str, **details: Any) -> None:
        self.details = details
        super().__init__(f"{self.code} {self.name}: {message}")


class PoisonDetected(MemoryException):
    """E01: a write's trust score is below the quarantine threshold."""

    code, name = "E01", "POISON_DETECTED"


class CircularCausalChain(MemoryException):
    """E02: a provenance traversal found a loop.

    ``cycle`` holds the delta ids on the loop, in traversal order.
    """

    code, name = "E02", "CIRCULAR_CAUSAL_CHAIN"

    def __init__(self, message: str, cycle: list[str] | None = None, **details: Any) -> None:
        self.cycle = list(cycle or [])
        super().__init__(message, cycle=self.cycle, **details)


class TemporalContradiction(MemoryException):
    """E03: same subject and predicate, a different object."""

    code, name = "E03", "TEMPORAL_CONTRADICTION"


class SchemaDrift(MemoryException):
    """E04: a tool's schema hash differs from the one stored on earlier deltas."""

    code, name = "E04", "SCHEMA_DRIFT"


class BeliefStale(MemoryException):
    """E05: a belief's confidence decayed below 0.5; re-observe before acting."""

    code, name = "E05", "BELIEF_STALE"


class MemoryAlias(MemoryException):
    """E06: high semantic similarity with a divergent context."""

    code, name = "E06", "MEMORY_ALIAS"


class DistributionShift(MemoryException):
    """E07: the context distribution moved (KL divergence spike)."""

    code, name = "E07", "DISTRIBUTION_SHIFT"


class CompressionLimit(MemoryException):
    """E08: an item is at the maximum compression depth and must not be re-summarised."""

    code, name = "E08", "COMPRESSION_LIMIT"


class ConsolidationTimeout(MemoryException):
    """E09: a consolidation phase exceeded its time budget."""

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
"""The seed's exception classes by code (``"E01"`` … ``"E09"``)."""
