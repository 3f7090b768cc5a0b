"""The trust gateway's knobs: thresholds and signal weights, in one config object.

The defaults: weights 0.3 / 0.25 / 0.25 / 0.2; routing at 0.7 / 0.4 / 0.2; E01 penalty 0.3,
blacklist below 0, quarantine the source's last 100 events. A benchmark
calibrates them by passing ``DeltaCoreConfig(trust=TrustPolicy(...))``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deltacore.model import TrustAction


class TrustPolicy(BaseModel):
    """Thresholds and weights of the trust gateway (``DeltaCoreConfig.trust``).

    >>> TrustPolicy(fast_path=0.8).route(0.75).value
    'tag'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    """False: every write is accepted at its channel's prior (no scoring, no playbook)."""

    # ---- routing -------------------------------------------------------------------------------
    fast_path: float = Field(default=0.7, ge=0.0, le=1.0)
    """Score at or above which a write is accepted into its channel's namespace."""
    slow_path: float = Field(default=0.4, ge=0.0, le=1.0)
    """Score at or above which a write is stored UNVERIFIED (trust tag); below: quarantine."""
    quarantine: float = Field(default=0.2, ge=0.0, le=1.0)
    """Score at or above which a write is quarantined; below it is blocked (E01 playbook)."""

    # ---- the linear combination -------------------------------------------------------------
    weight_source: float = Field(default=0.3, ge=0.0)
    """Weight of channel × source reputation."""
    weight_content: float = Field(default=0.25, ge=0.0)
    """Weight of ``1 − content anomaly`` (instruction-like text aimed at the agent)."""
    weight_consistency: float = Field(default=0.25, ge=0.0)
    """Weight of semantic consistency (contradiction, question echo, identifier bridge)."""
    weight_temporal: float = Field(default=0.2, ge=0.0)
    """Weight of temporal plausibility (future / back-dated timestamps, bursts)."""

    # ---- vetoes: one strong doubt must be able to pull a score down on its own ----------------
    veto_content: float = Field(default=0.6, ge=0.0, le=1.0)
    """The score is multiplied by ``1 − veto_content · anomaly``: an instruction aimed at the
    agent is quarantined even from a clean source (the linear sum alone cannot)."""
    veto_consistency: float = Field(default=0.3, ge=0.0, le=1.0)
    """Multiplier ``1 − veto_consistency · (1 − consistency)``: a contradiction leaves the fast path."""
    veto_temporal: float = Field(default=0.3, ge=0.0, le=1.0)
    """Multiplier ``1 − veto_temporal · (1 − plausibility)``: a future timestamp leaves the fast path."""
    tool_signature_factor: float = Field(default=0.5, ge=0.0, le=1.0)
    """A tool output whose tool or schema does not match the registry is multiplied by this (default: halved)."""

    # ---- source reputation (per tenant and source, persisted) ----------------------------------
    initial_reputation: float = Field(default=0.5, ge=0.0, le=1.0)
    """Reputation of a source never seen before."""
    poison_penalty: float = Field(default=0.3, ge=0.0)
    """Reputation lost per blocked write (E01); below 0 the source is blacklisted."""
    quarantine_penalty: float = Field(default=0.05, ge=0.0)
    """Reputation lost per quarantined write."""
    release_bonus: float = Field(default=0.1, ge=0.0)
    """Reputation regained when a reviewer releases one of the source's quarantined events."""
    outcome_rate: float = Field(default=0.05, ge=0.0)
    """Reputation change per unit of outcome credit earned by the source's memories."""
    playbook_quarantine_last: int = Field(default=100, ge=0)
    """E01: how many of the source's most recent events are quarantined for review."""
    probation_events: int = Field(default=0, ge=0)
    """A source with fewer stored events than this writes UNVERIFIED (slow path) until it has a
    history. 0 = off: a clean new source is trusted on its content."""

    # ---- the principal: the tenant's own user, speaking for themselves -------------------------
    principal_preferences: bool = True
    """A message on the user channel, in the user's role, from no named source or one of
    ``principal_sources`` (and no ``actor`` but the event's own ``user_id``) is the tenant's own
    user: their directives about how the agent talks to them ("always answer in French from now
    on") are preferences, not attacks (``ContentAnomaly.principal_score``). Role markers,
    overrides of earlier instructions, authority claims, secrecy, planted answers and orders
    that reach tools, links or other people are judged as from anyone. In a scope without a
    ``user_id``, anyone speaking as themselves on the user channel gets the narrower task
    exemption (``ContentAnomaly.task_score``: an unscoped order for a tool is their task).
    False: both off."""
    principal_sources: tuple[str, ...] = ("langchain:", "autogen:", "crewai:", "llamaindex:")
    """Source prefixes that are the application's own integration relaying its user (the
    adapters name their sources ``<framework>:<component>``); ``user:<the event's user_id>`` is
    the principal too. Any other source (``user:mallory``, ``web:…``) is someone else."""

    # ---- temporal plausibility ----------------------------------------------------------------
    future_skew_seconds: float = Field(default=300.0, ge=0.0)
    """A timestamp later than now by more than this is implausible."""
    backdate_tolerance_days: float = Field(default=30.0, ge=0.0)
    """A timestamp earlier than the source's latest stored one by more than this is suspicious
    (the temporal-anchor attack)."""
    burst_events: int = Field(default=50, ge=1)
    """More events than this from one source within ``burst_window_seconds`` (event time) is a burst."""
    burst_window_seconds: float = Field(default=60.0, gt=0.0)

    # ---- retrieval-time defence --------------------------------------------------------------
    corroboration_similarity: float = Field(default=0.8, ge=0.0, le=1.0)
    """Cosine at which a trusted memory of another source corroborates an unverified one."""
    unverified_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    """Retrieval score multiplier of an uncorroborated UNVERIFIED memory (channel-unverified)."""
    suspect_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    """Retrieval score multiplier of an uncorroborated memory stored on the slow path."""
    newcomer_events: int = Field(default=10, ge=0)
    """Standing, part 1 of 3: a source needs at least this many stored (not quarantined)
    memories. A source without standing is a *newcomer* at read time: its memories count only
    when corroborated by an independent source with standing, otherwise their score is
    multiplied by ``newcomer_weight``. Writes without a ``source`` are not judged. 0 = off."""
    standing_days: float = Field(default=3.0, ge=0.0)
    """Standing, part 2: its stored memories span at least this many days (event time, first
    to latest). A count alone is bought in one sitting: an attacker writes ten innocuous lines,
    then the payload; a history over days costs the attacker days of patience."""
    standing_reputation: float = Field(default=0.4, ge=0.0, le=1.0)
    """Standing, part 3: its reputation is at least this (sources start at
    ``initial_reputation``; quarantined writes cost ``quarantine_penalty`` each, a blocked one
    ``poison_penalty``). A source whose reputation has *earned* ``standing_earned`` or more above
    the initial one (positive outcomes, feedback, released quarantines) has standing whatever
    its count and age."""
    standing_earned: float = Field(default=0.1, ge=0.0, le=1.0)
    """Reputation above ``initial_reputation`` that earns standing on its own (see above)."""
    newcomer_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    """Retrieval score multiplier of an uncorroborated newcomer's memory that competes with a
    trusted answer (see ``answered_similarity``): at a tenth of its score it ranks below nearly
    every trusted match. Calibrated by the poisoning benchmark's grid."""
    answered_similarity: float = Field(default=0.0, ge=0.0, le=1.0)
    """A newcomer's memory keeps its full score when *nothing trusted answers* the query: no
    candidate that is trusted (fast path, source with standing) has a cosine of at least this
    to the query, nor to the newcomer's memory itself (a planted answer restates a topic the
    true evidence covers). "Find what I told you" then works for a new user, while a planted
    answer that competes with true evidence still loses. Default 0.0 = no exception: the
    poisoning benchmark's calibration (MiniLM) chose it over 0.5 and 0.65, which let 70-75% of
    the optimised-trigger backdoors and 15-80% of the planted answers through on the
    calibration half (docs/benchmarks.md). Cosines depend on the embedder. 0.0: any trusted candidate counts as an answer, so
    every uncorroborated newcomer memory is weighted (the rule without this exception).
    Never applies to ``for_decision`` queries, which still require corroboration."""
    first_party_authority: bool = True
    """Hearsay rule (``deltacore.gateway.hearsay``): a memory about a principal of the tenant (a
    person who is a source there), written by a different source, loses its rank when the
    principal's own memories among the candidates speak about the same thing and none confirms
    it — whatever the writer's standing. False: off."""
    hearsay_topic_similarity: float = Field(default=0.0, ge=0.0, le=1.0)
    """Cosine between a hearsay memory and one of its principal's own memories at which the
    two are about the same thing (the principal has given their own account). 0.0: the rule
    applies "generally" — whenever any of the principal's own memories is a candidate. Its
    a-priori default was 0.5; the poisoning benchmark's calibration (MiniLM, calibration half)
    chose 0.0 over 0.5, 0.4 and 0.3, which left 85%, 50-55% and 30% of the patient attacker's
    planted answers through (planted statements sit at cosine 0.3-0.5 to their principal's own
    turns), at no cost in benign recall on LoCoMo (docs/benchmarks.md). The cost elsewhere: a
    third party's report about a principal on a matter the principal never spoke about ranks
    low (and drives no decision) when the principal's own memories are candidates; raise it to
    spare such reports. Depends on the embedder."""
    question_subject_authority: bool = True
    """The hearsay rule seen from the question: when the query speaks about a principal ("When
    did Caroline go camping?"), every candidate another person wrote (user or peer channel; a
    tool's output or a system record is nobody's account of a person) is an account of that
    principal *for this query* — whether or not it names them ("They went camping on 2 June",
    "You went camping…", "I went camping…") — and competes with the principal's own candidates
    exactly like hearsay (``hearsay_topic_similarity``, confirmation, ``hearsay_weight``).
    Without it, a writer defeats the rule by not naming the person its claim is about. The
    cost: another source's unconfirmed account ranks below the principal's own memories for
    questions about that principal. False: only memories that name the principal are hearsay."""
    hearsay_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    """Retrieval score multiplier of hearsay that competes with its principal's own account
    unconfirmed (confirmation: cosine ≥ ``corroboration_similarity`` and every number, date and
    name of the hearsay repeated by the principal). Set a priori to ``suspect_weight``'s value."""
    cone_min_retrievals: int = Field(default=5, ge=2)
    """A memory needs this many logged retrievals before its query diversity is judged."""
    cone_similarity: float = Field(default=0.8, ge=0.0, le=1.0)
    """Mean word overlap (Jaccard) of its retrieving queries above which a memory is reached by
    one narrow cone of queries (a trigger backdoor's signature)."""
    cone_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    """Retrieval score multiplier of a memory reached by one narrow cone of queries."""

    # ---- honeypots -----------------------------------------------------------------------------
    honeypots: int = Field(default=4, ge=0, le=5)
    """Canary memories planted per tenant (0 disables them)."""
    honeypot_similarity: float = Field(default=0.6, ge=0.0, le=1.0)
    """A query at least this close to a canary, and closer to it than to any real memory, retrieves it."""

    log_accepted: bool = False
    """Also log fast-path decisions in the security-event log (off: only doubts are logged)."""

    @model_validator(mode="after")
    def _ordered(self) -> TrustPolicy:
        if not self.quarantine <= self.slow_path <= self.fast_path:
            raise ValueError("thresholds must satisfy quarantine <= slow_path <= fast_path")
        return self

    def route(self, score: float) -> TrustAction:
        """The route a trust score takes: accept (≥ fast_path), tag (≥ slow_path), quarantine (≥ quarantine), else block."""
        if score >= self.fast_path:
            return TrustAction.ACCEPT
        if score >= self.slow_path:
            return TrustAction.TAG
        if score >= self.quarantine:
            return TrustAction.QUARANTINE
        return TrustAction.BLOCK
