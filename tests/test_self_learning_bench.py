"""A quick run of ``benchmarks/self_learning.py`` so the benchmark harness cannot rot.

It drives the real script end to end in its quick mode (``--fake-embedder --episodes 60
--seeds 1``) on both worlds, every system including DeltaCore through its public API, and
checks that every metric is reported. It asserts nothing about whether the engine meets the
benchmark's targets: that is what the headline run in docs/benchmarks.md measures.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

pytest.importorskip("matplotlib")
pytest.importorskip("chromadb")

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "self_learning.py"


def load_script():
    spec = importlib.util.spec_from_file_location("self_learning_bench", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The held-out world in the quick mode of the brief; the tuning world shorter, to keep the file
# near 20 s (most of it is DeltaCore's per-episode writes and recall).
@pytest.mark.parametrize(("world", "episodes"), [("heldout", 60), ("ops", 30)])
def test_quick_mode_reports_every_metric_for_every_system(tmp_path, world, episodes):
    script = load_script()
    argv = ["--world", world, "--fake-embedder", "--episodes", str(episodes), "--seeds", "1", "--window", "10",
            "--writes", "episode", "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"), "--quiet"]  # fmt: skip
    assert script.main(argv) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert (tmp_path / "r.png").stat().st_size > 0
    assert set(data["results"]) == {"none", "naive", "table", "reference", "deltacore"}
    changes = data["world"]["changes"]
    assert len(changes) == (2 if world == "ops" else 4)
    assert all(0 < at < episodes for at in changes.values())
    for summary in data["results"].values():
        assert 0.0 <= summary["final_success"]["mean"] <= 1.0
        assert 0.0 <= summary["followed_rate"]["mean"] <= 1.0
        assert len(summary["window_success"]["mean"]) == episodes // 10
        assert set(summary["recovery"]) == set(changes)
    assert data["results"]["none"]["followed_rate"]["mean"] == 0.0
    deltacore = data["results"]["deltacore"]
    assert "contested_plans" in deltacore["credit_accuracy"]
    assert {"ece", "points", "n", "ece_per_seed"} <= set(deltacore["calibration"])
    assert all(len(runs[0]) == episodes for runs in data["per_seed_success"].values())
    assert data["code"]["commit"]


def test_the_worlds_are_deterministic_per_seed_and_hold_their_drift():
    script = load_script()
    from _selflearn.world import WorldConfig

    for world_class in script.WORLDS.values():
        first, second = (
            world_class(3, WorldConfig(episodes=40)),
            world_class(3, WorldConfig(episodes=40)),
        )
        assert first.tasks() == second.tasks()
        assert world_class(4, WorldConfig(episodes=40)).tasks() != first.tasks()
        # Every schema change really changes the tools on offer.
        for name, at in first.config.changes.items():
            if name.startswith("schema"):
                first.episode = at - 1
                before = first.tool_specs()
                first.episode = at
                assert first.tool_specs() != before, name
    heldout = script.WORLDS["heldout"](0, WorldConfig(episodes=40))
    status = next(
        spec for spec in heldout.tool_specs() if spec["name"] == "check_status"
    )
    assert status["annotations"] == {"readOnlyHint": True}
    # Before the change at 10: 100 %. From 11 on, 10 episodes hold 2 failures: 80 % is back.
    assert script.recovery([True] * 10 + [False] * 3 + [True] * 12, 10) == 1
    assert script.recovery([True] * 10 + [False] * 15, 10) is None
    assert script.reliability([(0.9, True), (0.9, False)])["ece"] == pytest.approx(0.4)
