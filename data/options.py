"""The shared ``--dataset`` option: a benchmark CSV or the folder of its splits."""

import argparse

from data.loader import ENV_VAR

__all__ = ["add_dataset_argument"]


def add_dataset_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--dataset`` option (a benchmark CSV or the folder of its splits)."""
    parser.add_argument(
        "--dataset",
        help=f"benchmark CSV or folder (default: ${ENV_VAR}, else the fetch cache; for --catalog multisurvey, "
        "which no benchmark covers, the project's example set data/examples/multisurvey_examples.csv)",
    )
