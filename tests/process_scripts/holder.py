"""Open the store (becoming the owner of an embedded vector index) and hold it until told.

argv: settings-json n
stdout: ``ACK <id> ...`` for its ``n`` events, ``READY <owns-vector-index>``; then one reply per
stdin command (the process stays alive until ``exit``):

- ``close`` -> closes the store, ``CLOSED``
- ``reopen`` -> opens it again, ``REOPENED <owns-vector-index>``
- ``find <id> ...`` -> a semantic-only query per id with that event's text:
  ``FOUND <json {id: found?}>``, or ``ERROR <exception>`` if a query raised
- ``stats`` -> ``STATS <json>``
- ``exit`` -> exits 0
"""

from __future__ import annotations

import json
import sys

from _child import emit, note_text, open_store, settings

# Inline vector writes: its own writes are indexed before ACK, and no background drain of this
# owner takes the parent's outbox rows at a moment the test does not choose.
values, n = {**settings(), "vector_writes": "inline"}, int(sys.argv[2])
memory = open_store(values)
result = memory.ingest([{"text": note_text("holder", i)} for i in range(n)])
if result.rejected or len(result.stored) != n:
    sys.exit(f"not stored whole: {result}")
emit("ACK", *result.event_ids)
emit("READY", memory.owns_vector_index)

for line in sys.stdin:
    command, *args = line.split()
    if command == "close":
        memory.close()
        emit("CLOSED")
    elif command == "reopen":
        memory = open_store(values)
        emit("REOPENED", memory.owns_vector_index)
    elif command == "find":
        try:
            found = {}
            for event_id in args:
                packets = memory.query(memory.get(event_id).text, routers=["semantic"], top_k=5)
                found[event_id] = event_id in [packet.id for packet in packets]
        except Exception as exc:  # reported to the parent, which fails the test with it
            emit("ERROR", f"{type(exc).__name__}: {exc}".replace("\n", " "))
        else:
            emit("FOUND", json.dumps(found))
    elif command == "stats":
        emit("STATS", memory.stats().model_dump_json())
    elif command == "exit":
        break
