"""``deltacore monitor``: the memory economy of a store or one tenant (rich table or JSON)."""

from __future__ import annotations

import argparse
from typing import Any

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK
from deltacore.model.economy import ErasureRecord, LatencySummary, MemoryEconomy


def run_monitor(args: argparse.Namespace) -> int:
    """Print ``monitor()``: persistent figures (from SQL) and this process's own (see the note)."""
    with open_store(args) as memory:
        economy = memory.monitor(args.tenant)
    if args.json:
        print(economy.model_dump_json(indent=2))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    scopes = MemoryEconomy.scopes()
    table = Table(
        title=f"memory economy of {'tenant ' + repr(economy.tenant) if economy.tenant else 'the store'}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("scope")
    for name, value in economy.model_dump().items():
        if name in (
            "tiers",
            "router_latency",
            "query_latency",
            "measured_at",
            "recent_erasures",
        ):
            continue
        table.add_row(name.replace("_", " "), _shown(value), scopes[name])
    for tier in economy.tiers:
        table.add_row(
            f"tier {tier.tier}",
            f"{tier.memories:,} memories, {_shown(tier.bytes)} bytes",
            tier.scope,
        )
    table.add_row("query latency", _latency(economy.query_latency), "process")
    for router, summary in economy.router_latency.items():
        table.add_row(f"  router {router}", _latency(summary), "process")
    for record in economy.recent_erasures:
        table.add_row(f"  forget {record.request_id}", _erasure(record), "store")
    console = Console()
    console.print(table)
    console.print(
        "[dim]store: read from SQL, the same in every process. process: measured by this command's own "
        "process, which has just opened the store (a serving process reports its own).[/dim]"
    )
    return EXIT_OK


def _latency(summary: LatencySummary) -> str:
    if not summary.count:
        return "no queries in the window"
    return f"p50 {summary.p50_ms:.1f} / p95 {summary.p95_ms:.1f} / p99 {summary.p99_ms:.1f} ms ({summary.count})"


def _erasure(record: ErasureRecord) -> str:
    when = record.completed_at or record.created_at
    counts = ", ".join(f"{k}={v}" for k, v in record.counts.items() if v)
    return f"{record.state}, {record.mode}, {when:%Y-%m-%d %H:%M} UTC" + (
        f", {counts}" if counts else ""
    )


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return (
            ", ".join(f"{k}={_shown(v)}" for k, v in value.items() if v is not None)
            or "-"
        )
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)
