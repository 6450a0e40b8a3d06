"""Serve the astronomer's workbench: a web page, an HTTP API and, with --mcp, an MCP server over stdio.

The page asks questions with the compiled program and shows the stages as they run, the SQL (editable, rerun
through the same guard and read-only role), the rows with CSV, VOTable and Parquet downloads, a sky plot and light
curves. The API (POST /api/ask, POST /api/run-sql, GET /api/health) is described at /openapi.json.

Sessions, conversations, answers and questions live in PostgreSQL (the embedded server's database alerce_t2s_state,
or --store-dsn): `python -m serve` runs the web server and one worker together; `python -m serve worker` adds
workers (here or on other machines) and `python -m serve web --workers N` runs N web processes, all sharing them.
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
