"""The seed's membership-inference test (section 11.3), with the control that keeps it honest.

The same probe questions are asked about the subject ("who is X?", "notes about X", …) and about
look-alike subjects the store never held (each identifier's vowels, consonants and digits
replaced at random: same shape, never stored). A probe's confidence is the best cosine between
the probe and what it retrieved; a subject's confidence is the mean over its probes. If the
store still holds the subject, its probes find memories that share its words and score higher
than the look-alikes'. The seed's t-test compares the two; here the p-value is the subject's
rank among the look-alikes (a permutation test: exact, one-sided, no normality assumed) and
the t statistic is reported beside it.

The unit is the subject, not the probe nor the identifier: a subject's probes and identifiers
share its words, so they are not independent samples (counting them as such made a deleted
subject look present). Hence :data:`BASELINE_SUBJECTS` look-alikes: with fewer than 20, no
subject could ever reach p < 0.05.

A test that never detects anything would "verify" every erasure, so the same test is run for
retained subjects: it must detect them, or the audit is inconclusive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from deltacore.compliance.audit.result import MembershipTest

PERMUTATIONS = 5000
BASELINE_SUBJECTS = 24
"""Never-stored subjects the subject is compared with (1 among 25 reaches p = 0.04)."""
LOOKALIKE_IDENTIFIERS = 1
"""Identifiers per look-alike subject (at most): a subject with many identifiers is averaged
over more probes, which only makes the test more conservative."""
PROBE_TEMPLATES = (
    "{name}",
    "who is {name}?",
    "notes about {name}",
)
"""Questions the memories of a person answer, whatever the person's data was."""

ROUTER_TEMPLATES = ("{name}", "who is {name}?")
"""The probes sent through each router one by one (with the caller's questions); the full read
path gets every :data:`PROBE_TEMPLATES` probe."""
_WORDS = re.compile(r"\w+", re.UNICODE)
_VOWELS = "aeiou"
_CONSONANTS = "bcdfghjklmnprstvwz"


def lookalike(identifier: str, rng: np.random.Generator) -> str:
    """A never-stored name of the same shape: each vowel, consonant and digit replaced by a
    random one of its kind, case and punctuation kept ("Quentin Marlowe" -> "Sivntel Hortaqe").

    The baseline must differ from the subject only in being absent: the same number of words
    and characters keeps the embedder from telling them apart by length alone."""
    out = []
    for ch in identifier:
        lower = ch.lower()
        if lower in _VOWELS:
            new = str(rng.choice(list(_VOWELS)))
        elif lower.isascii() and lower.isalpha():
            new = str(rng.choice(list(_CONSONANTS)))
        elif ch.isdigit():
            new = str(rng.integers(0, 10))
        else:
            new = ch
        out.append(new.upper() if ch.isupper() else new)
    return "".join(out)


_PERSONAL_NAME = re.compile(r"[^\W\d_]+(?:[\s'’-]+[^\W\d_]+)*")


def personal_names(identifiers: Sequence[str]) -> list[str]:
    """The identifiers that are names (letters, spaces, hyphens, apostrophes), or all of them
    when none is: the membership test's probes are about these."""
    return [i for i in identifiers if _PERSONAL_NAME.fullmatch(i)] or list(identifiers)


def lookalike_subjects(identifiers: Sequence[str], count: int, seed: int = 0) -> list[list[str]]:
    """``count`` never-stored subjects shaped like this one (up to :data:`LOOKALIKE_IDENTIFIERS`
    identifiers each)."""
    rng = np.random.default_rng(seed)
    shapes = list(identifiers)[:LOOKALIKE_IDENTIFIERS]
    return [[lookalike(identifier, rng) for identifier in shapes] for _ in range(count)]


def name_words(text: str) -> set[str]:
    """The words of a folded text that can carry a name (3 letters or more)."""
    return {word for word in _WORDS.findall(text) if len(word) >= 3}


def probes_for(name: str) -> list[str]:
    return [template.format(name=name) for template in PROBE_TEMPLATES]


def compare(subject: Sequence[float], baseline: Sequence[float], alpha: float, seed: int = 0) -> MembershipTest:
    """Are the ``subject`` names' confidences higher than the ``baseline`` names'?"""
    a, b = np.asarray(subject, dtype=np.float64), np.asarray(baseline, dtype=np.float64)
    if len(a) < 1 or len(b) < 2:
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
    # Welch's t; one subject name: how far it lies outside the baseline (prediction interval).
    spread = (
        np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        if len(a) > 1
        else b.std(ddof=1) * np.sqrt(1 + 1 / len(b))
    )
    t_statistic = (
        float(difference / spread) if spread > 0 else (0.0 if difference == 0 else float(np.sign(difference) * 1e9))
    )
    if len(a) == 1:
        # One subject: its rank among the baseline, exactly (the observed value counts itself).
        p_value = float((np.sum(b >= a[0] - 1e-12) + 1) / (len(b) + 1))
    else:
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


def subject_score(scores: Sequence[float]) -> float:
    """A subject's confidence: the mean over all its probes (0 with none)."""
    return float(np.mean(scores)) if len(scores) else 0.0


def confidence(probe_vector: np.ndarray, name_words: set[str], answers: Sequence[tuple[np.ndarray, set[str]]]) -> float:
    """How confidently a probe was answered: over the memories it retrieved, the best mean of
    the cosine (probe, memory) and the share of the name's words the memory holds; 0 when it
    retrieved nothing.

    The cosine alone is mostly noise about a name (a small embedder maps a rare name near any
    text); the word share alone misses what an embedder still ties to the subject. Vectors are
    unit length."""
    best = 0.0
    for vector, words in answers:
        share = len(name_words & words) / len(name_words) if name_words else 0.0
        best = max(best, 0.5 * float(vector @ probe_vector) + 0.5 * share)
    return best
