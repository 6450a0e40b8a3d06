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
    up = actions.add_parser("up", help="start DaCHS, publishing the database (copied once); print the TAP URL")
    up.add_argument(
        "--scale", choices=tuple(SCALES), default="default", help="embedded database (default: %(default)s)"
    )
    up.add_argument("--data-dir", type=Path, default=None, help="data folder of the embedded server")
    actions.add_parser("down", help="stop DaCHS")
    actions.add_parser("status", help="report whether DaCHS answers, its URL and the database it publishes")
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
        state = tap_status()
        print(f"running: {'yes' if state.running else 'no'}")
        print(f"url: {state.url}")
        print(f"database: {state.source or '(none published)'}")
    return 0


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
