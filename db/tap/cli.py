"""The `python -m db tap ...` and `python -m db adql` subcommands: the local TAP server and SQL -> ADQL."""

import argparse
import logging
import sys
from pathlib import Path

from db.server import ServerSettings
from db.tap.server import tap_down, tap_status, tap_up, tap_url
from engines.errors import ExecutionError
from engines.guard import check_sql
from replica.synthetic.scales import SCALES

__all__ = ["COMMANDS", "add_tap_commands", "run_tap_command"]

COMMANDS = ("tap", "adql")

TAP_EXAMPLES = """\
examples:
  python -m db tap up                  publish the default embedded database through a local DaCHS, print its URL
  python -m db tap up --scale tiny
  python -m ask "How many objects have more than 50 detections?" --engine tap --tap-url "$(python -m db tap url)"
  python -m db tap status
  python -m db tap down

DaCHS serves a copy of the database. When the database is rebuilt (`db up --ground`, which evaluate and compile
run), the next `tap up` copies it again; until then commands using the local service stop with one line saying
the copy is stale, and `tap status` says which build is served and whether it is current.

Needs GAVO DaCHS from Debian (gavodachs2-server, installed by scripts/install_system_packages.sh as root);
it serves on 127.0.0.1 only. Without it the TAP engine still works against any --tap-url.
"""

ADQL_EXAMPLES = """\
examples:
  python -m db adql old_notebook_query.sql
  echo "SELECT oid FROM object WHERE ndet <> 1 LIMIT 5" | python -m db adql -

Prints the ADQL for ALeRCE's TAP service (schema ztf) on stdout; a WITH ... AS (VALUES ...) table is uploaded
as TAP_UPLOAD.<name>, listed on stderr. A construct ADQL lacks is one `error: ...` line and exit 1.
"""


def add_tap_commands(commands: argparse._SubParsersAction, epilog_tail: str) -> None:
    """Add the `tap` (with up/down/status/url) and `adql` subcommands."""
    formatter = argparse.RawDescriptionHelpFormatter
    summary = "Run a local GAVO DaCHS TAP service publishing the embedded database as schema ztf."
    tap = commands.add_parser(
        "tap", help=summary, description=summary, epilog=TAP_EXAMPLES + epilog_tail, formatter_class=formatter
    )
    actions = tap.add_subparsers(dest="tap_command", required=True, metavar="ACTION")
    up = actions.add_parser("up", help="start DaCHS, publishing the database as it is now; print the TAP URL")
    up.add_argument(
        "--scale", choices=tuple(SCALES), default="default", help="embedded database (default: %(default)s)"
    )
    up.add_argument("--data-dir", type=Path, default=None, help="data folder of the embedded server")
    actions.add_parser("down", help="stop DaCHS")
    actions.add_parser("status", help="report whether DaCHS answers, its URL, the build it serves and if it is current")
    actions.add_parser("url", help="print the TAP URL of the local DaCHS")
    summary = "Print the ADQL of a PostgreSQL query for ALeRCE's TAP service."
    adql = commands.add_parser(
        "adql", help=summary, description=summary, epilog=ADQL_EXAMPLES + epilog_tail, formatter_class=formatter
    )
    adql.add_argument("file", nargs="?", default="-", help="file holding the query, or - for stdin (default: -)")


def run_tap_command(args: argparse.Namespace) -> int:
    """Run `tap ...` or `adql`; return the exit code (expected failures raise `engines.errors.EngineError`)."""
    if args.command == "adql":
        return _print_adql(args.file)
    if args.tap_command == "up":
        overrides = {"data_dir": args.data_dir} if args.data_dir else {}
        print(tap_up(ServerSettings(scale=args.scale, **overrides)))
    elif args.tap_command == "down":
        logging.getLogger(__name__).info("DaCHS stopped" if tap_down() else "DaCHS was not running")
    elif args.tap_command == "url":
        print(tap_url())
    else:
        _print_status()
    return 0


def _print_status() -> None:
    """Print whether DaCHS answers, the copy it serves (database, build) and whether that copy is current."""
    state = tap_status()
    copy = state.freshness.copy
    print(f"running: {'yes' if state.running else 'no'}")
    print(f"url: {state.url}")
    if copy is None:
        print("database: (none published)")
        return
    print(f"database: {copy.database} (embedded server in {copy.data_dir})")
    print(f"build: {copy.describe()}")
    if state.freshness.current:
        print("current: yes")
    else:
        print(f"current: no, {state.freshness.reason}; run `{copy.refresh_command()}` to republish it")


def _print_adql(file: str) -> int:
    from engines.adql import translate  # the entry point reaches into engines; db's library modules do not

    sql = sys.stdin.read() if file == "-" else Path(file).read_text()
    try:
        translation = translate(check_sql(sql))
    except ExecutionError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return 1
    print(translation.adql)
    for name, upload in translation.uploads.items():
        columns = ", ".join(upload.columns)
        print(f"upload: TAP_UPLOAD.{name} ({len(upload.rows)} rows: {columns})", file=sys.stderr)
    return 0
