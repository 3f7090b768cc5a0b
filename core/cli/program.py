"""The ``deltacore`` entry point: parse, run the handler, turn errors into exit statuses."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from deltacore.cli.parser import build_parser
from deltacore.cli.usage import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PROG, UsageError
from deltacore.embedding import MiniLMEmbedder
from deltacore.errors import (
    ConfigurationError,
    DeltaCoreError,
    EmbedderMismatchError,
    InvalidEventError,
    InvalidQueryError,
    MissingExtraError,
    NotFoundError,
)

_CALLER_ERRORS = (ConfigurationError, InvalidQueryError, InvalidEventError, MissingExtraError, NotFoundError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``deltacore`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or argparse already printed a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except ConfigurationError as exc:
        return _fail(_explain_configuration_error(exc), EXIT_USAGE)
    except _CALLER_ERRORS as exc:
        return _fail(str(exc), EXIT_USAGE)
    except DeltaCoreError as exc:  # BackendError, StoreLockedError, MemoryException…
        return _fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `deltacore query … | head`: stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _explain_configuration_error(exc: ConfigurationError) -> str:
    """The message, with command-line advice instead of Python advice for a mismatched embedder."""
    if not isinstance(exc, EmbedderMismatchError):
        return str(exc)
    name = exc.stored_name
    flag = "fake" if name.startswith("deltacore-fake") else "minilm" if name == MiniLMEmbedder().name() else None
    advice = f"pass --embedder {flag}" if flag else f"open it with the embedder it was built with ({name})"
    return (
        f"this store was built with '{name}' ({exc.stored_dimension} dimensions) but was opened with "
        f"'{exc.opened_name}' ({exc.opened_dimension}). A store keeps one embedder: {advice}, or switch the "
        f"store to another one with `{PROG} --embedder NAME reindex --reembed`"
    )
