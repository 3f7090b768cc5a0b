"""Several real OS processes on one store: crash recovery, concurrent writers, index ownership.

Children are plain scripts in ``tests/process_scripts/`` started with ``subprocess``; they talk
to the test over stdout (one flushed line per fact, so a line the test read was really
acknowledged) and stdin (barriers and commands). Every wait has a timeout.

SQL is the source of truth and the vector outbox is committed with the events, so:

- a writer killed between the SQL commit and the vector write loses nothing: the next open
  replays the outbox (``test_sigkill_between_commit_and_vector_write_loses_nothing``);
- two processes writing at once lose nothing (``test_two_processes_writing_at_once_lose_nothing``);
- on an embedded store one process owns the Chroma index; the others write SQL, search the
  vectors in SQL by brute force, and take over when the owner goes
  (``test_non_owner_writes_and_searches_then_takes_over``).

Two regression tests: concurrent first opens of a fresh SQLite store, and a process reopening
a store after another process owned its index.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deltacore import DeltaCore
from deltacore.config import DeltaCoreConfig
from deltacore.errors import StoreLockedError
from deltacore.storage import SQLStore

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SCRIPTS = Path(__file__).parent / "process_scripts"
WAIT = 120.0  # seconds: the most any single wait on a child may take


class Child:
    """One child process running a script of ``process_scripts``, with line-based I/O."""

    def __init__(self, script: str, args: list[str], workdir: Path) -> None:
        self.name = f"{script} {' '.join(args[1:])}".strip()
        self._stderr_path = workdir / f"child-{os.getpid()}-{time.monotonic_ns()}.stderr"
        self._stderr_file = self._stderr_path.open("wb")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPTS / script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr_file,
            text=True,
            env=env,
            cwd=workdir,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def stderr(self) -> str:
        self._stderr_file.flush()
        return self._stderr_path.read_text(errors="replace")

    def _fail(self, what: str) -> None:
        pytest.fail(f"{self.name}: {what}\nstdout so far: {self.lines[-5:]}\nstderr:\n{self.stderr()[-3000:]}")

    def next_line(self, timeout: float = WAIT, waiting_for: str = "a line") -> str:
        try:
            line = self._queue.get(timeout=timeout)
        except queue.Empty:
            self._fail(f"no {waiting_for} within {timeout:.0f} s")
        if line is None:
            self._queue.put(None)  # keep the end-of-output marker for later calls
            self._fail(f"exited (code {self.proc.wait(timeout=WAIT)}) before printing {waiting_for}")
        self.lines.append(line)
        return line

    def expect(self, prefix: str, timeout: float = WAIT) -> list[str]:
        """Read lines until one starts with the word ``prefix``; return that line's other words."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.next_line(max(deadline - time.monotonic(), 0.01), f"{prefix!r} line")
            if line.split(" ", 1)[0] == prefix:
                return line.split()[1:]

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def wait(self, timeout: float = WAIT) -> int:
        """Wait for the exit (reading the rest of stdout into ``lines``); returns the exit code."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._fail(f"still running after {timeout:.0f} s")
        self._reader.join(timeout=WAIT)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        return code

    def acked(self) -> list[str]:
        return [event_id for line in self.lines if line.startswith("ACK ") for event_id in line.split()[1:]]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        self._reader.join(timeout=10)  # it ends at EOF, which the exit brings
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._stderr_file.close()


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """``spawn(script, settings, *args)`` starts a child; any still running at the end is killed."""
    children: list[Child] = []

    def start(script: str, settings: dict[str, Any], *args: object) -> Child:
        child = Child(script, [settings_json(settings), *(str(a) for a in args)], tmp_path)
        children.append(child)
        return child

    yield start
    for child in children:
        child.stop()


def settings_json(settings: dict[str, Any]) -> str:
    return json.dumps({key: str(value) if isinstance(value, Path) else value for key, value in settings.items()})


def sql_counts(settings: dict[str, Any]) -> dict[str, Any]:
    """Counts read straight from SQL, without opening a DeltaCore (which would drain the outbox
    or take over the vector index)."""
    sql = SQLStore(DeltaCoreConfig.build(**settings))
    try:
        return sql.counts()
    finally:
        sql.close()


def assert_found_semantically(memory: DeltaCore, event_ids: list[str]) -> None:
    """Each event comes back from a semantic-only query for its own text."""
    missing = []
    for event_id in event_ids:
        text = memory.get(event_id).text
        found = [packet.id for packet in memory.query(text, routers=["semantic"], top_k=5)]
        if event_id not in found:
            missing.append(event_id)
    assert not missing, f"{len(missing)} of {len(event_ids)} events not found by semantic search: {missing[:5]}"


# ---- 1. crash between the SQL commit and the vector write ---------------------------------------


@pytest.mark.parametrize("kill_at", ["before_vector_write", "after_vector_write"])
def test_sigkill_between_commit_and_vector_write_loses_nothing(backend: Any, spawn: Any, kill_at: str) -> None:
    n1, n2, prefix = 12, 9, f"unacked-{kill_at}"
    child = spawn("crash_writer.py", backend.settings, kill_at, n1, n2, prefix)
    child.expect("BATCH2")
    acked = child.acked()
    assert len(acked) == n1
    assert child.wait() == -signal.SIGKILL, child.stderr()
    assert "SURVIVED" not in child.lines, "the batch-2 ingest returned: the kill did not happen inside it"

    # Batch 2 was committed (events and outbox rows), and its vector writes never completed.
    counts = sql_counts(backend.settings)
    assert counts["events"] == n1 + n2
    assert counts["outbox_pending"] == n2

    unacked = [f"{prefix}-{i}" for i in range(n2)]
    with backend.open() as memory:
        stats = memory.stats()
        assert stats.outbox_pending == 0, "opening the store must replay the outbox"
        assert memory.owns_vector_index, "the searches below must go through the vector index, not SQL"
        assert stats.events == n1 + n2
        assert stats.vectors == stats.events
        for event_id in acked + unacked:
            memory.get(event_id)
        assert_found_semantically(memory, acked + unacked)


# ---- 2. two writers at once ---------------------------------------------------------------------


def test_two_processes_writing_at_once_lose_nothing(backend: Any, spawn: Any) -> None:
    per_child = 300
    # Set the store up (schema, recorded embedder) before the writers race, in another process
    # so that this one opens the store only once, at the end. Racing first opens are another
    # matter (test_concurrent_first_open_of_a_fresh_store; on PostgreSQL the first ingests of a
    # fresh store also race in SQLStore.check_embedder's select-then-insert).
    setup = spawn("open_once.py", backend.settings, 1)
    children = [spawn("concurrent_writer.py", backend.settings, name, per_child) for name in ("alpha", "beta")]
    setup.expect("OPENED")
    assert setup.wait() == 0, setup.stderr()
    for child in children:
        child.send("OPEN")
    owners = [child.expect("READY")[0] == "True" for child in children]
    if backend.name == "sqlite":
        assert owners.count(True) == 1, f"exactly one live process owns the embedded index, got {owners}"
    else:
        assert all(owners), "with a Chroma server every process writes vectors"
    for child in children:  # the barrier: both are open before either writes
        child.send("GO")
    for child in children:
        child.expect("DONE")
        code = child.wait()
        stderr = child.stderr()
        assert "database is locked" not in stderr
        assert code == 0, stderr

    acked = [child.acked() for child in children]
    assert [len(ids) for ids in acked] == [per_child, per_child]
    assert not set(acked[0]) & set(acked[1])

    with backend.open() as memory:
        stats = memory.stats()
        assert stats.outbox_pending == 0
        assert stats.events == 2 * per_child + 1
        assert stats.vectors == stats.events
        for event_id in acked[0] + acked[1]:
            memory.get(event_id)
        rng = random.Random(7)
        assert_found_semantically(memory, rng.sample(acked[0], 15) + rng.sample(acked[1], 15))


# ---- 3. embedded store: owner and non-owner -----------------------------------------------------


def test_non_owner_writes_and_searches_then_takes_over(backend: Any, spawn: Any) -> None:
    if backend.name != "sqlite":
        pytest.skip("index ownership is for an embedded store; with a Chroma server every process writes")
    holder = spawn("holder.py", backend.settings, 4)
    holder_ids = holder.expect("ACK")
    assert holder.expect("READY") == ["True"]

    with pytest.raises(StoreLockedError) as refused:
        backend.open(multi_process="refuse")
    assert "chroma server" in str(refused.value).lower()

    memory = backend.open()
    try:
        assert not memory.owns_vector_index
        words = ["quokka", "axolotl", "pangolin"]
        mine = memory.ingest([{"text": f"non-owner note {i}: {word}"} for i, word in enumerate(words)]).stored
        assert len(mine) == 3
        stats = memory.stats()
        assert stats.vectors is None and "not owner" in stats.vector_backend
        assert stats.outbox_pending == 3, "a non-owner leaves its vector writes in the outbox"
        assert stats.events == 7

        # Brute force over the vectors in SQL: its own new events, and the owner's.
        assert_found_semantically(memory, mine + holder_ids[:2])
        assert not memory.owns_vector_index
        assert memory.stats().outbox_pending == 3

        holder.send("close")
        holder.expect("CLOSED")  # the owner closed its store but its process is still alive
        assert sql_counts(backend.settings)["outbox_pending"] == 3

        # The next query takes the index over and drains what was left in the outbox.
        found = memory.query(memory.get(mine[0]).text, routers=["semantic"], top_k=3)
        assert found and found[0].id == mine[0]
        assert sql_counts(backend.settings)["outbox_pending"] == 0
        assert memory.owns_vector_index
        stats = memory.stats()
        assert stats.vector_backend == "chroma-embedded"
        assert stats.outbox_pending == 0
        assert stats.events == 7 and stats.vectors == 7
        assert_found_semantically(memory, mine + holder_ids)
    finally:
        memory.close()
    holder.send("exit")
    assert holder.wait() == 0, holder.stderr()


# ---- 4. concurrent first open -------------------------------------------------------------------


def test_concurrent_first_open_of_a_fresh_store(backend: Any, spawn: Any) -> None:
    if backend.name != "sqlite":
        pytest.skip("SQLite write-lock behaviour (PostgreSQL setup is serialised by an advisory lock)")
    # Another writer holds the SQLite write lock while two processes open the fresh store, as
    # when several processes start together; it lets go once both are inside their open.
    folder = Path(backend.settings["path"])
    folder.mkdir(parents=True)
    other_writer = sqlite3.connect(folder / "deltacore.db", isolation_level=None)
    try:
        other_writer.execute("PRAGMA journal_mode=WAL")
        other_writer.execute("BEGIN IMMEDIATE")
        children = [spawn("open_once.py", backend.settings) for _ in range(2)]
        for child in children:
            child.expect("OPENING")
        time.sleep(2.0)  # for both to be inside run_migrations, waiting on the write lock
        other_writer.execute("ROLLBACK")
    finally:
        other_writer.close()
    failures = []
    for child in children:
        code = child.wait()
        if code != 0:
            failures.append(child.stderr().strip().splitlines()[-1])
    assert not failures, failures
    with backend.open() as memory:
        assert memory.stats().events == 0


# ---- 5. ownership handed back to a process that owned the index before ------------------------


def test_reopen_after_another_process_owned_the_index(backend: Any, spawn: Any) -> None:
    if backend.name != "sqlite":
        pytest.skip("index ownership is for an embedded store")
    holder = spawn("holder.py", backend.settings, 4)
    holder_ids = holder.expect("ACK")
    assert holder.expect("READY") == ["True"]
    holder.send("close")
    holder.expect("CLOSED")  # the process stays alive, as a long-running worker would

    # Meanwhile this process owns the index and writes enough for Chroma to persist its HNSW
    # index (over its 1000-vector sync threshold).
    with backend.open() as memory:
        assert memory.owns_vector_index
        result = memory.ingest([{"text": f"parent note {i}: token{i} word{i % 97}"} for i in range(1100)])
        assert len(result.stored) == 1100
        mine = result.stored[::100]

    holder.send("reopen")
    assert holder.expect("REOPENED") == ["True"]
    holder.send("find " + " ".join(mine + holder_ids))
    reply = holder.next_line(waiting_for="the FOUND reply")
    kind, _, rest = reply.partition(" ")
    assert kind == "FOUND", f"the reopened store failed a semantic query: {rest}"
    found = json.loads(rest)
    assert all(found.values()), [event_id for event_id, ok in found.items() if not ok]
    holder.send("stats")
    stats = json.loads(" ".join(holder.expect("STATS")))
    assert stats["outbox_pending"] == 0 and stats["vectors"] == stats["events"] == 1104
    holder.send("exit")
    assert holder.wait() == 0, holder.stderr()
