"""The ``tap`` and ``adql`` subcommands of ``python -m db`` (light: parsed before DaCHS, psycopg or sqlglot load)."""

import argparse
from pathlib import Path

from catalog.model import CATALOG_NAMES
from catalog.options import catalog_name, default_catalog
from replica.ztf.scales import SCALES as ZTF_SCALES

__all__ = ["COMMANDS", "add_tap_commands"]

COMMANDS = ("tap", "adql")

TAP_EXAMPLES = """\
examples:
  python -m db tap up                  publish both catalogs' default databases through a local DaCHS, print its URL
  python -m db tap up --scale tiny
  python -m db tap up --catalog multisurvey   only the Rubin/LSST + ZTF tables (schema alerce_tap)
  python -m ask "How many objects have more than 50 detections?" --engine tap --tap-url "$(python -m db tap url)"
  python -m ask "How many LSST objects have more than 50 detections?" --catalog multisurvey --engine tap \
      --tap-url "$(python -m db tap url)"
  python -m db tap status
  python -m db tap down

DaCHS serves a copy of each catalog's database. When a database is rebuilt (`db up --ground`, which evaluate and
compile run), the next `tap up` copies it again; until then commands using that catalog on the local service stop
with one line saying the copy is stale, and `tap status` says per catalog which build is served and if it is current.

Needs GAVO DaCHS from Debian (gavodachs2-server, installed by scripts/install_system_packages.sh as root);
it serves on 127.0.0.1 only. Without it the TAP engine still works against any --tap-url.
"""

ADQL_EXAMPLES = """\
examples:
  python -m db adql old_notebook_query.sql
  echo "SELECT oid FROM object WHERE ndet <> 1 LIMIT 5" | python -m db adql -
  echo "SELECT oid, sid FROM object WHERE n_det > 50 LIMIT 5" | python -m db adql --catalog multisurvey -

Prints the ADQL for ALeRCE's TAP service (schema ztf, or alerce_tap with --catalog multisurvey) on stdout; a
WITH ... AS (VALUES ...) table is uploaded as TAP_UPLOAD.<name>, listed on stderr. A construct ADQL lacks (or a
table the catalog does not publish) is one `error: ...` line and exit 1.
"""


def add_tap_commands(commands: argparse._SubParsersAction, epilog_tail: str) -> None:
    """Add the `tap` (with up/down/status/url) and `adql` subcommands."""
    formatter = argparse.RawDescriptionHelpFormatter
    summary = "Run a local GAVO DaCHS TAP service publishing the embedded databases (schemas ztf and alerce_tap)."
    tap = commands.add_parser(
        "tap", help=summary, description=summary, epilog=TAP_EXAMPLES + epilog_tail, formatter_class=formatter
    )
    actions = tap.add_subparsers(dest="tap_command", required=True, metavar="ACTION")
    up = actions.add_parser("up", help="start DaCHS, publishing the databases as they are now; print the TAP URL")
    up.add_argument(
        "--scale", choices=tuple(ZTF_SCALES), default="default", help="embedded database (default: %(default)s)"
    )
    up.add_argument("--data-dir", type=Path, default=None, help="data folder of the embedded server")
    up.add_argument(
        "--catalog",
        type=catalog_name,
        action="append",
        metavar="NAME",
        help=f"publish only this catalog's database, repeatable ({', '.join(CATALOG_NAMES)}; default: all)",
    )
    actions.add_parser("down", help="stop DaCHS")
    actions.add_parser("status", help="report whether DaCHS answers, its URL, the builds it serves and if current")
    actions.add_parser("url", help="print the TAP URL of the local DaCHS")
    summary = "Print the ADQL of a PostgreSQL query for ALeRCE's TAP service."
    adql = commands.add_parser(
        "adql", help=summary, description=summary, epilog=ADQL_EXAMPLES + epilog_tail, formatter_class=formatter
    )
    adql.add_argument("file", nargs="?", default="-", help="file holding the query, or - for stdin (default: -)")
    adql.add_argument(
        "--catalog",
        type=catalog_name,
        default=default_catalog(),
        metavar="NAME",
        help="the catalog whose tables the query names (default: $ALERCE_CATALOG if set, else ztf)",
    )
