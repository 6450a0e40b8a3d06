"""The command line of ``python -m db``, kept apart from the server code so that ``--help`` answers at once."""

import argparse
from pathlib import Path

from catalog.options import add_catalog_argument
from cli.verbosity import add_verbosity_arguments
from db.tap.arguments import add_tap_commands
from defaults.ports import DEFAULT_PORT
from replica.multisurvey.scales import SCALES as MULTISURVEY_SCALES
from replica.ztf.scales import SCALES as ZTF_SCALES

__all__ = ["build_parser"]

DESCRIPTION = """\
Start, inspect and stop the embedded PostgreSQL server holding the synthetic ALeRCE databases.

Each catalog has its own database: ztf (the legacy ZTF tables, schema alerce) and multisurvey (Rubin/LSST and
ZTF, schema alerce_tap); `up` builds the one --catalog names.
"""

EXAMPLES = """\
examples:
  python -m db up                      start the server, build the default database, print its reader DSN
  python -m db up --catalog multisurvey   the Rubin/LSST + ZTF database (schema alerce_tap)
  python -m db up --scale tiny --seed 0 --port 54330
  python -m db url --scale tiny        print the reader DSN of a built database
  python -m db status
  python -m db down
  python -m db tap up                  serve both catalogs through a local GAVO DaCHS (TAP/ADQL)
  python -m db adql query.sql          print the ADQL of a PostgreSQL query for ALeRCE's TAP service

Data lives in $ALERCE_T2S_DATA_DIR, else the user cache folder alerce-t2s/pg (/var/lib/alerce-t2s/pg as root).
Other commands take the server's DSN from --dsn or $ALERCE_DSN, else start this server themselves."""

EXIT_CODES = """
exit codes: 0 done, 1 expected failure (one `error: ...` line on stderr), 2 bad command line, 130 interrupted.
"""

SCALE_NAMES = tuple(dict.fromkeys([*ZTF_SCALES, *MULTISURVEY_SCALES]))
SCALE_HELP = "data scale; multisurvey has tiny and default (default: %(default)s)"
DATA_DIR_HELP = (
    "data folder of the server (default: $ALERCE_T2S_DATA_DIR, else the user cache folder alerce-t2s/pg; "
    "/var/lib/alerce-t2s/pg as root)"
)

UP_EXAMPLES = """\
examples:
  python -m db up
  python -m db up --scale tiny --seed 0 --data-dir /tmp/alerce-pg --port 54330
  python -m db up --ground dev.csv my_queries.sql     data answering these gold queries, with near misses
  python -m db up --catalog multisurvey --scale tiny  the multi-survey database (scales tiny and default)

Prints the reader DSN (read-only role alerce_reader) on stdout; progress goes to stderr.
A second `up` reuses the running server and the built database.
"""

STATUS_EXAMPLES = """\
examples:
  python -m db status
  python -m db status --data-dir /tmp/alerce-pg
"""

DOWN_EXAMPLES = """\
examples:
  python -m db down
  python -m db down --data-dir /tmp/alerce-pg
"""

URL_EXAMPLES = """\
examples:
  python -m db url
  psql "$(python -m db url --scale tiny)"
  psql "$(python -m db url --catalog multisurvey)"

Exits 1 if the server is not running or the database is not built (run `python -m db up` first).
"""


def build_parser() -> argparse.ArgumentParser:
    """Build the `python -m db` argument parser with its subcommands."""
    parser = argparse.ArgumentParser(
        prog="python -m db",
        description=DESCRIPTION,
        epilog=EXAMPLES + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_verbosity_arguments(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    specs = (
        ("up", "Start the server and build the catalog's database if missing; print the reader DSN.", UP_EXAMPLES),
        ("status", "Report whether the server runs, its port, data folder and built databases.", STATUS_EXAMPLES),
        ("down", "Stop the server.", DOWN_EXAMPLES),
        ("url", "Print the reader DSN of a built database of the running server.", URL_EXAMPLES),
    )
    for name, summary, epilog in specs:
        sub = commands.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=epilog + EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
        if name in ("up", "url"):
            add_catalog_argument(sub, what="whose database")
            sub.add_argument("--scale", choices=SCALE_NAMES, default="default", help=SCALE_HELP)
        if name == "up":
            sub.add_argument(
                "--seed", type=int, default=None, help="generator seed (default: keep the built one, else 0)"
            )
            sub.add_argument(
                "--ground",
                type=Path,
                nargs="+",
                metavar="FILE",
                default=None,
                help="ground the data on the gold queries of these files (CSV with a gold_query or sql column, or "
                "SQL text); the database is rebuilt when the grounded set changes (default: keep its grounding)",
            )
            sub.add_argument(
                "--port",
                type=int,
                default=None,
                help=f"TCP port on 127.0.0.1 (default: $ALERCE_T2S_PORT, else {DEFAULT_PORT})",
            )
    add_tap_commands(commands, EXIT_CODES)
    return parser
