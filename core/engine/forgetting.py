"""The compliance part of the ``DeltaCore`` facade: ``forget``, ``forget_many``, ``forget_status``.

The pipeline lives in ``deltacore.compliance``; this mixin wires it to the store's SQL
database, belief layer, HOT tier and vector index, and resumes interrupted requests on open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deltacore.belief import BeliefLayer
from deltacore.compliance import ForgetCertificate, ForgetRequest, ForgetStatus, InvalidForgetRequestError, coerce_requests
from deltacore.compliance.derived import FactRederivation, LearnedFormsForgotten
from deltacore.compliance.journal import hmac_key
from deltacore.compliance.pipeline import Forgetter
from deltacore.compliance.reputation import ReputationRederivation
from deltacore.compliance.utilities import UtilityRederivation
from deltacore.consolidation.forgetting import SchemaSupportScrub
from deltacore.errors import NotFoundError
from deltacore.storage.erasure import ErasureRepository
from deltacore.storage.reindex import rebuild_index
from deltacore.storage.vector_swap import rebuild_by_swap

RequestLike = ForgetRequest | str | Mapping[str, Any]


class ForgettingMethods:
    """Mixed into :class:`~deltacore.DeltaCore`; the stores it uses are wired there."""

    _sql: Any
    _hot: Any
    _vectors: Any
    _beliefs: BeliefLayer
    _learner: Any
    config: Any
    _thaw_for_forget: Any
    _with_cold_counts: Any
    _consolidation_derived: Any
    _plan_repo: Any

    def forget(self, request: RequestLike | None = None, /, *, dry_run: bool = False, **fields: Any) -> ForgetCertificate:
        """Erase a subject everywhere and return the certificate that proves it.

        ``forget(ForgetRequest(subject="Alice Smith", identifiers=["alice@x.com"]))``, or the same
        as ``forget("Alice Smith", identifiers=["alice@x.com"])`` or
        ``forget(subject=…, event_ids=…, source=…, user_id=…, mode="full", requester=…, reason=…)``.
        Mode ``full`` (default) erases the events, every copy and everything derived, re-derives
        facts from what remains and runs the physical pass; ``verified`` adds the audit.
        ``dry_run=True`` erases nothing and reports counts per artifact with samples.
        A request that matches nothing returns a certificate with ``nothing_found=True``.
        """
        requests = coerce_requests(request, **fields)
        if len(requests) != 1:
            raise InvalidForgetRequestError("request", "forget() takes one request; use forget_many() for a batch")
        if dry_run:
            return self._with_cold_counts(self._forgetter().forget(requests, dry_run=True)[0], requests[0])
        self._thaw_for_forget(requests)  # COLD rows it matches come back to SQL first (engine/consolidation.py)
        return self._forgetter().forget(requests)[0]

    def forget_many(
        self, requests: Sequence[RequestLike], *, dry_run: bool = False
    ) -> list[ForgetCertificate]:
        """Several requests, one certificate each; their physical pass runs once for the batch."""
        if isinstance(requests, (str, ForgetRequest, Mapping)):
            raise InvalidForgetRequestError("requests", "give a list of requests (use forget() for one)")
        coerced = coerce_requests(list(requests))
        if dry_run:
            certificates = self._forgetter().forget(coerced, dry_run=True)
            return [self._with_cold_counts(c, r) for c, r in zip(certificates, coerced)]
        self._thaw_for_forget(coerced)  # COLD rows they match come back to SQL first (engine/consolidation.py)
        return self._forgetter().forget(coerced)

    def forget_status(self, request_id: str) -> ForgetStatus:
        """Where a forget request stands (pending, running, completed, nothing_found), from the
        store's journal; raises ``NotFoundError`` for an id this store never saw."""
        status = self._forgetter().status(request_id)
        if status is None:
            raise NotFoundError(f"no forget request with id {request_id!r} in this store")
        return status

    # ---- wiring ----------------------------------------------------------------------------------

    def _forget_hmac_key(self) -> bytes:
        """The store's key for subject HMACs (certificates hold only the HMAC)."""
        with self._sql.writer() as conn:
            return hmac_key(conn)

    def _fact_rederivation(self) -> FactRederivation:
        return FactRederivation(self._beliefs, ErasureRepository())

    def _forgetter(self) -> Forgetter:
        # Built per call: whether this process owns the embedded vector index can change.
        index = self._vectors.current()
        kind = f"chroma-{index.kind}" if index is not None else "chroma-embedded"
        folder = None
        if index is not None and index.kind == "embedded":
            folder = self.config.path.expanduser() / "chroma"

        def rebuild(tenant: str) -> Any:
            current = self._vectors.current()
            if current is None:
                return 0
            # Large batches: measured 2.2 s instead of 3.0 s for 5,000 vectors (Chroma's per-call cost).
            if current.names is None:
                return rebuild_index(self._sql, current, [tenant], batch_size=4000)
            return rebuild_by_swap(self._sql, current, tenant, batch_size=4000)

        server_folder = None
        if index is not None and index.kind == "server" and self.config.chroma_server_path is not None:
            server_folder = self.config.chroma_server_path.expanduser()

        return Forgetter(
            self._sql,
            derived=self._derived_stores(),
            invalidate=self._hot.invalidate,
            apply_outbox=self._vectors.drain,
            rebuild_vectors=rebuild if index is not None else None,
            vector_kind=kind,
            chroma_folder=folder,
            chroma_server_folder=server_folder,
            audit=self._audit_forget,
        )

    def _derived_stores(self) -> list[Any]:
        """Every store of artifacts derived from events (``DerivedArtifactStore``): facts,
        learned forms, utilities, reputation and consolidation's merged memories."""
        alpha = self._learner.settings.alpha
        trust = self.config.trust
        reputation = ReputationRederivation(trust.outcome_rate if trust.enabled else 0.0, trust.initial_reputation)
        return [
            self._fact_rederivation(),
            LearnedFormsForgotten(self._beliefs),
            UtilityRederivation(self.config.decay_rate_per_hour, alpha),
            reputation,
            self._consolidation_derived(),  # merged memories of erased events (engine/consolidation.py)
            SchemaSupportScrub(self._plan_repo),  # erased episodes out of the schemas' recorded support
        ]

    def _audit_forget(self, request: ForgetRequest, certificate: ForgetCertificate) -> Any:
        verify = getattr(self, "verify_erasure", None)
        if verify is None or not request.terms():
            return None
        return verify(request.terms()[0], identifiers=list(request.terms()[1:]), tenant=request.tenant)

    def _resume_forgets(self) -> int:
        """Finish forget requests a crash interrupted (called on open)."""
        return self._forgetter().resume()
