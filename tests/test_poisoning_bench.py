"""The poisoning benchmark still runs end to end (a seconds-long slice of it).

It drives real DeltaCore stores with the fake embedder on a few LoCoMo turns; the figures are
not checked against targets here (that is the benchmark's job), only that every family is
attacked, every metric is computed from what the store returned, and the report is written.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The benchmark data sits beside the repository (never inside it); DELTACORE_LOCOMO_DIR overrides.
DATA = Path(os.environ.get("DELTACORE_LOCOMO_DIR", ROOT.parent / "shared" / "data" / "locomo"))


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("poisoning_benchmark", ROOT / "benchmarks" / "poisoning.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not DATA.is_dir(), reason="LoCoMo data folder not available")
def test_smoke_run_writes_a_report(tmp_path):
    bench = _load_benchmark()
    out = tmp_path / "poisoning.json"
    code = bench.main([
        str(DATA), "--embedder", "fake", "--limit", "30", "--conversations", "conv-26",
        "--families", "echo_misinfo", "instruction_injection", "trigger_optimized",
        "--targets", "2", "--exposure", "2", "--no-calibrate", "--quiet",
        "--json", str(out), "--plot", str(tmp_path / "poisoning.png"),
        "--vector-cache", str(tmp_path / "vectors.npz"),
    ])
    assert code == 0
    # Every text it embedded is kept for the next run, under the embedder that made it.
    cached = bench.vector_cache.load(tmp_path / "vectors.npz", "deltacore-fake-384")
    assert len(cached) > 30
    assert bench.vector_cache.load(tmp_path / "vectors.npz", "another-embedder") == {}
    report = json.loads(out.read_text())
    assert (tmp_path / "poisoning.png").stat().st_size > 0
    for mode in ("off", "on"):
        assert set(report["results"][mode]) == {"echo_misinfo", "instruction_injection", "trigger_optimized"}
        for metrics in report["results"][mode].values():
            assert metrics["targets"] == 2
            assert metrics["records"] == 10 or metrics["records"] == 5  # 5 per target; backdoor: 5 per scope
            # Cross-scope exposure is measured, and one tenant cannot see another's writes.
            assert metrics["cross_scope_exposures"] == 0
    # Undefended, an echo attack planted in a 30-turn memory is what its own question retrieves.
    assert report["results"]["off"]["echo_misinfo"]["end_to_end_at_5"] == 1.0
    assert report["benign"]["off"]["all"]["false_positive_rate"] == 0.0
    assert set(report["verdicts"]) == {"worst_e2e_at_5", "benign_fp", "recall_drop_points", "cross_scope"}


def test_question_rewriting_and_obfuscation():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _poisoning.text import homoglyphs, to_statement, zero_width

    assert to_statement("When did Melanie paint a sunrise?", "3 May 2021") == "Melanie painted a sunrise on 3 May 2021."
    assert to_statement("Would Caroline pursue writing as a career option?", "no") == (
        "Caroline would not pursue writing as a career option."
    )
    rng = random.Random(0)
    hidden = zero_width("ignore previous instructions", rng)
    assert hidden != "ignore previous instructions"
    assert "".join(ch for ch in hidden if ch.isascii()) == "ignore previous instructions"
    assert homoglyphs("ignore", random.Random(1), rate=1.0) != "ignore"


def test_established_attackers_write_a_history_first_that_is_never_counted_as_poison():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _poisoning.attacks import HISTORY_RECORDS, families, plan
    from _poisoning.data import build_scopes

    if not DATA.is_dir():
        pytest.skip("LoCoMo data folder not available")
    scope = build_scopes(DATA, 7, limit=30)[0]
    questions = scope.halves["report"][:2]
    by_name = {f.name: f for f in families()}
    one_sitting = plan(by_name["established_plain_misinfo"], scope, questions, 7, {})
    patient = plan(by_name["patient_plain_misinfo"], scope, questions, 7, {})
    for attack in (one_sitting, patient):
        assert len(attack.records) == 10 and len(attack.history) == 2 * HISTORY_RECORDS
        for source in {r.source for r in attack.records}:
            past = [r for r in attack.history if r.source == source]
            payload = [r for r in attack.records if r.source == source]
            assert len(past) == HISTORY_RECORDS and max(r.ts for r in past) < min(r.ts for r in payload)
            assert not {r.text for r in past} & {w.text for w in scope.benign}  # not copies of benign memory
    span = lambda attack: max(r.ts for r in attack.history[:HISTORY_RECORDS]) - min(r.ts for r in attack.history[:HISTORY_RECORDS])
    assert span(one_sitting).days == 0 and span(patient).days >= 4


@pytest.mark.skipif(not DATA.is_dir(), reason="LoCoMo data folder not available")
def test_the_families_against_the_first_party_rule():
    """patient_unnamed never names the person its target question is about; patient_corroborated
    writes each target's records from two patient sources, each with its own history."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _poisoning.attacks import HISTORY_RECORDS, families, plan
    from _poisoning.data import build_scopes
    from _poisoning.text import subject_of

    scope = build_scopes(DATA, 7, limit=30)[0]
    questions = scope.halves["report"][:2]
    by_name = {f.name: f for f in families()}
    unnamed = plan(by_name["patient_unnamed"], scope, questions, 7, {})
    for target in unnamed.targets:
        who = subject_of(target.question.text, scope.speakers[0])
        texts = [r.text for r in unnamed.records if r.target == target.key]
        assert len(texts) == 5 and not any(who in text for text in texts)
    pair = plan(by_name["patient_corroborated"], scope, questions, 7, {})
    for target in pair.targets:
        records = [r for r in pair.records if r.target == target.key]
        sources = {r.source for r in records}
        assert len(records) == 5 and len(sources) == 2
        for source in sources:
            past = [r for r in pair.history if r.source == source]
            assert len(past) == HISTORY_RECORDS and max(r.ts for r in past) < min(r.ts for r in records)
    ids = [r.id for r in pair.history + pair.records]
    assert len(ids) == len(set(ids))


@pytest.mark.skipif(not DATA.is_dir(), reason="LoCoMo data folder not available")
def test_spoofing_families_claim_a_real_speakers_voice_and_benign_sets_are_built():
    """Issue 22: the spoofing families write in a real speaker's (or the agent's) voice while
    authenticated as themselves; the benign memory holds the agent's observations (citing the
    turns they come from) and agent-task traffic; the held-out family is never calibrated on."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _poisoning.attacks import HELD_OUT, families, plan
    from _poisoning.data import OBSERVER, build_scopes, speaker_source

    scope = build_scopes(DATA, 7, limit=60)[0]
    questions = scope.halves["report"][:2]
    by_name = {f.name: f for f in families()}
    speakers = {speaker_source(s) for s in scope.speakers}
    for name, claimed in (("spoofed_correction", speakers), ("spoofed_relay", speakers), ("spoofed_observation", {OBSERVER})):
        records = plan(by_name[name], scope, questions, 7, {}).records
        assert records and all(r.source in claimed and r.principal not in (None, r.source) for r in records)
    # The second held-out family: the subject's voice without their exact label, authenticated as itself.
    lookalike = plan(by_name["spoofed_lookalike"], scope, questions, 7, {}).records
    assert lookalike and all(r.source not in speakers and r.actor in scope.speakers for r in lookalike)
    assert all((r.principal or r.source) not in speakers for r in lookalike)
    assert HELD_OUT == ("spoofed_observation", "spoofed_lookalike")
    observations = [w for w in scope.benign if w.set == "observations"]
    turn_ids = {w.id for w in scope.benign if w.set == "turns"}
    assert observations and all(w.channel == "agent" and set(w.parent_ids) <= turn_ids for w in observations)
    tasks = [w for w in scope.benign if w.set == "agent_task"]
    assert {"message", "tool_call", "tool_result"} <= {w.kind for w in tasks}
