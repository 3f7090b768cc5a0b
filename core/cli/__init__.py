"""The ``deltacore`` command: ingest JSON lines, query, inspect and reindex a store.

::

    deltacore ingest events.jsonl            # one Event object per line; '-' reads stdin
    deltacore query "why did the deploy fail?" --top-k 5
    deltacore query "what does the user prefer?" --max-tokens 200 --json
    deltacore stats
    deltacore reindex
    deltacore review                             # items waiting for a person (UNSTABLE, SCHEMA_DRIFT…)
    deltacore review --resolve 3 --as reject --note "the old endpoint is gone"
    deltacore review --resolve 4 --as accept --args '{"service": "api", "region": 3}'
    deltacore quarantine                     # list quarantined events; --release/--confirm/--delete ID
    deltacore security-events --since 2026-01-01T00:00
    deltacore facts --subject alice                  # what is believed now; --at 2026-03-01 as it stood then
    deltacore conflicts                              # contradictions the store could not settle (E03)
    deltacore conflicts --resolve ID --as new --note "HR confirmed the move"
    deltacore verify-erasure "Alice Smith" --identifier alice@example.org   # is anything of her left?
    deltacore monitor --tenant acme                  # the memory economy (rich table; --json)
    deltacore consolidate --tenant acme              # one sleep cycle (merge, archive to COLD, gate); --status
    deltacore mcp ./agent_memory                     # MCP server on stdio; --http PORT for loopback HTTP
    deltacore inspect ./agent_memory --allow-review  # the inspector page on http://127.0.0.1:8765/

Where the store lives: ``--path DIR`` (embedded SQLite + Chroma, default ``./deltacore_data``),
or ``--database-url`` (PostgreSQL) with ``--chroma-url`` (a Chroma server). The environment
variables ``DELTACORE_PATH``, ``DELTACORE_DATABASE_URL`` and ``DELTACORE_CHROMA_URL`` give
defaults; flags win over them.

Exit status: 0 success; 1 some input lines were rejected, or a backend failed; 2 usage or
configuration error (missing file, bad URL, wrong embedder, missing extra, bad query, unknown or
already resolved review item or conflict).

One module per job: ``program`` (entry point, errors to exit statuses), ``parser`` (every
subcommand and option), ``store`` (which store to open), ``ingest``, ``query`` (also ``stats`` and
``reindex``), ``review``, ``trust`` (``quarantine``, ``security-events``), ``beliefs`` (``facts``,
``conflicts``), ``erasure`` (``verify-erasure``), ``consolidate``, ``monitor``, ``mcp``, ``inspect`` (they hand the open
store to ``deltacore.server``) and ``formatting``.
"""

from deltacore.cli.program import main
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, EXIT_USAGE

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "main"]
