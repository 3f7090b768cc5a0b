"""Check (a) and (c): asking the store about the subject, through every router, and measuring
how confidently it answers (the membership test).

Each router is asked on its own (an expander on top of the finding routers, as in a query), with
the identifiers, a few questions about them and the questions the erased memories used to
answer; the full read path is asked every membership probe. An answer holding an identifier
(after the gateway's folding) or an erased event id is a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from deltacore.compliance.audit import membership
from deltacore.compliance.audit.result import MembershipTest, ProbeFinding, RouterProbe
from deltacore.compliance.audit.target import DEFAULT_ROUTE, AuditTarget, ProbeHit
from deltacore.gateway.normalization import fold

DEFAULT_ROUTE_LABEL = "default"
"""How :class:`RouterProbe` names the full read path."""


@dataclass
class ProbeOutcome:
    routers: list[RouterProbe] = field(default_factory=list)
    findings: list[ProbeFinding] = field(default_factory=list)
    probe_count: int = 0
    membership: MembershipTest | None = None
    control_membership: MembershipTest | None = None
    control_hits: list[int] = field(default_factory=list)


class Prober:
    def __init__(self, memory: AuditTarget, top_k: int) -> None:
        self._memory = memory
        self._top_k = top_k
        # The same memories come back for many probes: fold and embed each once.
        self._folded: dict[str, str] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def ask(self, text: str, router: str) -> Sequence[ProbeHit]:
        return self._memory.probe(text, router, self._top_k)

    def matches(self, hits: Sequence[ProbeHit], names: Sequence[str], erased: set[str]) -> list[tuple[ProbeHit, int]]:
        """The hits that hold one of ``names`` (folded), or are erased events, with the name's index."""
        found = []
        for hit in hits:
            text = self._fold(hit.text)
            index = next((i for i, name in enumerate(names) if name and name in text), None)
            if index is None and hit.event_id in erased:
                index = 0
            if index is not None:
                found.append((hit, index))
        return found

    def subject_confidence(self, names: Sequence[str], answers: Sequence[Sequence[ProbeHit]]) -> float:
        """Mean confidence of a subject's probes: ``answers`` are those of
        ``membership.probes_for(name)`` for each name in turn."""
        per_name = len(membership.PROBE_TEMPLATES)
        texts = [p for name in names for p in membership.probes_for(name)]
        self._embed([*texts, *(hit.text for answer in answers for hit in answer)])
        scores = []
        for number, (text, answer) in enumerate(zip(texts, answers, strict=True)):
            words = membership.name_words(self._fold(names[number // per_name]))
            memories = [(self._vectors[hit.text], membership.name_words(self._fold(hit.text))) for hit in answer]
            scores.append(membership.confidence(self._vectors[text], words, memories))
        return membership.subject_score(scores)

    def _fold(self, text: str) -> str:
        folded = self._folded.get(text)
        if folded is None:
            folded = self._folded[text] = fold(text)
        return folded

    def _embed(self, texts: Sequence[str]) -> None:
        """Unit vectors of the texts not embedded yet (retrieved memories repeat across probes)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if not missing:
            return
        matrix = np.asarray(self._memory.embed(missing), dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        for text, vector in zip(missing, matrix / norms, strict=True):
            self._vectors[text] = vector


def run_probes(
    memory: AuditTarget,
    identifiers: Sequence[str],
    controls: Sequence[str],
    *,
    questions: Sequence[str],
    baseline: Sequence[str],
    erased_event_ids: Sequence[str],
    top_k: int,
    alpha: float,
    seed: int,
) -> ProbeOutcome:
    prober = Prober(memory, top_k)
    outcome = ProbeOutcome(control_hits=[0] * len(controls))
    folded = [fold(i) for i in identifiers]
    erased = set(erased_event_ids)

    def record(router: str, texts: Sequence[str], offset: int) -> list[Sequence[ProbeHit]]:
        answers, hits = [], 0
        for number, text in enumerate(texts, start=offset):
            answer = prober.ask(text, router)
            answers.append(answer)
            found = prober.matches(answer, folded, erased)
            hits += bool(found)
            outcome.findings.extend(
                ProbeFinding(
                    router=router or DEFAULT_ROUTE_LABEL,
                    probe=number,
                    event_id=hit.event_id,
                    rank=hit.rank,
                    identifier=index,
                )
                for hit, index in found
            )
        outcome.routers.append(RouterProbe(router=router or DEFAULT_ROUTE_LABEL, probes=len(texts), hits=hits))
        return answers

    router_texts = [t.format(name=i) for i in identifiers for t in membership.ROUTER_TEMPLATES] + list(questions)
    for router in memory.routers:
        if router != DEFAULT_ROUTE:
            record(router, router_texts, 0)
    # The membership test asks about the subject's names: an e-mail's domain or a user id's
    # prefix is shared with other people, so it would make any absent subject look present.
    names = membership.personal_names(identifiers)
    subject_texts = [p for i in names for p in membership.probes_for(i)]
    subject_answers = record(DEFAULT_ROUTE, subject_texts, len(router_texts))
    outcome.probe_count = len(router_texts) + len(subject_texts)

    subject_score = prober.subject_confidence(names, subject_answers)
    # The baseline: the never-inserted subjects the caller named, topped up with look-alikes.
    pseudo = [[name] for name in baseline]
    pseudo += membership.lookalike_subjects(names, max(membership.BASELINE_SUBJECTS - len(pseudo), 0), seed)
    baseline_scores = []
    for names in pseudo:
        answers = [prober.ask(t, DEFAULT_ROUTE) for name in names for t in membership.probes_for(name)]
        baseline_scores.append(prober.subject_confidence(names, answers))
    outcome.membership = membership.compare([subject_score], baseline_scores, alpha, seed)

    if controls:
        folded_controls = [fold(c) for c in controls]
        control_scores = []
        for control in controls:
            answers = [prober.ask(t, DEFAULT_ROUTE) for t in membership.probes_for(control)]
            for answer in answers:
                for _hit, index in prober.matches(answer, folded_controls, set()):
                    outcome.control_hits[index] += 1
            control_scores.append(prober.subject_confidence([control], answers))
        outcome.control_membership = membership.compare(control_scores, baseline_scores, alpha, seed)
    return outcome
