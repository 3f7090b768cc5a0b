"""A forget rebuilds the tenant's vectors into a new collection and deletes the old one, on
embedded Chroma and on a Chroma server: the old collection is gone, nothing returns the subject,
and another reader of the same store keeps answering while it happens."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from deltacore import DeltaCore
from deltacore.storage.vector_index import generation_name


def _fill(memory: DeltaCore, n: int) -> tuple[str, np.ndarray]:
    memory.ingest([{"text": f"ops note {i}: the nightly deploy of service {i % 17} finished"} for i in range(n)])
    alice = memory.add("Alice Smith asked for a refund of order 4411", entities=["Alice Smith"])
    memory.apply_outbox()  # these tests read the index itself: pending background vector writes first
    return alice, memory.embed(["Alice Smith asked for a refund of order 4411"])[0]


def _all_names(memory: DeltaCore) -> list[str]:
    client = memory._vectors.current()._client
    return [getattr(c, "name", c) for c in client.list_collections()]


def test_forget_swaps_in_a_new_collection_and_the_old_one_is_gone(memory: DeltaCore) -> None:
    alice, vector = _fill(memory, 60)
    index = memory._vectors.current()
    [old] = index.names_of("default")
    assert alice in [i for i, _ in index.query("default", vector, 5, None)]  # the probe sees her

    cert = memory.forget("Alice Smith")

    [new] = index.names_of("default")
    assert new != old and old not in _all_names(memory)
    steps = {s.action: s for s in cert.physical if s.action.startswith("rebuild collection")}
    assert steps["rebuild collection: old collection deleted"].ok and steps["rebuild collection: old collection deleted"].detail == old
    assert steps["rebuild collection: index lists only the new one"].ok
    assert alice not in [i for i, _ in index.query("default", vector, 10, None)]
    assert index.count("default") == 60
    assert not any("Alice" in h.text for h in memory.query("Alice Smith refund", top_k=10))
    # The store, reopened, finds the new collection by the pointer; reindex keeps one collection.
    memory.reindex()
    assert index.names_of("default") == [new] and index.count("default") == 60


def test_a_collection_an_interrupted_rebuild_left_is_removed_by_the_next_forget(memory: DeltaCore) -> None:
    _fill(memory, 10)
    index = memory._vectors.current()
    leftover = generation_name(index.prefix, "default")
    index.open_named("default", leftover).upsert(ids=["stale"], embeddings=[[0.1] * memory.embed(["x"]).shape[1]])
    assert len(index.names_of("default")) == 2

    memory.forget("Alice Smith")

    assert len(index.names_of("default")) == 1 and leftover not in _all_names(memory)


def test_a_second_reader_keeps_answering_during_forgets(backend) -> None:
    writer = backend.open()
    reader = backend.open()
    try:
        _fill(writer, 400)
        for i in range(3):
            writer.add(f"Person{i} Example-{i} asked about invoice {i}", entities=[f"Person{i} Example-{i}"])
        reader.query("nightly deploy", top_k=5)  # the reader now holds a handle on the old collection
        errors: list[str] = []
        answers: list[list[str]] = []
        short: list[int] = []  # semantic answers with fewer than 5 neighbours: a half-filled collection
        retained = writer.embed(["ops note 7: the nightly deploy of service 7 finished"])[0]
        index = reader._vectors.current()
        done = threading.Event()

        def query_loop() -> None:
            while not done.is_set():
                try:
                    answers.append([h.text for h in reader.query("Alice Smith refund order", top_k=5)])
                    if index is not None and len(index.query("default", retained, 5, None)) < 5:
                        short.append(len(answers))
                except Exception as exc:  # noqa: BLE001 - every failure is the finding
                    errors.append(repr(exc))

        thread = threading.Thread(target=query_loop)
        thread.start()
        try:
            writer.forget("Alice Smith")
            for i in range(3):
                writer.forget(f"Person{i} Example-{i}")
        finally:
            done.set()
            thread.join(timeout=60)
        assert errors == [] and short == []
        assert len(answers) > 3
        after = reader.query("Alice Smith refund order", top_k=10)
        assert after and not any("Alice" in h.text for h in after)
    finally:
        reader.close()
        writer.close()


def test_server_folder_keeps_no_orphan_segment_when_its_path_is_given(backend) -> None:
    """With ``chroma_server_path`` (the server's --path on this machine) forget removes the
    deleted collection's segment folder, which a Chroma 1.5.9 server keeps on disk."""
    folder = os.environ.get("DELTACORE_TEST_CHROMA_PATH")
    if backend.name != "postgres" or not folder:
        pytest.skip("set DELTACORE_TEST_CHROMA_PATH to the test Chroma server's --path")
    memory = backend.open(chroma_server_path=Path(folder))
    try:
        _fill(memory, 30)
        cert = memory.forget("Alice Smith")
        assert [s for s in cert.physical if s.backend == "chroma-server" and not s.ok] == []
        assert any("chroma_server_path" in limit for limit in cert.limits)
        con = sqlite3.connect(f"file:{folder}/chroma.sqlite3?mode=ro", uri=True)
        try:
            live = {row[0] for row in con.execute("SELECT id FROM segments")}
        finally:
            con.close()
        folders = {p.name for p in Path(folder).iterdir() if p.is_dir() and p.name.count("-") == 4}
        assert folders <= live
    finally:
        memory.close()


def test_unused_hnsw_capacity_is_zeroed_after_forget(memory: DeltaCore, backend) -> None:
    """hnswlib does not clear an index's element array and Chroma writes all of it: the slots
    past the element count held an erased subject's vector, byte for byte, at 1,000 memories."""
    if backend.name != "sqlite":
        pytest.skip("the embedded index's files")
    _fill(memory, 150)
    cert = memory.forget("Alice Smith")

    scrubbed = [s for s in cert.physical if s.action == "zero unused HNSW capacity"]
    assert scrubbed and all(s.ok for s in scrubbed)
    for header in (memory.config.path / "chroma").glob("*/header.bin"):
        raw = header.read_bytes()
        count, size = (int.from_bytes(raw[at : at + 8], "little") for at in (20, 28))
        tail = (header.parent / "data_level0.bin").read_bytes()[count * size :]
        assert tail == bytes(len(tail))
