"""The shared ``--dataset`` option: a benchmark CSV or the folder of its splits."""

import argparse

__all__ = ["ENV_VAR", "SPLITS", "add_dataset_argument"]

ENV_VAR = "ALERCE_T2S_DATA"
"""Environment variable naming the benchmark CSV or the folder of its splits."""
SPLITS = ("dev", "test")


def add_dataset_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add the shared ``--dataset`` option (a benchmark CSV or the folder of its splits)."""
    parser.add_argument(
        "--dataset",
        help=f"benchmark CSV or folder (default: ${ENV_VAR}, else the fetch cache; for --catalog multisurvey, "
        "which no benchmark covers, the project's example set data/examples/multisurvey_examples.csv)",
    )
