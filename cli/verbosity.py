"""The shared `-v`/`-q` options of every command and the stderr logging they switch."""

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator

__all__ = ["add_verbosity_arguments", "logging_to_stderr"]

# Lowest level shown for libraries that log every request or fallback. psycopg's pool and sqlglot warn about what
# the command itself reports as one error line (a lost connection, a statement the guard refuses).
NOISY_LOGGERS = {
    "LiteLLM": logging.WARNING,
    "litellm": logging.WARNING,
    "httpx": logging.WARNING,
    "httpcore": logging.WARNING,
    "matplotlib": logging.WARNING,
    "sqlglot": logging.ERROR,
    "psycopg.pool": logging.ERROR,
}


def add_verbosity_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the mutually exclusive `-v/--verbose` and `-q/--quiet` options."""
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    verbosity.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")


@contextlib.contextmanager
def logging_to_stderr(args: argparse.Namespace) -> Iterator[None]:
    """Log to stderr at the level `-v`/`-q` chose while the command runs, then restore the root logger.

    Restoring matters because tests run each command's `main` in-process.
    """
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(level)
    previous_level = root.level
    noisy_levels = {name: logging.getLogger(name).level for name in NOISY_LOGGERS}
    root.addHandler(handler)
    root.setLevel(level)
    for name, floor in NOISY_LOGGERS.items():
        logging.getLogger(name).setLevel(max(level, floor))
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
        for name, noisy_level in noisy_levels.items():
            logging.getLogger(name).setLevel(noisy_level)
