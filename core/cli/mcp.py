"""``deltacore mcp``: serve a store's memory tools over the Model Context Protocol."""

from __future__ import annotations

import argparse
import sys

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK, PROG, UsageError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_mcp_command(
    commands: argparse._SubParsersAction, store_options: object
) -> None:
    """Register ``deltacore mcp`` (called from ``parser.build_parser``)."""
    mcp = commands.add_parser(
        "mcp",
        help="serve the store's memory tools to MCP clients (stdio, or streamable HTTP on loopback)",
        description="Serve the store as an MCP server: tools add_memory, ingest_events, search_memory, "
        "record_outcome, recall_decisions, facts_as_of and forget (erases only with confirm: true), all in one tenant (--tenant, default 'default'). "
        "Over stdio by default (what MCP clients spawn); --http PORT serves streamable HTTP at "
        "http://127.0.0.1:PORT/mcp instead. Creates the store if the folder holds none.",
    )
    from deltacore.cli.inspect import store_argument

    store_argument(mcp)
    mcp.add_argument(
        "--http",
        type=int,
        default=None,
        metavar="PORT",
        help="serve streamable HTTP on this port instead of stdio",
    )
    mcp.add_argument(
        "--host",
        default=None,
        metavar="ADDR",
        help="with --http: the address to bind (default 127.0.0.1; anything else exposes the memory to the network)",
    )
    mcp.add_argument(
        "--channel",
        default=None,
        choices=("user", "agent", "tool", "document", "peer", "system"),
        help="where this server's writes really come from (trust prior); default: inferred from each event",
    )
    store_options(mcp, top_level=False)  # type: ignore[operator]
    mcp.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    """Open the store and serve it until the client disconnects (stdio) or Ctrl-C (HTTP)."""
    from deltacore.cli.inspect import apply_store_argument

    apply_store_argument(args)
    if args.host is not None and args.http is None:
        raise UsageError("--host only applies to --http PORT (stdio has no address)")
    if args.http is not None and not 0 < args.http < 65536:
        raise UsageError(f"--http: not a port number: {args.http}")
    from deltacore.async_engine import AsyncDeltaCore
    from deltacore.model import Channel
    from deltacore.server.mcp_server import build_server

    tenant = args.tenant if args.tenant is not None else "default"
    host = args.host or "127.0.0.1"
    with open_store(args, must_exist=False) as memory:
        channel = Channel(args.channel) if args.channel else None
        server = build_server(
            AsyncDeltaCore(memory),
            tenant=tenant,
            channel=channel,
            host=host,
            port=args.http or 8000,
        )
        if args.http is None:
            server.run(transport="stdio")
        else:
            if host not in LOOPBACK:
                print(
                    f"{PROG}: warning: serving memory on {host}: anyone who can reach it can read and write",
                    file=sys.stderr,
                )
            print(
                f"{PROG}: MCP server on http://{host}:{args.http}/mcp (tenant {tenant})",
                file=sys.stderr,
            )
            server.run(transport="streamable-http")
    return EXIT_OK
