"""Storage faults a user would otherwise not notice: a lost vector index, a file that is not a
store, a store the user may only read, a full disk, and ids no stored row can hold."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deltacore import DeltaCore
from deltacore.errors import (
    ConfigurationError,
    DeltaCoreError,
    ForeignDatabaseError,
    InvalidEventError,
    InvalidQueryError,
    ReadOnlyStoreError,
    StorageFullError,
)
from deltacore.testing import FakeEmbedder

TEXTS = [
    f"release {n} of the billing service failed on the payment path" for n in range(40)
]


def _fill(memory: DeltaCore) -> list[str]:
    return memory.ingest([{"text": text, "tenant": "acme"} for text in TEXTS]).stored


def _semantic_ids(memory: DeltaCore) -> set[str]:
    packets = memory.query(
        "billing service payment failed", tenant="acme", routers=["semantic"], top_k=40
    )
    return {packet.id for packet in packets}


# ---- the vector index checked against SQL on open -----------------------------------------------


def _lose_the_index(backend_settings: dict) -> None:
    """Delete the index the way it gets lost: the embedded folder, or the server's collections."""
    if "chroma_url" not in backend_settings:
        shutil.rmtree(Path(backend_settings["path"]) / "chroma")
        return
    import chromadb
    from urllib.parse import urlparse

    url = urlparse(backend_settings["chroma_url"])
    client = chromadb.HttpClient(host=url.hostname, port=url.port)
    for collection in client.list_collections():
        name = getattr(collection, "name", collection)
        if name.startswith(backend_settings["collection_prefix"] + "-"):
            client.delete_collection(name)


def test_a_lost_vector_index_is_noticed_and_repaired_on_open(backend, caplog) -> None:
    with backend.open() as memory:
        stored = _fill(memory)
        assert _semantic_ids(memory) == set(stored)
    _lose_the_index(backend.settings)

    with caplog.at_level(logging.WARNING, logger="deltacore"), backend.open() as memory:
        stats = memory.stats("acme")
        assert stats.vectors == len(stored) and stats.problems == []
        assert _semantic_ids(memory) == set(stored), (
            "semantic search finds every memory again"
        )
        repaired = memory.system_events("VECTOR_INDEX_REPAIRED", tenant="acme")
        assert repaired and repaired[0]["payload"]["written"] == len(stored)
    assert any("repaired from SQL" in record.getMessage() for record in caplog.records)


def test_a_healthy_store_opens_without_a_repair(backend) -> None:
    with backend.open() as memory:
        _fill(memory)
    with backend.open() as memory:
        assert memory.system_events("VECTOR_INDEX_REPAIRED") == []
        assert memory.stats().problems == []


# ---- a file that is not a store ---------------------------------------------------------------


def _foreign(kind: str, db: Path) -> None:
    if kind == "empty":
        db.write_bytes(b"")
    elif kind == "not sqlite":
        db.write_bytes(b"invoice 1, 2, 3\n" * 50)
    else:
        connection = sqlite3.connect(db)
        connection.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
        connection.commit()
        connection.close()


@pytest.mark.parametrize("kind", ["empty", "not sqlite", "another application"])
def test_a_file_that_is_not_a_store_is_refused_and_left_alone(
    tmp_path: Path, kind: str
) -> None:
    db = tmp_path / "deltacore.db"
    _foreign(kind, db)
    before = db.read_bytes()
    with pytest.raises(ForeignDatabaseError) as raised:
        DeltaCore.open(tmp_path, embedder=FakeEmbedder())
    assert "is not a DeltaCore store" in str(raised.value) and str(db) in str(
        raised.value
    )
    assert isinstance(raised.value, ConfigurationError)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deltacore.db"]


def test_a_store_another_process_is_creating_is_opened_not_refused(tmp_path: Path) -> None:
    # SQLite creates the file, then writes its first page: a second process opening the store
    # in between sees 0 bytes for a moment, which is not a truncated store.
    import threading

    from deltacore.storage.file_check import check_sqlite_file

    db = tmp_path / "deltacore.db"
    db.write_bytes(b"")

    def first_write() -> None:
        connection = sqlite3.connect(db)
        connection.execute("CREATE TABLE dc_store_meta (key TEXT)")
        connection.commit()
        connection.close()

    writer = threading.Timer(0.3, first_write)
    writer.start()
    try:
        assert check_sqlite_file(db) is True
    finally:
        writer.join()


# ---- read_only --------------------------------------------------------------------------------


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_read_only_store_answers_refuses_writes_and_writes_nothing(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    with DeltaCore.open(folder, embedder=FakeEmbedder()) as memory:
        stored = _fill(memory)
    before = _hashes(folder)
    can_write_anyway = (
        os.geteuid() == 0
    )  # root ignores file modes: then only the mode itself is tested
    if not can_write_anyway:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        with DeltaCore.open(folder, embedder=FakeEmbedder(), read_only=True) as memory:
            assert memory.get(stored[0]).text == TEXTS[0]
            assert len(memory.events(tenant="acme")) == len(stored)
            assert _semantic_ids(memory) == set(stored), (
                "semantic search scans the vectors kept in SQL"
            )
            assert memory.query("billing", tenant="acme")
            assert memory.stats("acme").events == len(stored)
            for write in (
                lambda: memory.add("a new memory", tenant="acme"),
                lambda: memory.ingest([{"text": "another"}]),
                lambda: memory.delete([stored[0]]),
                lambda: memory.record_retrieval(stored[:2], tenant="acme"),
            ):
                with pytest.raises(ReadOnlyStoreError, match="read_only=True"):
                    write()
            assert memory.get(stored[0]).text == TEXTS[0]
    finally:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert _hashes(folder) == before, "nothing was written to the store's files"


def test_read_only_on_a_missing_store_says_there_is_none(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no store"):
        DeltaCore.open(
            tmp_path / "nothing-here", embedder=FakeEmbedder(), read_only=True
        )
    assert not (tmp_path / "nothing-here").exists()


def test_read_only_on_the_server_backend_refuses_writes_and_reads(backend) -> None:
    with backend.open() as memory:
        stored = _fill(memory)
    with backend.open(read_only=True) as memory:
        assert _semantic_ids(memory) == set(stored)
        with pytest.raises(ReadOnlyStoreError):
            memory.add("a new memory", tenant="acme")
    with backend.open() as memory:
        assert memory.stats("acme").events == len(stored)


def test_cli_read_only_reads_and_refuses_ingest(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with DeltaCore.open(folder, embedder=FakeEmbedder()) as memory:
        memory.add("the billing service failed on tuesday")
    before = _hashes(folder)
    base = [
        sys.executable,
        "-m",
        "deltacore.cli",
        "--path",
        str(folder),
        "--embedder",
        "fake",
        "--read-only",
    ]
    query = subprocess.run(
        [*base, "query", "billing"], capture_output=True, text=True, check=False
    )
    assert query.returncode == 0 and "billing service failed" in query.stdout
    lines = tmp_path / "events.jsonl"
    lines.write_text('{"text": "a new memory"}\n')
    ingest = subprocess.run(
        [*base, "ingest", str(lines)], capture_output=True, text=True, check=False
    )
    assert ingest.returncode == 1 and "read_only" in ingest.stderr
    assert _hashes(folder) == before


# ---- a full disk ------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 48 MB file system (tmpfs) that the test can fill; needs mount rights (root)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(
            "mounting a small tmpfs needs root: the full-disk test runs where it can"
        )
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill_disk(mount: Path) -> Path:
    filler = mount / "filler"
    # Unbuffered: a buffered file keeps the part of its last write that did not fit and raises
    # ENOSPC again when closed (whether it does depends on how many bytes the store took).
    with filler.open("wb", buffering=0) as stream:
        try:
            while True:
                stream.write(b"\0" * 65536)
        except OSError:
            pass
    return filler


def test_a_full_disk_fails_writes_clearly_keeps_reads_and_recovers(
    small_disk: Path,
) -> None:
    memory = DeltaCore.open(small_disk / "store", embedder=FakeEmbedder())
    acknowledged = _fill(memory)
    memory.apply_outbox()  # indexed before the disk fills (background writes would be 200 ms later)
    filler = _fill_disk(small_disk)
    failures = []
    for n in range(150):
        try:
            acknowledged.append(
                memory.add(
                    f"release {n} after the disk filled up " + "padding " * 300,
                    tenant="acme",
                )
            )
        except DeltaCoreError as exc:
            failures.append(exc)
    assert failures, "the disk never filled"
    assert all(isinstance(exc, StorageFullError) for exc in failures), failures[:3]
    assert "disk is full" in str(failures[0]) and "free space" in str(failures[0])
    # Reads keep answering, from SQL and the index, while nothing can be written.
    assert memory.query("billing service payment", tenant="acme")
    assert {event.id for event in memory.events(tenant="acme", limit=10_000)} == set(
        acknowledged
    )
    filler.unlink()
    late = memory.add("written once space was freed", tenant="acme")
    memory.close()

    with DeltaCore.open(small_disk / "store", embedder=FakeEmbedder()) as memory:
        ids = {event.id for event in memory.events(tenant="acme", limit=10_000)}
        assert ids == {*acknowledged, late}, "no acknowledged write was lost"
        stats = memory.stats("acme")
        assert (
            stats.outbox_pending == 0
            and stats.vectors == len(ids)
            and stats.problems == []
        )


def test_a_store_opened_on_a_full_disk_answers_and_says_why(small_disk: Path) -> None:
    with DeltaCore.open(small_disk / "store", embedder=FakeEmbedder()) as memory:
        stored = _fill(memory)
    filler = _fill_disk(small_disk)
    with DeltaCore.open(small_disk / "store", embedder=FakeEmbedder()) as memory:
        assert {
            p.id
            for p in memory.query("billing service payment", tenant="acme", top_k=40)
        } <= set(stored)
        assert len(memory.events(tenant="acme")) == len(stored)
        problems = memory.stats().problems
        assert problems and "disk is full" in problems[0]
        with pytest.raises(ReadOnlyStoreError):
            memory.add("nothing can be written now", tenant="acme")
    filler.unlink()
    with DeltaCore.open(small_disk / "store", embedder=FakeEmbedder()) as memory:
        assert memory.stats().problems == [] and memory.stats("acme").vectors == len(
            stored
        )


# ---- ids and names no stored row can hold, and the size limits --------------------------------


@pytest.mark.parametrize("bad", ["a\x00b", "a\ud800b"])
def test_unstorable_keys_are_named_errors_on_every_backend(
    memory: DeltaCore, bad: str
) -> None:
    memory.add("alice deployed the api", entities=["alice"])
    calls = {
        "event_id": lambda: memory.get(bad),
        "entity": lambda: memory.query("api", entity=bad),
        "after": lambda: memory.events(after=bad),
        "event_ids": lambda: memory.delete([bad]),
        "node_id": lambda: memory.query_causal(bad),
        "tenant": lambda: memory.stats(bad),
    }
    for field, call in calls.items():
        with pytest.raises(InvalidQueryError) as raised:
            call()
        assert raised.value.field == field
    with pytest.raises(InvalidQueryError) as raised:
        memory.events(limit=-1)
    assert raised.value.field == "limit"
    assert memory.stats().events == 1


def test_field_limits_come_from_the_config_and_name_the_setting(backend) -> None:
    with backend.open(max_meta_chars=100, max_tool_args_chars=50) as memory:
        result = memory.ingest(
            [
                {"text": "ok", "meta": {"note": "m" * 101}},
                {
                    "text": "ok too",
                    "kind": "tool_call",
                    "tool_name": "search",
                    "tool_args": {"q": "q" * 51},
                },
                {"text": "fits", "meta": {"note": "m" * 90}},
            ]
        )
        fields = {r.index: r for r in result.rejected}
        assert fields[0].field == "meta" and "max_meta_chars" in fields[0].reason
        assert (
            fields[1].field == "tool_args" and "max_tool_args_chars" in fields[1].reason
        )
        assert len(result.stored) == 1
    with pytest.raises(ConfigurationError) as raised:
        backend.open(max_meta_chars=0)
    assert raised.value.field == "max_meta_chars"
    with pytest.raises(ConfigurationError):
        backend.open(max_text_chars=10**12)
    with (
        backend.open(max_text_chars=10) as memory,
        pytest.raises(InvalidEventError, match="max_text_chars"),
    ):
        memory.add("x" * 11)
