"""Run ``python -m serve`` from its parsed arguments: the web server and its worker, or the MCP server over stdio.

The parser and the command's help live in ``serve/arguments.py``, which imports nothing heavy.
"""

from __future__ import annotations

import argparse
import sys

from cli import logging_to_stderr
from engines.errors import EngineError
from lms import LMConfigError
from modules.errors import PipelineError
from serve.arguments import SUBCOMMANDS, build_parser
from serve.options import answer_settings, web_settings
from serve.settings import ServeSettings

__all__ = ["main", "run_parsed"]


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m serve`` (or its ``web`` and ``worker`` commands); return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in SUBCOMMANDS:
        from serve.processes import main as run_subcommand

        return run_subcommand(argv[0], argv[1:])
    return run_parsed(build_parser().parse_args(argv))


def run_parsed(args: argparse.Namespace) -> int:
    """Serve with parsed ``python -m serve`` arguments; return the exit code."""
    settings = web_settings(build_parser(), args)
    with logging_to_stderr(args):
        if args.mcp:
            return _serve_mcp(args, settings)
        from serve.processes import serve_web

        return serve_web(args, settings, with_worker=True)


def _serve_mcp(args: argparse.Namespace, settings: ServeSettings) -> int:
    from serve.mcp_server import build_mcp_server
    from serve.workbench import open_workbench

    try:
        program, engine = answer_settings(args)
        bench = open_workbench(args.model, settings, program=program, engine=engine)
    except (LMConfigError, PipelineError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    try:
        build_mcp_server(bench).run("stdio")
    except KeyboardInterrupt:
        return 130
    finally:
        bench.close()
    return 0
