"""The seed's membership-inference test (section 11.3), with the control that keeps it honest.

For each name, the same probe questions are asked ("who is X?", "X's e-mail", …). A probe's
confidence is the best cosine between the probe and what it retrieved. If the store still holds
the subject, probes about the subject find memories that share the subject's words and score
higher than the same probes about names the store never held (the baseline). The seed's t-test
compares the two; here the p-value is taken by permutation (one-sided, no normality assumption,
exact for the few dozen probes an audit asks) and Welch's t is reported beside it.

A test that never detects anything would "verify" every erasure, so the same test is run for
retained subjects: it must detect them, or the audit is inconclusive.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deltacore.compliance.audit.result import MembershipTest

PERMUTATIONS = 5000
PROBE_TEMPLATES = (
    "{name}",
    "who is {name}?",
    "what do we know about {name}",
    "contact details of {name}",
    "what did {name} ask for?",
    "message from {name}",
    "tool call made for {name}",
    "notes about {name}",
)
"""Questions the memories of a person answer, whatever the person's data was."""

_SYLLABLES = (
    "ka", "lo", "mi", "zu", "rey", "tan", "vo", "qui", "sel", "bra", "dun", "fex", "gor", "hil", "jav", "nox",
    "pim", "wex", "yul", "zor",
)  # fmt: skip


def baseline_names(count: int, seed: int = 0) -> list[str]:
    """Names no store holds by chance: random syllables, two words (the never-inserted baseline
    when the caller gives none)."""
    rng = np.random.default_rng(seed)

    def word() -> str:
        return "".join(rng.choice(_SYLLABLES, size=3)).capitalize()

    return [f"{word()} {word()}" for _ in range(count)]


def probes_for(name: str, questions: Sequence[str] = ()) -> list[str]:
    return [template.format(name=name) for template in PROBE_TEMPLATES] + list(questions)


def compare(subject: Sequence[float], baseline: Sequence[float], alpha: float, seed: int = 0) -> MembershipTest:
    """Is ``subject`` confidence higher than ``baseline`` confidence?"""
    a, b = np.asarray(subject, dtype=np.float64), np.asarray(baseline, dtype=np.float64)
    if len(a) < 2 or len(b) < 2:
        return MembershipTest(
            n_subject=len(a),
            n_baseline=len(b),
            subject_mean=float(a.mean()) if len(a) else 0.0,
            baseline_mean=float(b.mean()) if len(b) else 0.0,
            t_statistic=0.0,
            p_value=1.0,
            detected=False,
        )
    difference = a.mean() - b.mean()
    spread = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    t_statistic = (
        float(difference / spread) if spread > 0 else (0.0 if difference == 0 else float(np.sign(difference) * 1e9))
    )
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([a, b])
    draws = np.array([rng.permutation(pooled) for _ in range(PERMUTATIONS)])
    differences = draws[:, : len(a)].mean(axis=1) - draws[:, len(a) :].mean(axis=1)
    # +1 on both sides: the observed split is one of the permutations (never a p-value of 0).
    p_value = float((np.sum(differences >= difference - 1e-12) + 1) / (PERMUTATIONS + 1))
    return MembershipTest(
        n_subject=len(a),
        n_baseline=len(b),
        subject_mean=float(a.mean()),
        baseline_mean=float(b.mean()),
        t_statistic=t_statistic,
        p_value=p_value,
        detected=p_value < alpha,
    )


def confidences(probes: Sequence[str], answers: Sequence[Sequence[str]], embed) -> list[float]:  # type: ignore[no-untyped-def]
    """Best cosine between each probe and the texts it retrieved (0 when it retrieved nothing)."""
    texts = list(probes) + [text for answer in answers for text in answer]
    if not texts:
        return []
    matrix = np.asarray(embed(texts), dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    matrix = matrix / norms
    result, position = [], len(probes)
    for row, answer in enumerate(answers):
        if not answer:
            result.append(0.0)
            continue
        block = matrix[position : position + len(answer)]
        position += len(answer)
        result.append(float(np.max(block @ matrix[row])))
    return result
