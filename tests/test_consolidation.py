"""Sleep-cycle consolidation (Layer 5) on real stores: SQLite + embedded Chroma, and PostgreSQL
+ a Chroma server (the ``backend`` fixture). Only the embedder is a fake."""

from __future__ import annotations

import threading
import time

import pytest
from deltacore import (
    ColdPartitionCorruptError,
    ConsolidationPhase,
    InvalidConsolidationError,
    NotFoundError,
)

# 1% of raw events (by id hash) are anchors, never merged: with random ids a test merging two
# events would fail about 2% of its runs, so tests that count merges turn anchors off.
NO_ANCHORS = {"anchor_fraction": 0.0}
PRUNE_ALL = {"prune_after_days": 0.0, "prune_utility": 10.0, "anchor_fraction": 0.0}
"""A policy under which every memory is cold enough to archive (utility is always under 10)."""

DISTINCT = [
    "the deploy pipeline failed on the integration stage because of a flaky test",
    "alice prefers green tea in the morning before standup",
    "the billing service exposes its metrics on port 9102",
    "bob is on call for the payments team this week",
    "the nightly backup of the warehouse takes about forty minutes",
    "our staging cluster runs kubernetes version 1.29",
    "carol wrote the runbook for rotating the tls certificates",
    "the search index is rebuilt every sunday at two in the morning",
    "dave asked for the quarterly latency report by friday",
    "the mobile app crashes when the user has no network connection",
    "erin moved the design review to thursday afternoon",
    "the recommendation model was retrained on october data",
]


def live_view(memory, tenant="default"):
    """What a user can notice of a store's live memories: id -> text."""
    return {e.id: e.text for e in memory.events(tenant=tenant, limit=1000)}


def test_merge_keeps_provenance_and_originals_stay_addressable(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        a = memory.add("the staging database lives on host db-7", kind="fact")
        b = memory.add("the staging database lives on host db-7 now", kind="fact")
        other = memory.add("alice prefers green tea in the morning", kind="fact")
        report = memory.consolidate("nrem")
        assert (report.merged, report.originals_hidden, report.rolled_back) == (1, 2, False)
        assert report.fidelity is not None and report.fidelity > 0.85

        hits = memory.query("where does the staging database live?", top_k=5)
        ids = [p.id for p in hits]
        merged = next(p for p in hits if p.meta.get("derives_from"))
        assert sorted(merged.meta["derives_from"]) == sorted([a, b])
        assert a not in ids and b not in ids  # never a merged memory and its originals together
        assert other in live_view(memory)
        # Originals are immutable and addressable: by id, and in the version history.
        assert memory.get(a).text == "the staging database lives on host db-7"
        assert [v.event.id for v in memory.versions(b)] == [b, merged.id]
        assert [v.event.id for v in memory.versions(a)] == [a, merged.id]
        # The merged memory's history is its own: neither original is its earlier version.
        assert [v.event.id for v in memory.versions(merged.id)] == [merged.id]
        assert memory.get(a, latest=True).id == merged.id
        status = memory.consolidate_status()
        assert status.merged_live == 1 and status.cycles == 1 and status.last_cycle.merged == 1
        updated = memory.update(merged.id, text="the staging database lives on host db-9")
        assert [v.event.id for v in memory.versions(updated.new_id)] == [merged.id, updated.new_id]


def test_a_merge_never_joins_two_values_of_one_fact_slot(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        text = "note for the team about where alice lives these days in the city"
        paris = memory.add(text, kind="fact", meta={"subject": "Alice", "attribute": "city", "value": "Paris"})
        berlin = memory.add(text + " too", kind="fact", meta={"subject": "Alice", "attribute": "city", "value": "Berlin"})
        report = memory.consolidate("nrem")
        assert report.merged == 0 and report.slot_conflicts >= 1
        assert {paris, berlin} <= set(live_view(memory))
        # The same slot with the same value is a duplicate, and merges.
        again = memory.add(text + " again", kind="fact", meta={"subject": "Alice", "attribute": "city", "value": "Paris"})
        report = memory.consolidate("nrem")
        assert report.merged == 1
        merged = [e for e in memory.events(limit=100) if e.meta.get("derives_from")]
        assert sorted(merged[0].meta["derives_from"]) == sorted([paris, again])
        assert berlin in live_view(memory)


def test_the_trust_guard_keeps_untrusted_memories_out_of_merges(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        trusted = memory.add("the release checklist lives in the wiki under ops", kind="fact")
        # A document from a source nobody vouched for lands UNVERIFIED: it may not be generalised.
        result = memory.ingest([{"text": "the release checklist lives in the wiki under ops now", "kind": "fact",
                                 "source": "unknown-bot"}], channel="document")
        report = memory.consolidate("nrem")
        assert report.merged == 0
        assert report.refused_by_guard == 1
        assert {trusted, result.event_ids[0]} <= set(live_view(memory))


def test_prune_moves_to_cold_not_away_and_cold_is_still_reachable(backend, tmp_path):
    with backend.open(consolidation=PRUNE_ALL) as memory:
        ids = [memory.add(text, kind="observation") for text in DISTINCT[:6]]
        report = memory.consolidate("prune")
        assert report.pruned == 6 and not report.rolled_back
        assert live_view(memory) == {}  # out of live retrieval …
        assert memory.query("which port has the billing metrics?", top_k=5) == []
        # … but never deleted: get() and include_cold reach it.
        assert memory.get(ids[2]).text == DISTINCT[2]
        assert memory.get(ids[2]).meta["tier"] == "cold"
        hits = memory.query("which port has the billing metrics?", top_k=3, include_cold=True)
        assert hits[0].id == ids[2] and hits[0].meta["tier"] == "cold"
        status = memory.consolidate_status()
        assert status.cold_items == 6 and status.cold_partitions == 1


def test_cold_round_trip_keeps_everything_and_a_corrupt_partition_is_detected(backend):
    with backend.open(consolidation=PRUNE_ALL) as memory:
        first = memory.add(DISTINCT[0], kind="observation", entities=["ci"], meta={"ticket": "OPS-12"})
        before = memory.get(first)
        memory.consolidate("prune")
        after = memory.get(first)
        assert (after.text, after.entities, after.ts, after.kind) == (before.text, before.entities, before.ts, before.kind)
        assert after.meta["ticket"] == "OPS-12"
        folder = backend.settings["path"] / "cold"
        files = list(folder.rglob("*.parquet"))
        assert len(files) == 1
        data = bytearray(files[0].read_bytes())
        data[len(data) // 2] ^= 0xFF
        files[0].write_bytes(bytes(data))
    with backend.open(consolidation=PRUNE_ALL) as memory:
        with pytest.raises(ColdPartitionCorruptError, match="SHA-256"):
            memory.query("deploy pipeline", include_cold=True)


def test_a_deliberately_bad_merge_threshold_is_rolled_back_to_the_snapshot(backend):
    with backend.open(consolidation={"merge_threshold": 0.0, "anchor_fraction": 0.0}) as memory:
        for text in DISTINCT:
            memory.add(text, kind="observation")
        memory.register_probes(["which port has the billing metrics?", "who is on call for payments?",
                                "when is the search index rebuilt?", "what does alice drink in the morning?"])
        snapshot = live_view(memory)
        report = memory.consolidate("nrem")
        assert report.rolled_back, report
        assert report.precision_after < report.precision_before
        assert "store equal to the snapshot after rollback: True" in report.notes
        assert live_view(memory) == snapshot
        assert not [e for e in memory.events(limit=100) if e.meta.get("derives_from")]
        assert memory.system_events("consolidation_regression")
        status = memory.consolidate_status()
        assert status.rolled_back == 1 and status.merged_live == 0
        # The next cycle retries more conservatively.
        assert memory.consolidate("nrem").merge_threshold == pytest.approx(0.5)


def test_compression_depth_is_limited(backend):
    with backend.open(consolidation={"max_depth": 2, "anchor_fraction": 0.0}) as memory:
        base = "the payments api returns error 503 when the ledger is locked"
        memory.add(base, kind="observation")
        memory.add(base + " again", kind="observation")
        assert memory.consolidate("nrem").merged == 1  # depth 1
        memory.add(base + " once more", kind="observation")
        assert memory.consolidate("nrem").merged == 1  # depth 2: the limit
        late = memory.add(base + " yet again", kind="observation")
        report = memory.consolidate("nrem")
        assert report.merged == 0 and report.depth_limited == 1
        live = [e for e in memory.events(limit=100)]
        assert late in {e.id for e in live}
        assert max(e.meta.get("consolidation", {}).get("depth", 0) for e in live) == 2


def test_a_concurrent_writer_during_a_cycle_loses_nothing(backend):
    with backend.open(consolidation=PRUNE_ALL) as memory:
        for i in range(40):
            memory.add(f"{DISTINCT[i % len(DISTINCT)]} (copy {i % 3})", kind="observation")
        written: list[str] = []
        done = threading.Event()

        def writer() -> None:
            n = 0
            while not done.is_set() and n < 200:
                written.append(memory.add(f"concurrent note number {n} about the rollout", kind="message"))
                n += 1

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            memory.consolidate()
        finally:
            done.set()
            thread.join()
        assert written
        for event_id in written:
            assert memory.get(event_id).id == event_id  # live, hidden by a merge, or COLD: never gone


def test_bad_input_names_the_field_and_changes_nothing(memory):
    memory.add("the cache is warmed at boot", kind="fact")
    memory.add("the cache is warmed at boot time", kind="fact")
    before = live_view(memory)
    with pytest.raises(InvalidConsolidationError, match="phase"):
        memory.consolidate("deep-sleep")
    with pytest.raises(InvalidConsolidationError, match="budget"):
        memory.consolidate(budget=-1)
    with pytest.raises(InvalidConsolidationError, match="budget"):
        memory.consolidate(budget="soon")
    with pytest.raises(InvalidConsolidationError, match=r"probes\[0\]\.text"):
        memory.register_probes([""])
    assert live_view(memory) == before
    assert memory.consolidate_status().cycles == 0
    assert memory.consolidate(ConsolidationPhase.REM).merged == 0  # an enum works as well as its name


def test_forget_erases_merged_items_and_cold_rows_of_the_subject(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        a1 = memory.add("Zoe Quinlan booked the offsite venue for march", kind="message")
        a2 = memory.add("Zoe Quinlan booked the offsite venue for march again", kind="message")
        bob = memory.add(DISTINCT[3], kind="message")
        assert memory.consolidate("nrem").merged == 1
        merged_id = memory.get(a1, latest=True).id
    with backend.open(consolidation=PRUNE_ALL) as memory:
        assert memory.consolidate("prune").pruned == 2  # the merged memory and bob's go COLD
        preview = memory.forget("Zoe Quinlan", dry_run=True)
        assert preview.counts.get("cold") == 1 and preview.samples["cold"] == [merged_id]
        assert [p for p in memory.query("offsite venue", include_cold=True) if "Zoe" in p.text]  # a preview erases nothing
        certificate = memory.forget("Zoe Quinlan")
        assert not certificate.nothing_found
        for gone in (a1, a2, merged_id):
            with pytest.raises(NotFoundError):
                memory.get(gone)
        assert memory.get(bob).text == DISTINCT[3]  # the rest of the COLD tier is intact
        assert not [p for p in memory.query("offsite venue", include_cold=True) if "Zoe" in p.text]
        for path in (backend.settings["path"] / "cold").rglob("*.parquet"):
            assert b"Quinlan" not in path.read_bytes()


def test_forget_of_an_original_also_erases_the_merged_memory(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        a1 = memory.add("Yuri Brandt prefers the window seat on flights", kind="message")
        memory.add("Yuri Brandt prefers the window seat on long flights", kind="message")
        keep = memory.add(DISTINCT[1], kind="message")
        memory.consolidate("nrem")
        merged_id = memory.get(a1, latest=True).id
        memory.forget("Yuri Brandt")
        with pytest.raises(NotFoundError):
            memory.get(merged_id)
        assert keep in live_view(memory)
        assert memory.consolidate_status().merged_live == 0


def test_read_only_open_refuses_cycles_and_starts_no_trigger(backend):
    backend.open().close()
    with backend.open(read_only=True, consolidation={"automatic": True}) as memory:
        assert memory.consolidate_status().automatic is False
        with pytest.raises(Exception, match="read_only"):
            memory.consolidate()


def test_the_event_trigger_runs_a_cycle_by_itself(backend):
    policy = {"automatic": True, "trigger_events": 4, "check_seconds": 0.2, **NO_ANCHORS}
    with backend.open(consolidation=policy) as memory:
        base = "the login page shows a blank screen on safari"
        for suffix in ("", " today", " again", " for many users"):
            memory.add(base + suffix, kind="observation")
        deadline = time.monotonic() + 60
        while memory.consolidate_status().cycles == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        status = memory.consolidate_status()
        assert status.cycles >= 1 and status.merged_live >= 1


async def test_async_twins_run_a_cycle(tmp_path):
    from deltacore import AsyncDeltaCore
    from deltacore.testing import FakeEmbedder

    async with await AsyncDeltaCore.open(tmp_path / "store", embedder=FakeEmbedder(), consolidation=NO_ANCHORS) as memory:
        await memory.ingest([{"text": "the vpn drops every hour", "kind": "observation"},
                             {"text": "the vpn drops every hour again", "kind": "observation"}])
        assert await memory.register_probes(["why does the vpn drop?"]) == 1
        report = await memory.consolidate("nrem", budget=30)
        assert report.merged == 1 and report.probes == 1 and not report.rolled_back, report
        assert (await memory.consolidate_status()).merged_live == 1


def test_the_cli_runs_a_cycle_with_progress_and_reports(tmp_path, capsys):
    import json

    from deltacore import DeltaCore
    from deltacore.cli import main
    from deltacore.testing import FakeEmbedder

    store = tmp_path / "store"
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        # Fixed ids that are no anchors: the CLI's cycle runs with the default policy.
        memory.add("the vpn gateway drops idle sessions after ten minutes", kind="observation", id="vpn-a")
        memory.add("the vpn gateway drops idle sessions after ten minutes again", kind="observation", id="vpn-b")
    assert main(["--path", str(store), "--embedder", "fake", "consolidate", "--phase", "nrem"]) == 0
    out, err = capsys.readouterr()
    assert "kept" in out and "merged 1 new memories from 2 originals" in out
    assert "nrem: 100%" in err  # the progress helper's lines when stderr is not a terminal
    assert main(["--path", str(store), "--embedder", "fake", "consolidate", "--status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["merged_live"] == 1 and status["cycles"] == 1
    assert main(["--path", str(store), "--embedder", "fake", "consolidate", "--budget", "-1"]) != 0
    assert "budget" in capsys.readouterr().err


def test_deleting_a_merged_memory_deletes_the_originals_it_hides(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        a = memory.add("the cdn edge in frankfurt serves the eu traffic", kind="fact")
        b = memory.add("the cdn edge in frankfurt serves the eu traffic now", kind="fact")
        memory.consolidate("nrem")
        merged_id = memory.get(a, latest=True).id
        result = memory.delete([merged_id])
        assert set(result.event_ids) == {a, b, merged_id}
        assert live_view(memory) == {}
        assert memory.consolidate_status().merged_live == 0


def test_a_cycle_past_its_budget_stops_and_the_next_one_resumes(backend):
    with backend.open(consolidation=NO_ANCHORS) as memory:
        memory.add("the backup job writes to the s3 bucket named archive-eu", kind="fact")
        memory.add("the backup job writes to the s3 bucket named archive-eu now", kind="fact")
        before = live_view(memory)
        report = memory.consolidate(budget=0)
        assert report.timed_out and report.merged == 0 and not report.rolled_back
        assert live_view(memory) == before
        assert memory.consolidate(budget=60).merged == 1  # the next cycle picks up what was left
