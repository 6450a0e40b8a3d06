"""The shared ``--model`` option: a model string, or one of the embedded local models."""

import argparse

from lms.local_models import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LOCAL_PREFIX

__all__ = ["add_model_argument"]


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
