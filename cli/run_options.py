"""The shared `--model`, `--dataset`, `--candidates`, `--timeout` and `--as-of` options of the commands that answer
questions."""

import argparse
import datetime as dt

from cli.argument_types import iso_date, positive_float, positive_int
from data.loader import ENV_VAR
from defaults.time_limits import ASK_QUERY_S
from lms import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LOCAL_PREFIX

__all__ = [
    "add_as_of_argument",
    "add_candidates_argument",
    "add_dataset_argument",
    "add_model_argument",
    "add_query_timeout_argument",
    "today_utc",
]


def add_model_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer, *, purpose: str = "") -> None:
    """Add the shared ``--model`` option to a command's parser.

    Args:
        parser: The parser, or a group of it.
        purpose: What the model does, for a command where ``--model`` has no default (it picks a mode, as in
            ``evaluate``); empty means the option defaults to ``DEFAULT_LOCAL_MODEL``.
    """
    local = ", ".join(f"{LOCAL_PREFIX}{spec.name} ({spec.description})" for spec in LOCAL_MODELS.values())
    examples = f"e.g. openai/gpt-4.1-mini or a local model: {local}"
    if purpose:
        parser.add_argument("--model", metavar="PROVIDER/MODEL", help=f"{purpose}, {examples} (no default)")
        return
    parser.add_argument(
        "--model",
        default=DEFAULT_LOCAL_MODEL,
        metavar="PROVIDER/MODEL",
        help=f"language model, {examples} (default: %(default)s)",
    )


def add_dataset_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--dataset`` option (a benchmark CSV or the folder of its splits)."""
    parser.add_argument("--dataset", help=f"benchmark CSV or folder (default: ${ENV_VAR}, else the fetch cache)")


def add_candidates_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--candidates`` option (SQL candidates per question, from which selection picks one)."""
    parser.add_argument(
        "--candidates",
        type=positive_int,
        metavar="K",
        help="SQL candidates per question, written by diverse paths and run concurrently; selection picks one "
        "(default: the artifact's, else 4 for a provider's model and 1 for an embedded local model)",
    )


def add_query_timeout_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add ``--timeout`` (the time limit of each generated query) with the interactive default, ``ASK_QUERY_S``."""
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=ASK_QUERY_S,
        metavar="S",
        help="time limit of each query in seconds (default: %(default)s)",
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


def today_utc() -> dt.date:
    """Return today's date in UTC (the default ``--as-of`` that evaluate and compile record)."""
    return dt.datetime.now(dt.UTC).date()
