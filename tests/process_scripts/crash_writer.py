"""Ingest batch 1 (acknowledged), then die by SIGKILL inside the vector write of batch 2.

argv: settings-json kill_at n1 n2 batch2-id-prefix
kill_at: ``before_vector_write`` (after the SQL commit, before any Chroma write) or
``after_vector_write`` (after the Chroma upsert, before the outbox rows are deleted).
stdout: ``OPENED``, ``ACK <id>`` per batch-1 event, ``BATCH2`` just before batch 2.
"""

from __future__ import annotations

import os
import signal
import sys

from _child import emit, note_text, open_store, settings

from deltacore.storage import OutboxApplier

kill_at, n1, n2, prefix = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

# Inline vector writes: the kill must land inside batch 2's ingest (background writes are
# killed in their worker instead: tests/test_vector_writes.py).
memory = open_store(settings(), vector_writes="inline")  # opening drains the outbox: patch only after it
emit("OPENED")

result = memory.ingest([{"text": note_text("acknowledged", i), "session_id": "crash"} for i in range(n1)])
if result.rejected or len(result.stored) != n1:
    sys.exit(f"batch 1 not stored whole: {result}")
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

emit("BATCH2")
batch2 = [{"id": f"{prefix}-{i}", "text": note_text("unacknowledged", i), "session_id": "crash"} for i in range(n2)]
memory.ingest(batch2)
emit("SURVIVED")  # never reached: the ingest above must not return
sys.exit(3)
