"""Wait for ``OPEN`` on stdin, open the store, wait for ``GO``, ingest ``count`` distinct events
in batches of 10-25.

argv: settings-json name count
stdout: ``LOADED`` once imported, ``READY <owns-vector-index>`` once open, then ``ACK <id> ...``
per acknowledged batch, then ``DONE <owns-vector-index>``. Any failure raises (exit code not 0).
"""

from __future__ import annotations

import random
import sys

from _child import emit, note_text, open_store, settings, wait_for

import deltacore  # noqa: F401 - the slow imports happen before the parent's OPEN

name, count = sys.argv[2], int(sys.argv[3])
emit("LOADED")
wait_for("OPEN")
memory = open_store(settings())
emit("READY", memory.owns_vector_index)
wait_for("GO")

rng = random.Random(name)
number = 0
while number < count:
    size = min(rng.randint(10, 25), count - number)
    batch = [{"text": note_text(name, number + i), "agent_id": name} for i in range(size)]
    result = memory.ingest(batch)
    if result.rejected or len(result.stored) != size or result.event_ids != result.stored:
        sys.exit(f"batch at {number} not stored whole: {result}")
    emit("ACK", *result.event_ids)
    number += size

emit("DONE", memory.owns_vector_index)
memory.close()
