"""Manage the ALeRCE text-to-SQL benchmark data (download the dev and test splits)."""

import argparse
import sys

from cli.verbosity import add_verbosity_arguments, logging_to_stderr
from data.errors import DataError
from data.fetch import BASE_URL, fetch_dataset
from data.loader import ENV_VAR, default_data_dir

__all__ = ["main"]

EXAMPLES = f"""examples:
  python -m data fetch
  python -m data fetch --dest ~/alerce-data && export {ENV_VAR}=~/alerce-data

files written (in the destination folder):
  txt2sql_alerce_train_v4_0.csv  the dev split (sha256 verified)
  txt2sql_alerce_test_v4_0.csv   the test split (sha256 recorded on first download)
  SHA256SUMS                     checksums of both files

exit codes: 0 done (the folder is printed on stdout), 1 download or write failed, 2 bad command line
"""


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m data``."""
    parser = argparse.ArgumentParser(
        prog="python -m data",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_verbosity_arguments(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    fetch = commands.add_parser(
        "fetch",
        help="download both splits from the paper's repository (commit 81d8d25)",
        description="Download both splits from the paper's repository (commit 81d8d25) and verify them.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fetch.add_argument("--dest", default=str(default_data_dir()), help="folder to download into (default: %(default)s)")
    fetch.add_argument("--base-url", default=BASE_URL, help="folder URL of the CSV files (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m data``; return the exit code."""
    args = build_parser().parse_args(argv)
    with logging_to_stderr(args):
        return _fetch(args)


def _fetch(args: argparse.Namespace) -> int:
    try:
        dest = fetch_dataset(args.dest, base_url=args.base_url)
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(dest)
    return 0
