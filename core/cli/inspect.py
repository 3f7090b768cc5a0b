"""``deltacore inspect``: serve the local inspector page."""

from __future__ import annotations

import argparse


def add_inspect_command(
    commands: argparse._SubParsersAction, store_options: object
) -> None:
    """Register ``deltacore inspect`` (called from ``parser.build_parser``)."""
