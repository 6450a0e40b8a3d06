"""Start a command: read its arguments first, import the program only then (``--help`` and bad input answer at once)."""

import argparse
import importlib
import os
from collections.abc import Callable, Sequence

__all__ = ["run_command"]


def run_command(
    build_parser: Callable[[], argparse.ArgumentParser],
    runner: str,
    argv: Sequence[str] | None = None,
    *,
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] | None = None,
) -> int:
    """Parse `argv` with the command's light parser, then import `runner` and return its exit code.

    Args:
        build_parser: Builds the command's parser from modules that import nothing heavy.
        runner: ``"module:function"`` taking the parsed arguments and returning the exit code.
        argv: The arguments (default: ``sys.argv[1:]``).
        check: Refuses combinations of arguments the parser cannot express (``parser.error``), before the import.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if check is not None:
        check(parser, args)
    # LiteLLM fetches its price map over the network at import unless told to use its bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    module, _, function = runner.partition(":")
    return getattr(importlib.import_module(module), function)(args)
