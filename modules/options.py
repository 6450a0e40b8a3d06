"""The shared ``--candidates`` and ``--as-of`` options (``PipelineSettings.candidates`` and ``.as_of``), and the names
the ``--adapter`` and ``--schema-detail`` options take (here, so that a parser imports no DSPy)."""

import argparse

from cli.argument_types import iso_date, positive_int

__all__ = ["ADAPTERS", "SCHEMA_DETAILS", "add_as_of_argument", "add_candidates_argument"]

ADAPTERS = ("compact", "chat", "json")
"""Adapter names: ``compact`` = ``PrefixCacheAdapter()`` (ChatAdapter's markers in fewer tokens, in the order a
provider's prompt cache can serve, with Anthropic's breakpoints), ``chat`` = ``dspy.ChatAdapter()`` (JSON fallback on
parse errors), ``json`` = ``JSONAdapter()``."""
SCHEMA_DETAILS = ("full", "brief", "names")
"""How much of the schema the prompt shows when schema linking is off (``PipelineSettings.schema_detail``)."""


def add_candidates_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--candidates`` option (SQL candidates per question, from which selection picks one)."""
    parser.add_argument(
        "--candidates",
        type=positive_int,
        metavar="K",
        help="SQL candidates per question, written by diverse paths and run concurrently; selection picks one "
        "(default: the artifact's, else 4 for a provider's model and 1 for an embedded local model)",
    )


def add_as_of_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add ``--as-of`` (the date stage's reference date; None when not given, which means today in UTC)."""
    parser.add_argument(
        "--as-of",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help='reference date of the date stage, for "last June", "in the last 30 days" and months given without '
        "a year (default: today, UTC)",
    )
