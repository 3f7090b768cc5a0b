"""Open a store, optionally ingest seed events, close it.

argv: settings-json [seed-events]
stdout: ``OPENING`` just before ``DeltaCore.open``, then ``OPENED``; a failure raises.
"""

from __future__ import annotations

import sys

from _child import emit, note_text, open_store, settings

import deltacore  # noqa: F401 - imported before OPENING, so that the open follows it at once
import deltacore.storage  # noqa: F401

values = settings()
seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 0
emit("OPENING")
memory = open_store(values)
if seeds:
    result = memory.ingest([{"text": note_text("seed", i)} for i in range(seeds)])
    if len(result.stored) != seeds:
        sys.exit(f"seed events not stored: {result}")
memory.close()
emit("OPENED")
