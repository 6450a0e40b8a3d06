"""The shared `--catalog`, `--engine`, `--tap-url`, `--dsn` and `--timeout` options, and their engine settings."""

import argparse

from catalog.options import add_catalog_argument
from cli.argument_types import positive_float
from defaults.time_limits import ASK_QUERY_S
from engines.settings import DSN_ENV, ENGINE_NAMES, EngineSettings
from engines.tap.settings import DEFAULT_TAP_URL, TAP_URL_ENV

__all__ = ["add_dsn_argument", "add_engine_arguments", "add_query_timeout_argument", "engine_settings"]


def add_dsn_argument(parser: argparse.ArgumentParser) -> None:
    """Add the shared ``--dsn`` option to a command-line parser."""
    parser.add_argument(
        "--dsn",
        default=None,
        help=f"PostgreSQL URL of the ALeRCE database (default: ${DSN_ENV} if set, else the embedded server, "
        "started and filled with synthetic data on first use; see `python -m db up`)",
    )


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--catalog``, ``--engine``, ``--tap-url`` and ``--dsn``."""
    add_catalog_argument(parser, what="the catalog whose data the SQL runs on")
    parser.add_argument(
        "--engine",
        choices=ENGINE_NAMES,
        default="postgres",
        help="where the SQL runs: a PostgreSQL database, or a TAP service as ADQL (default: %(default)s)",
    )
    parser.add_argument(
        "--tap-url",
        default=None,
        help=f"TAP service URL for --engine tap (default: ${TAP_URL_ENV} if set, else {DEFAULT_TAP_URL}; "
        "`python -m db tap url` for the local DaCHS)",
    )
    add_dsn_argument(parser)


def engine_settings(args: argparse.Namespace, **overrides: object) -> EngineSettings:
    """Build the engine settings of parsed `--catalog/--engine/--tap-url/--dsn` options, with keyword `overrides`."""
    return EngineSettings(engine=args.engine, catalog=args.catalog, dsn=args.dsn, tap_url=args.tap_url, **overrides)


def add_query_timeout_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add ``--timeout`` (the time limit of each generated query) with the interactive default, ``ASK_QUERY_S``."""
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=ASK_QUERY_S,
        metavar="S",
        help="time limit of each query in seconds (default: %(default)s)",
    )
