"""The shared ``--candidates`` option: SQL candidates per question (``PipelineSettings.candidates``)."""

import argparse

from cli.argument_types import positive_int

__all__ = ["add_candidates_argument"]


def add_candidates_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--candidates`` option (SQL candidates per question, from which selection picks one)."""
    parser.add_argument(
        "--candidates",
        type=positive_int,
        metavar="K",
        help="SQL candidates per question, written by diverse paths and run concurrently; selection picks one "
        "(default: the artifact's, else 4 for a provider's model and 1 for an embedded local model)",
    )
