"""``deltacore inspect``: serve the local inspector page (read-only unless ``--allow-review``)."""

from __future__ import annotations

import argparse
import os
import sys

from deltacore.cli.store import open_store
from deltacore.cli.usage import EXIT_OK, PROG, UsageError

HOST_VARIABLE = "DELTACORE_INSPECT_HOST"


def store_argument(parser: argparse.ArgumentParser) -> None:
    """The optional STORE positional: a folder (embedded) or a database URL, like ``--path`` /
    ``--database-url``."""
    parser.add_argument(
        "store",
        nargs="?",
        default=None,
        metavar="STORE",
        help="the store: a folder, or a database URL (same as --path / --database-url)",
    )


def apply_store_argument(args: argparse.Namespace) -> None:
    if args.store is None:
        return
    key = "database_url" if "://" in args.store else "path"
    if getattr(args, key) not in (None, args.store):
        raise UsageError(
            f"STORE {args.store!r} and --{key.replace('_', '-')} {getattr(args, key)!r} name two stores: give one"
        )
    setattr(args, key, args.store)


def add_inspect_command(
    commands: argparse._SubParsersAction, store_options: object
) -> None:
    """Register ``deltacore inspect`` (called from ``parser.build_parser``)."""
    inspect = commands.add_parser(
        "inspect",
        help="serve a local page to look at a store: economy, episodes, trust, facts in time",
        description="Serve the inspector page on http://127.0.0.1:PORT/: the memory economy with charts, "
        "an episode's causal chain with each step's credit, quarantine with reasons, the security log, the "
        "review queue, and the facts with an as-of slider and conflicts. Read-only unless --allow-review. "
        "It binds to loopback only: another address must be given explicitly with --host.",
    )
    store_argument(inspect)
    inspect.add_argument(
        "--port",
        type=int,
        default=8765,
        metavar="PORT",
        help="port to listen on (default 8765)",
    )
    inspect.add_argument(
        "--host",
        default=None,
        metavar="ADDR",
        help=f"address to bind (default ${HOST_VARIABLE} or 127.0.0.1; a non-loopback address is refused unless given here)",
    )
    inspect.add_argument(
        "--allow-review",
        action="store_true",
        help="show approve / reject buttons and apply them",
    )
    store_options(inspect, top_level=False)  # type: ignore[operator]
    inspect.set_defaults(handler=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    """Open the store and serve the page until Ctrl-C."""
    apply_store_argument(args)
    if not 0 < args.port < 65536:
        raise UsageError(f"--port: not a port number: {args.port}")
    from deltacore.server.inspector.app import check_bind, serve

    explicit = args.host is not None
    host = args.host or os.environ.get(HOST_VARIABLE) or "127.0.0.1"
    check_bind(
        host, explicit=explicit
    )  # before opening the store: refuse early, change nothing
    tenant = args.tenant if args.tenant is not None else "default"
    with open_store(args) as memory:
        where = f"[{host}]" if ":" in host else host
        mode = "review enabled" if args.allow_review else "read-only"
        print(
            f"{PROG}: inspector on http://{where}:{args.port}/ (tenant {tenant}, {mode}); Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        serve(
            memory,
            host=host,
            port=args.port,
            explicit_host=explicit,
            tenant=tenant,
            allow_review=args.allow_review,
            title=str(args.store or args.path or args.database_url or ""),
        )
    return EXIT_OK
