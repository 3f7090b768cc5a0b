"""``deltacore query``, ``stats`` and ``reindex``: read a store and keep its vector index."""

from __future__ import annotations

import argparse
import json
from typing import Any

from deltacore.cli.formatting import format_packet
from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK


def _routers(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return ()
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())


def run_query(args: argparse.Namespace) -> int:
    """Print the memories most relevant to the text, best first (or JSON with ``--json``)."""
    fields: dict[str, Any] = {"top_k": args.top_k, "max_tokens": args.max_tokens, "routers": _routers(args.router)}
    if args.tenant is not None:
        fields["tenant"] = args.tenant
    with open_store(args) as memory:
        packets = memory.query(" ".join(args.text), **fields)
    if args.json:
        print(json.dumps([p.model_dump(mode="json") for p in packets], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not packets:
        print("no memories found")
        return EXIT_OK
    for rank, packet in enumerate(packets, start=1):
        print(format_packet(rank, packet))
    tokens = sum(p.token_cost for p in packets)
    budget = f" (budget {args.max_tokens})" if args.max_tokens is not None else ""
    print(f"{len(packets)} memories, {tokens} tokens{budget}")
    return EXIT_OK


# ---- stats and reindex ------------------------------------------------------------------------


def run_stats(args: argparse.Namespace) -> int:
    """Print the store's counts and health, one ``name  value`` line each (or JSON)."""
    with open_store(args) as memory:
        stats = memory.stats(args.tenant)
    if args.json:
        print(stats.model_dump_json(indent=2))
        return EXIT_OK
    values = stats.model_dump()
    values["tenants"] = ", ".join(stats.tenants) or "-"
    if stats.vectors is None:
        values["vectors"] = "unknown (another process owns the vector index)"
    width = max(len(name) for name in values)
    for name, value in values.items():
        print(f"{name.replace('_', ' '):<{width}}  {value if value is not None else '-'}")
    return EXIT_OK


def run_reindex(args: argparse.Namespace) -> int:
    """Rebuild the vector index from the database, re-embedding first with ``--reembed``."""
    from deltacore.cli.progress import Progress

    progress = Progress()
    with open_store(args, allow_embedder_change=args.reembed) as memory:
        try:
            written = memory.reindex(args.tenant, reembed=args.reembed, progress=progress)
        finally:
            progress.close()
    what = "re-embedded and indexed" if args.reembed else "indexed"
    print(f"{written} vectors {what}")
    return EXIT_OK

