"""The truth benchmark's world is what it claims to be, and the benchmark runs end to end.

The figures are not checked against targets here (that is the benchmark's job): only that the
generator is deterministic, that its ground truth holds together (values change in time order,
look-alike slots and late arrivals exist, the held-out templates are really held out), and that
a tiny run with the fake embedder scores every arm and writes its report.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _truth.phrasings import template_strings  # noqa: E402
from _truth.fresh2 import REPORTERS as FRESH2_REPORTERS  # noqa: E402
from _truth.fresh2 import VOCAB as FRESH2  # noqa: E402
from _truth import fresh3  # noqa: E402
from _truth.vocab import FRESH, HELDOUT, TUNE  # noqa: E402
from _truth.world import STALE_CUTOFF_DAY, YEAR_DAYS, build_world  # noqa: E402

ANCHOR = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("truth_benchmark", ROOT / "benchmarks" / "truth.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _signature(world):
    return [(s.id, s.text, s.ts, s.arrival, s.channel, s.source, s.slot, s.value) for s in world.statements], [
        (q.kind, q.slot, q.text, q.expected, q.as_of) for q in world.questions
    ]


def test_the_same_seed_builds_the_same_world_and_another_seed_does_not():
    first = build_world("tune", 40, seed=3, anchor=ANCHOR)
    assert _signature(first) == _signature(build_world("tune", 40, seed=3, anchor=ANCHOR))
    assert _signature(first) != _signature(build_world("tune", 40, seed=4, anchor=ANCHOR))


def test_the_ground_truth_holds_together():
    for template_set in ("tune", "heldout", "fresh", "fresh2", "fresh3"):
        world = build_world(template_set, 60, seed=11, anchor=ANCHOR)
        start = ANCHOR - timedelta(days=YEAR_DAYS)
        by_id = {s.id: s for s in world.statements}
        for slot in world.slots.values():
            starts = [moment for _, moment in slot.values]
            assert starts == sorted(starts) and len(set(starts)) == len(starts), slot.key
            assert len({value for value, _ in slot.values}) == len(slot.values), slot.key  # "before X" is unambiguous
            assert len(slot.values) <= 6
            own = [s for s in world.statements if s.slot == slot.key]
            # Every value is stated; a trusted statement of a value is made while it holds.
            assert {s.value for s in own} >= {value for value, _ in slot.values}
            for s in own:
                if s.role not in ("old_restatement", "as_of"):
                    assert slot.value_at(s.ts) == s.value, (slot.key, s.text)
            if slot.stale is True:
                assert max(s.ts for s in own) < start + timedelta(days=STALE_CUTOFF_DAY + 1)
            if slot.stale is False:
                assert max(s.ts for s in own) > ANCHOR - timedelta(days=3)
        assert any(s.changed for s in world.slots.values()) and any(not s.changed for s in world.slots.values())
        # Look-alike slots: twin names, home/work city of one person, the two deployments of a service.
        kinds = {(world.slots[k].entity_kind, world.slots[k].attribute == slot.attribute)
                 for slot in world.slots.values() for k in slot.lookalikes}
        assert ("person", True) in kinds and ("person", False) in kinds and ("deployment", True) in kinds
        assert any(not s.changed and any(world.slots[k].changed for k in s.lookalikes) for s in world.slots.values())
        # Statements arrive in order, except the late ones: older than a statement that came first.
        arrivals = [s.arrival for s in world.statements]
        assert arrivals == sorted(arrivals)
        late = [s for s in world.statements if s.role == "late"]
        assert late and all(s.arrival > s.ts for s in late)
        position = {s.id: i for i, s in enumerate(world.statements)}
        overtaken = [s for s in late if any(o.slot == s.slot and o.ts > s.ts for o in world.statements[: position[s.id]])]
        assert len(overtaken) >= 0.8 * len(late)
        # Old values restated after they changed, by documents, peers or newcomers only.
        restated = [s for s in world.statements if s.role == "old_restatement"]
        assert restated and all(world.slots[s.slot].value_at(s.ts) != s.value for s in restated)
        assert all(s.channel in ("document", "peer") or s.source.startswith("user:guest-") for s in restated)
        assert {s.channel for s in world.statements} == {"user", "tool", "document", "peer"}
        noise = sum(s.role == "noise" for s in world.statements)
        assert noise == 3 * (len(world.statements) - noise)  # three unrelated memories per statement and distractor
        # Questions: the expected answer is the ground truth at the asked time.
        for q in world.questions:
            slot = world.slots[q.slot]
            if q.kind == "current":
                assert q.expected == slot.values[-1][0]
            elif q.kind == "as_of":
                assert slot.value_at(q.as_of) == q.expected and q.expected != slot.values[-1][0]
            else:
                values = [v for v, _ in slot.values]
                assert values[values.index(q.expected) + 1] in q.text
        for a, b in world.paraphrase_pairs:
            assert (by_id[a].slot, by_id[a].value) == (by_id[b].slot, by_id[b].value) and by_id[a].text != by_id[b].text


def test_the_template_sets_share_no_template_or_vocabulary():
    sets = {"tune": TUNE, "heldout": HELDOUT, "fresh": FRESH, "fresh2": FRESH2, "fresh3": fresh3.VOCAB}
    for a, b in [(a, b) for i, a in enumerate(sets) for b in list(sets)[i + 1 :]]:
        assert not template_strings(a) & template_strings(b), (a, b)
        for field in ("cities", "employers", "languages", "roles", "services", "environments", "service_statuses",
                      "regions", "owner_teams", "teams", "projects", "project_statuses", "groups", "databases"):
            assert not set(getattr(sets[a], field)) & set(getattr(sets[b], field)), (a, b, field)
        assert not {n for p in sets[a].name_pairs for n in p} & {n for p in sets[b].name_pairs for n in p}, (a, b)
        assert not set(sets[a].surnames) & set(sets[b].surnames), (a, b)


def test_the_fresh_world_is_made_of_other_slots_and_another_random_stream():
    fresh = build_world("fresh", 60, seed=11, anchor=ANCHOR)
    tune = build_world("tune", 60, seed=11, anchor=ANCHOR)
    assert {s.attribute for s in fresh.slots.values()} - {s.attribute for s in tune.slots.values()} >= {
        "team", "manager", "database", "launch_date", "sponsor"}
    assert [len(s.values) for s in fresh.slots.values()] != [len(s.values) for s in tune.slots.values()]


def test_fresh2_distractors_name_a_subject_and_another_value_but_state_no_slot():
    world = build_world("fresh2", 60, seed=11, anchor=ANCHOR)
    distractors = [s for s in world.statements if s.role == "distractor"]
    assert len(distractors) >= 20
    assert all(s.slot is None and s.value is None for s in distractors)
    assert {s.source for s in distractors} <= {source for _, source in FRESH2_REPORTERS}  # trusted reporters say them


def test_fresh3_is_a_deterministic_world_of_its_own_slots_with_distractors_and_stale_observations():
    world = build_world("fresh3", 60, seed=11, anchor=ANCHOR)
    assert _signature(world) == _signature(build_world("fresh3", 60, seed=11, anchor=ANCHOR))
    assert _signature(world) != _signature(build_world("fresh3", 60, seed=12, anchor=ANCHOR))
    # Its own attributes: only the status observation is shared with the other sets (stale detection needs it).
    others = {s.attribute for name in ("tune", "heldout", "fresh", "fresh2") for s in build_world(name, 60, 11, ANCHOR).slots.values()}
    assert {s.attribute for s in world.slots.values()} & others == {"status"}
    assert {s.attribute for s in world.slots.values()} == {a for attributes in fresh3.SCHEMA.values() for a in attributes}
    slots = world.slots.values()
    assert any(s.changed for s in slots) and any(not s.changed for s in slots)
    assert any(s.stale is True for s in slots) and any(s.stale is False for s in slots)
    # The two doctors of one person are look-alike slots, as home and work city are elsewhere.
    assert world.slots["person:Rosa:dentist"].lookalikes == ["person:Rosie:dentist", "person:Rosa:gp"]
    distractors = [s for s in world.statements if s.role == "distractor"]
    assert len(distractors) >= 20 and all(s.slot is None and s.value is None for s in distractors)
    assert {s.source for s in distractors} <= {source for _, source in fresh3.REPORTERS}
    # Every placeholder was filled, dates in more than one format.
    texts = [s.text for s in world.statements]
    assert not [t for t in texts if "{" in t and not t.startswith("{")]
    as_of = [s.text for s in world.statements if s.role == "as_of"]
    assert any(" of " in t and t[0].isupper() for t in as_of) and any(t[:4].isdigit() or "-20" in t for t in as_of)


def test_the_fresh3_command_runs_end_to_end(tmp_path):
    bench = _load_benchmark()
    out = tmp_path / "truth.json"
    code = bench.main(["--templates", "fresh3", "--slots", "20", "--embedder", "fake", "--seed", "7", "--examples", "0",
                       "--quiet", "--plot", "", "--out", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    assert set(report["results"]) == {"fresh3"}
    result = report["results"]["fresh3"]
    assert set(result["arms"]) == {"vector top-k", "BM25", "hybrid RRF", "newest of top-20", "DeltaCore"}
    assert result["world"]["changed_slots"] > 0 and result["world"]["statements_by_role"]["distractor"] > 0
    assert not any(result["deltacore_misses"].values())  # --examples 0 keeps none


def test_a_tiny_run_scores_every_arm_and_writes_its_report(tmp_path):
    bench = _load_benchmark()
    out = tmp_path / "truth.json"
    # One template set keeps it short: the held-out set runs the same code on other words.
    code = bench.main(["--templates", "heldout", "--slots", "20", "--seed", "5", "--embedder", "fake", "--anchor", "2026-06-01",
                       "--out", str(out), "--plot", str(tmp_path / "truth.png"), "--quiet"])
    assert code == 0
    report = json.loads(out.read_text())
    assert (tmp_path / "truth.png").stat().st_size > 0
    assert set(report["results"]) == {"heldout"}
    for result in report["results"].values():
        assert set(result["arms"]) == {"vector top-k", "BM25", "hybrid RRF", "newest of top-20", "DeltaCore"}
        for figures in result["arms"].values():
            assert 0.0 <= figures["current_at_1_changed"] <= 1.0
            assert figures["questions"]["current_at_1_changed"] + figures["questions"]["current_at_1_unchanged"] == result["world"]["slots"]
        assert isinstance(result["deltacore"]["as_of_supported"], bool)
        assert set(result["verdicts"]) >= {"current_at_1", "as_of_at_1", "collateral_rate", "stale_precision"}
    # Every arm searched the same, shared vectors: no statement was embedded again in another form.
    world = build_world("heldout", 20, seed=5, anchor=ANCHOR)
    assert not [t for t in report["texts_embedded_by_the_arms"] if any(s.text in t for s in world.statements)]
