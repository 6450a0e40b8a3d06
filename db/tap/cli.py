"""The `python -m db tap ...` and `python -m db adql` subcommands: the local TAP server and SQL -> ADQL."""

import argparse
import logging
import sys
from pathlib import Path

from catalog import CATALOG_NAMES
from db.server import ServerSettings
from db.tap.arguments import COMMANDS, add_tap_commands
from db.tap.server import tap_down, tap_status, tap_up, tap_url
from engines.errors import ExecutionError
from engines.guard import check_sql

__all__ = ["COMMANDS", "add_tap_commands", "run_tap_command"]


def run_tap_command(args: argparse.Namespace) -> int:
    """Run `tap ...` or `adql`; return the exit code (expected failures raise `engines.errors.EngineError`)."""
    if args.command == "adql":
        return _print_adql(args.file, args.catalog)
    if args.tap_command == "up":
        overrides = {"data_dir": args.data_dir} if args.data_dir else {}
        catalogs = tuple(dict.fromkeys(args.catalog or CATALOG_NAMES))
        print(tap_up(ServerSettings(scale=args.scale, **overrides), catalogs))
    elif args.tap_command == "down":
        logging.getLogger(__name__).info("DaCHS stopped" if tap_down() else "DaCHS was not running")
    elif args.tap_command == "url":
        print(tap_url())
    else:
        _print_status()
    return 0


def _print_status() -> None:
    """Print whether DaCHS answers and, per catalog, the copy it serves (database, build) and if it is current."""
    state = tap_status()
    print(f"running: {'yes' if state.running else 'no'}")
    print(f"url: {state.url}")
    for name, freshness in state.freshness.items():
        copy = freshness.copy
        if copy is None:
            print(f"{name} database: (none published)")
            continue
        print(f"{name} database: {copy.database} (embedded server in {copy.data_dir})")
        print(f"{name} build: {copy.describe()}")
        if freshness.current:
            print(f"{name} current: yes")
        else:
            print(f"{name} current: no, {freshness.reason}; run `{copy.refresh_command()}` to republish it")


def _print_adql(file: str, catalog: str) -> int:
    from engines.adql.translation import (  # the entry point reaches into engines; db's modules do not
        default_target,
        translate,
    )

    try:
        sql = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"error: cannot read the SQL from {file!r}: {getattr(err, 'strerror', None) or err}.", file=sys.stderr)
        return 1
    try:
        translation = translate(check_sql(sql), default_target(catalog))
    except ExecutionError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return 1
    print(translation.adql)
    for name, upload in translation.uploads.items():
        columns = ", ".join(upload.columns)
        print(f"upload: TAP_UPLOAD.{name} ({len(upload.rows)} rows: {columns})", file=sys.stderr)
    return 0
