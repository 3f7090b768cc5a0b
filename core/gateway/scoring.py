"""The trust score of a write, and the route it takes.

``score = linear × vetoes × tool factor``, where ``linear`` is the weighted sum

    w_source · channel_prior · min(1, 0.5 + reputation)
  + w_content · (1 − content anomaly)
  + w_consistency · consistency
  + w_temporal · temporal plausibility

(divided by the sum of the weights, so a recalibration keeps it in [0, 1]) and each veto is
``1 − veto · doubt``. The weighted sum alone cannot quarantine an instruction sent through a
clean channel (it loses at most 0.25); the vetoes let one strong doubt act on its own. A
blacklisted source scores 0; a SUSPICIOUS source (and, with ``probation_events``, a source
without history) never takes the fast path.

Channel and source come from the caller or adapter (``ingest(..., channel=...)``, the event's
``source`` field), never from the content: authority claimed *inside* the text is itself a
content anomaly.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from deltacore.delta.extract import statement_triple
from deltacore.gateway.admission import CHANNEL_PRIOR, Admission
from deltacore.gateway.consistency import contradiction, identifier_bridge, is_single_valued, question_echo
from deltacore.gateway.instruction import analyze_instruction
from deltacore.gateway.normalization import fold, readable
from deltacore.gateway.principals import NO_PRINCIPAL, impersonation, same_voice
from deltacore.trust_policy import TrustPolicy
from deltacore.gateway.temporal import plausibility
from deltacore.gateway.tool_signature import signature_matches
from deltacore.model import Channel, Event, EventKind, Namespace, TrustAction

SUSPICIOUS = "suspicious"
BLACKLISTED = "blacklisted"


@dataclass
class Verdict:
    """The gateway's judgement of one event."""

    score: float
    action: TrustAction
    namespace: Namespace | None
    reasons: tuple[str, ...] = ()
    signals: dict[str, float] = field(default_factory=dict)


@dataclass
class _SourceContext:
    reputation: float
    status: str
    stored_events: int
    times: list[float]
    latest: float | None
    questions: list[str] | None = None


def analysis_text(event: Event) -> str:
    """What the content detectors read: the text and, for tool calls, the argument values.

    A tool call rendered the engine's way, ``name({...})``, is read without its name: the name
    is an identifier whoever wrote the tool chose, not prose aimed at the agent — read as a
    sentence, ``run_migration(…)`` opens with an imperative and the agent's own call would be
    quarantined (and never recalled). Its argument values are still read in full.
    """
    text = event.text
    if event.kind is EventKind.TOOL_CALL and event.tool_name and text and text.startswith(f"{event.tool_name}("):
        text = text[len(event.tool_name) :]
    parts = [text]
    if event.tool_args:
        parts.append(json.dumps(event.tool_args, ensure_ascii=False, default=str))
    return "\n".join(p for p in parts if p)


class TrustScorer:
    """Scores a batch of events against what the store knows (one read connection)."""

    def __init__(self, policy: TrustPolicy, store: Any) -> None:
        self.policy = policy
        self._store = store  # satisfies deltacore.gateway.screen.TrustReads

    def evaluate(
        self, conn: Any, items: Sequence[tuple[Event, Admission]], now: float | None = None,
        on_verdict: Callable[[int, Verdict], None] | None = None,
    ) -> list[Verdict]:
        """One verdict per item, in order; ``on_verdict(index, verdict)`` hears each one as soon as
        it is decided (the write path starts embedding what was let through meanwhile)."""
        policy = self.policy
        if not policy.enabled:
            accepted = [Verdict(a.trust, TrustAction.ACCEPT, a.namespace) for _, a in items]
            if on_verdict is not None:
                for i, verdict in enumerate(accepted):
                    on_verdict(i, verdict)
            return accepted
        now = time.time() if now is None else now
        sources = self._sources(conn, items)
        registries: dict[str, dict[str, set[str]]] = {}
        batch_tools: dict[str, dict[str, set[str]]] = {}
        for event, _ in items:
            if event.tool_name and event.tool_schema_hash:
                batch_tools.setdefault(event.tenant, {}).setdefault(event.tool_name, set()).add(event.tool_schema_hash)
        verdicts = []
        # Facts accepted earlier in this batch count as trusted facts for the ones after them.
        batch_claims: dict[tuple[str, str, str], list[tuple[str, str | None]]] = {}
        for event, admission in items:
            if event.tenant not in registries:
                registries[event.tenant] = self._store.tool_registry(conn, event.tenant)
            source = sources.get((event.tenant, event.source)) if event.source else None
            # Parsed once: the consistency check and the batch's trusted facts both need it.
            claim = _claim(event)
            verdict = self._score(
                conn, event, admission, source, registries[event.tenant], batch_tools.get(event.tenant, {}), now, batch_claims,
                claim,
            )
            verdicts.append(verdict)
            if on_verdict is not None:
                on_verdict(len(verdicts) - 1, verdict)
            if claim is not None and verdict.action is TrustAction.ACCEPT and verdict.namespace is Namespace.TRUSTED:
                key = (event.tenant, claim[0].lower(), claim[1])
                batch_claims.setdefault(key, []).append((claim[2], event.source))
        return verdicts

    def _sources(self, conn: Any, items: Sequence[tuple[Event, Admission]]) -> dict[tuple[str, str], _SourceContext]:
        wanted: dict[str, set[str]] = {}
        batch_times: dict[tuple[str, str], list[float]] = {}
        for event, _ in items:
            if event.source:
                wanted.setdefault(event.tenant, set()).add(event.source)
                batch_times.setdefault((event.tenant, event.source), []).append(event.ts.timestamp())
        contexts = {}
        for tenant, names in wanted.items():
            known = self._store.reputations(conn, tenant, names)
            for name in names:
                reputation, status = known.get(name, (self.policy.initial_reputation, "ok"))
                stored, times = self._store.source_history(conn, tenant, name)
                contexts[(tenant, name)] = _SourceContext(
                    reputation=reputation,
                    status=status,
                    stored_events=stored,
                    times=sorted(times + batch_times[(tenant, name)]),
                    latest=max(times) if times else None,
                )
        return contexts

    def _score(
        self,
        conn: Any,
        event: Event,
        admission: Admission,
        source: _SourceContext | None,
        registry: dict[str, set[str]],
        batch_tools: dict[str, set[str]],
        now: float,
        batch_claims: dict[tuple[str, str, str], list[tuple[str, str | None]]],
        claim: tuple[str, str, str] | None,
    ) -> Verdict:
        """``claim``: the event's ``_claim``."""
        policy = self.policy
        reasons: list[str] = []
        if source is not None and source.status == BLACKLISTED:
            return Verdict(0.0, TrustAction.BLOCK, None, ("source is blacklisted",), {"source": 0.0})

        # Source: the channel's prior, scaled by what this source's history earned.
        reputation = source.reputation if source is not None else policy.initial_reputation
        source_value = CHANNEL_PRIOR[admission.channel] * min(1.0, 0.5 + max(reputation, 0.0))

        # Who is speaking: a claimed voice that is not the authenticated principal impersonates.
        impersonating = impersonation(event, policy.principal_sources)
        principal = impersonating is None and _is_principal(event, admission, policy)
        speaker = impersonating is None and not principal and _speaks_for_itself(event, admission, policy)

        # Content anomaly (after undoing obfuscation).
        folded = fold(analysis_text(event))
        anomaly = analyze_instruction(folded)
        anomaly_score, anomaly_reasons = anomaly.for_writer(principal, speaker)
        reasons.extend(anomaly_reasons)
        exempted = (principal or speaker) and anomaly_score < anomaly.score

        # Semantic consistency: the strongest doubt wins. An agent loop's own tool calls and
        # results pass identifiers along by design (a grant names a principal and a dataset):
        # that is not a record bridging one identity to another.
        agent_step = _agent_step(event, admission)
        doubts = [question_echo(folded, self._questions(conn, event, source))]
        if not agent_step:
            doubts.append(identifier_bridge(readable(event.text)))
        if event.kind not in (EventKind.TOOL_CALL, EventKind.OUTCOME, EventKind.FEEDBACK):
            if claim is not None and is_single_valued(*claim[:2]):
                subject, predicate, obj = claim
                others = self._store.trusted_objects(conn, event.tenant, subject, predicate, event.source)
                others += [
                    obj_ for obj_, by in batch_claims.get((event.tenant, subject.lower(), predicate), [])
                    if event.source is None or by != event.source
                ]
                doubts.append(contradiction(obj, others))
        worst = max(doubts, key=lambda d: d.value)
        consistency = 1.0 - worst.value
        if worst.reason:
            reasons.append(worst.reason)

        # Temporal plausibility relative to the source's own sequence.
        # An agent loop's steps come in bursts by nature; a burst is judged on what people write.
        temporal, temporal_reasons = plausibility(
            event.ts.timestamp(), now, source.latest if source else None,
            source.times if source and not agent_step else [], policy,
        )
        reasons.extend(temporal_reasons)

        weights = (policy.weight_source, policy.weight_content, policy.weight_consistency, policy.weight_temporal)
        total = sum(weights) or 1.0
        linear = (
            weights[0] * source_value + weights[1] * (1.0 - anomaly_score) + weights[2] * consistency + weights[3] * temporal
        ) / total
        score = linear
        score *= 1.0 - policy.veto_content * anomaly_score
        score *= 1.0 - policy.veto_consistency * (1.0 - consistency)
        score *= 1.0 - policy.veto_temporal * (1.0 - temporal)

        known = {**registry}
        for name, hashes in batch_tools.items():
            known[name] = known.get(name, set()) | hashes
        matches, tool_reason = signature_matches(event, admission.channel, known, bool(known))
        if not matches:
            score *= policy.tool_signature_factor
            reasons.append(tool_reason or "tool signature does not match")
        score = round(max(0.0, min(1.0, score)), 4)

        if impersonating is not None:
            # The host says who is speaking and the write claims someone else: never a
            # first-party record. Quarantined for review (a reviewer may release it), so it
            # cannot compete with the real speaker's own account.
            score = min(score, round(max(policy.quarantine, policy.slow_path - 0.01), 4))
            reasons.append(impersonating)
        action = policy.route(score)
        if event.principal is None and (exempted or action is not TrustAction.ACCEPT):
            reasons.append(NO_PRINCIPAL)
        if action is TrustAction.ACCEPT and source is not None and source.status == SUSPICIOUS:
            action = TrustAction.TAG
            reasons.append("source is suspicious")
        if action is TrustAction.ACCEPT and policy.probation_events and (source is None or source.stored_events < policy.probation_events):
            action = TrustAction.TAG
            reasons.append("source has no history yet")
        signals = {
            "source": round(source_value, 4),
            "reputation": round(reputation, 4),
            "content": round(1.0 - anomaly_score, 4),
            "consistency": round(consistency, 4),
            "temporal": round(temporal, 4),
            "tool_signature": 1.0 if matches else 0.0,
        }
        return Verdict(score, action, _namespace(action, admission), tuple(dict.fromkeys(reasons)), signals)

    def _questions(self, conn: Any, event: Event, source: _SourceContext | None) -> list[str]:
        if source is None or event.text.rstrip().endswith("?"):
            return []
        if source.questions is None:
            source.questions = [fold(q) for q in self._store.recent_questions(conn, event.tenant, event.source)]
        return source.questions


def _agent_step(event: Event, admission: Admission) -> bool:
    """A step of an agent loop: a tool call, result or outcome on the agent, tool or system channel."""
    return event.kind in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT, EventKind.OUTCOME) and admission.channel in (
        Channel.AGENT, Channel.TOOL, Channel.SYSTEM
    )


def _is_principal(event: Event, admission: Admission, policy: TrustPolicy) -> bool:
    """The tenant's own user speaking for themselves (``TrustPolicy.principal_preferences``):
    the user channel, the user's role, and no other voice named in the source or the actor.
    An authenticated principal (already checked not to be impersonated) that is the scope's
    user is the principal whatever its source label."""
    if not policy.principal_preferences or admission.channel is not Channel.USER:
        return False
    if event.kind not in (EventKind.MESSAGE, EventKind.FACT, EventKind.FEEDBACK):
        return False
    if (event.role or "user").lower() not in ("user", "human"):
        return False
    if event.principal is not None and event.user_id is not None and same_voice(event.user_id, event.principal):
        return True
    if event.actor is not None and event.actor != event.user_id:
        return False
    source = event.source
    if source is None or (event.user_id is not None and source in (event.user_id, f"user:{event.user_id}")):
        return True
    return source.startswith(tuple(policy.principal_sources))


def _speaks_for_itself(event: Event, admission: Admission, policy: TrustPolicy) -> bool:
    """A person on the user channel, in the user's role, giving no voice but their own (not
    impersonating, checked before; no ``actor`` other than the source or principal): their
    immediate tasks are tasks (``ContentAnomaly.task_score``). A scope's user of its own
    (``user_id``) is the only one who speaks for that scope."""
    if not policy.principal_preferences or admission.channel is not Channel.USER:
        return False
    if event.kind not in (EventKind.MESSAGE, EventKind.FACT, EventKind.FEEDBACK):
        return False
    if (event.role or "user").lower() not in ("user", "human"):
        return False
    if event.user_id is not None:
        return False
    voice = event.principal or event.source
    return event.actor is None or voice is None or same_voice(event.actor, voice)


def _namespace(action: TrustAction, admission: Admission) -> Namespace | None:
    if action is TrustAction.ACCEPT:
        return admission.namespace
    if action is TrustAction.TAG:
        return Namespace.SYNTHETIC if admission.namespace is Namespace.SYNTHETIC else Namespace.UNVERIFIED
    if action is TrustAction.QUARANTINE:
        return Namespace.QUARANTINE
    return None


def _claim(event: Event) -> tuple[str, str, str] | None:
    meta = event.meta
    subject, predicate, obj = meta.get("subject"), meta.get("predicate"), meta.get("object")
    if subject and predicate and obj is not None:
        return str(subject), str(predicate), str(obj)
    return statement_triple(readable(event.text)) if event.text else None


