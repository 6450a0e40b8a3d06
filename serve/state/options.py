"""The options every process of a shared workbench takes: where the state database is, where the session key is."""

from __future__ import annotations

import argparse
import os

from serve.state.keys import KEY_ENV, KEY_FILE_ENV

__all__ = ["STALLED_AFTER_S", "STORE_DSN_ENV", "add_state_arguments", "store_dsn"]

STORE_DSN_ENV = "ALERCE_SERVE_STORE_DSN"
"""Environment variable naming the state database when --store-dsn is not given."""
STALLED_AFTER_S = 30.0
"""A worker whose heartbeat is older than this is taken for dead; its questions go back to the queue."""


def add_state_arguments(parser: argparse.ArgumentParser, *, session_key: bool) -> None:
    """Add ``--store-dsn`` and, for the processes that issue page sessions, ``--session-key-file``."""
    parser.add_argument(
        "--store-dsn",
        metavar="DSN",
        help=f"PostgreSQL database of the sessions, answers and questions, shared by every web process and worker "
        f"(default: ${STORE_DSN_ENV}, else database alerce_t2s_state on the embedded server)",
    )
    if session_key:
        parser.add_argument(
            "--session-key-file",
            metavar="PATH",
            help=f"file of the key that signs page sessions, the same for every web process; made (mode 0600) when "
            f"missing (default: ${KEY_FILE_ENV}, else session.key in the per-user config folder; ${KEY_ENV} "
            "holds the key itself instead)",
        )


def store_dsn(args: argparse.Namespace) -> str | None:
    """The state database's DSN from ``--store-dsn`` or the environment; None for the embedded server's."""
    return args.store_dsn or os.environ.get(STORE_DSN_ENV, "").strip() or None
