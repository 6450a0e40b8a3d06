"""Start, inspect and stop the embedded PostgreSQL server holding the synthetic ALeRCE databases.

Each catalog has its own database: ztf (the legacy ZTF tables, schema alerce) and multisurvey (Rubin/LSST and
ZTF, schema alerce_tap); `up` builds the one --catalog names.
"""

import argparse
import logging
import sys
from pathlib import Path

from cli.verbosity import logging_to_stderr
from db.arguments import build_parser
from db.server import ServerSettings, down, running_dsn, status, up
from db.tap.cli import COMMANDS as TAP_COMMANDS
from db.tap.cli import run_tap_command
from engines.errors import EngineError


def main(argv: list[str] | None = None) -> int:
    """Run `python -m db`.

    Args:
        argv: Command-line arguments without the program name (default: sys.argv[1:]).

    Returns:
        The exit code: 0 done, 1 expected failure, 2 bad command line, 130 interrupted.
    """
    return run_parsed(build_parser().parse_args(argv))


def run_parsed(args: argparse.Namespace) -> int:
    """Run `python -m db` with parsed arguments; return the exit code."""
    with logging_to_stderr(args):
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    try:
        if args.command in TAP_COMMANDS:
            return run_tap_command(args)
        if args.command == "up":
            given = {"data_dir": args.data_dir, "port": args.port, "ground": tuple(args.ground or ()) or None}
            overrides = {key: value for key, value in given.items() if value is not None}
            info = up(ServerSettings(**overrides, scale=args.scale, seed=args.seed, catalog=args.catalog))
            print(info.reader_dsn)
        elif args.command == "url":
            print(running_dsn(scale=args.scale, data_dir=args.data_dir, catalog=args.catalog))
        elif args.command == "down":
            stopped = down(args.data_dir)
            logging.getLogger(__name__).info("server stopped" if stopped else "server was not running")
        else:
            print_status(args.data_dir)
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0


def print_status(data_dir: Path | None) -> None:
    """Print the server status as `key: value` lines on stdout."""
    state = status(data_dir)
    print(f"running: {'yes' if state.running else 'no'}")
    print(f"data dir: {state.data_dir}")
    if state.running:
        print(f"port: {state.port}")
        print(f"pid: {state.pid}")
    for build in state.databases:
        rows = sum(build.row_counts.values())
        grounding = f"grounded on {build.grounded_queries} queries" if build.grounding else "not grounded"
        print(
            f"database: {build.database} (catalog {build.catalog}, scale {build.scale}, seed {build.seed}, "
            f"q3c {build.q3c}, {rows} rows, {grounding}, built {build.built_at:%Y-%m-%d %H:%M:%S %Z})"
        )
