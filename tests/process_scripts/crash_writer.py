"""Ingest batches 1 and 2 (both acknowledged), then die by SIGKILL inside the vector write of
batch 2, which runs on the background thread during the ingest of batch 3.

An ingest leaves its vector writes in the outbox and the next ingest applies them beside its
embedder: batch 2's ingest applies batch 1's, batch 3's applies batch 2's (and is killed there,
before batch 3 reaches its write transaction).

argv: settings-json kill_at n1 n2 batch3-id-prefix
kill_at: ``before_vector_write`` (after the SQL commit, before any Chroma write) or
``after_vector_write`` (after the Chroma upsert, before the outbox rows are deleted).
stdout: ``OPENED``, ``ACK <id>`` per batch-1 and batch-2 event, ``BATCH3`` just before batch 3.
"""

from __future__ import annotations

import os
import signal
import sys

from _child import emit, note_text, open_store, settings

from deltacore.storage import OutboxApplier

kill_at, n1, n2, prefix = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

memory = open_store(settings())  # opening drains the outbox: patch only after it
emit("OPENED")

for batch, size in (("acknowledged", n1), ("acknowledged-2", n2)):
    result = memory.ingest([{"text": note_text(batch, i), "session_id": "crash"} for i in range(size)])
    if result.rejected or len(result.stored) != size:
        sys.exit(f"{batch} not stored whole: {result}")
    for event_id in result.event_ids:
        emit("ACK", event_id)


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


if kill_at == "before_vector_write":

    def drain(self: OutboxApplier) -> int:
        die()
        return 0

    OutboxApplier.drain = drain  # type: ignore[method-assign]
elif kill_at == "after_vector_write":
    original_apply = OutboxApplier._apply

    def _apply(self: OutboxApplier, conn: object, rows: list) -> None:
        original_apply(self, conn, rows)  # the vectors reach Chroma...
        die()  # ...but the outbox rows are never deleted

    OutboxApplier._apply = _apply  # type: ignore[method-assign]
else:
    sys.exit(f"unknown kill point {kill_at!r}")

emit("BATCH3")
batch3 = [{"id": f"{prefix}-{i}", "text": note_text("unacknowledged", i), "session_id": "crash"} for i in range(5)]
memory.ingest(batch3)
emit("SURVIVED")  # never reached: the ingest above must not return
sys.exit(3)
