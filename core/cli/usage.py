"""What every command shares: the program's name, its exit statuses, and the usage error."""

from __future__ import annotations

PROG = "deltacore"

EXIT_OK = 0
EXIT_FAILED = 1
"""Some input was rejected, or a backend failed."""
EXIT_USAGE = 2
"""The caller has to change something: arguments, configuration, input file, installed extras."""


class UsageError(Exception):
    """A mistake in the command line or its input files (exit status 2)."""
