"""Serve the astronomer's workbench: a web page, an HTTP API and, with --mcp, an MCP server over stdio.

The page asks questions with the compiled program and shows the stages as they run, the SQL (editable, rerun
through the same guard and read-only role), the rows with CSV, VOTable and Parquet downloads, a sky plot and light
curves. The API (POST /api/ask, POST /api/run-sql, GET /api/health) is described at /openapi.json.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cli import logging_to_stderr
from engines.errors import EngineError
from engines.options import engine_settings
from lms import LOCAL_PREFIX, LMConfigError
from modules.errors import PipelineError
from modules.settings import ProgramSettings
from serve.arguments import build_parser
from serve.settings import TOKEN_ENV, ServeSettings
from serve.workbench import Workbench, open_workbench

__all__ = ["build_parser", "main", "run_parsed"]


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m serve``; return the exit code."""
    return run_parsed(build_parser().parse_args(argv))


def run_parsed(args: argparse.Namespace) -> int:
    """Serve with parsed ``python -m serve`` arguments; return the exit code."""
    try:
        settings = ServeSettings(
            host=args.host,
            port=args.port,
            token=_token(args.token_file),
            one_at_a_time=args.model.startswith(LOCAL_PREFIX),
            forwarded_allow_ips=args.forwarded_allow_ips,
            max_connections=args.max_connections,
            max_connections_per_client=args.max_connections_per_client,
            header_timeout_s=args.header_timeout,
        )
    except (OSError, ValueError) as err:
        build_parser().error(str(err))
    with logging_to_stderr(args):
        try:
            program = ProgramSettings(artifact=args.program, candidates=args.candidates)
            engine = engine_settings(args, timeout_s=args.timeout)
            bench = open_workbench(args.model, settings, program=program, engine=engine)
        except (LMConfigError, PipelineError, EngineError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        try:
            _serve(bench, mcp=args.mcp)
        except KeyboardInterrupt:
            return 130
        finally:
            bench.close()
    return 0


def _token(path: str | None) -> str | None:
    """Read the token from `path`, else from the environment; None when neither has one.

    Raises:
        OSError: The file cannot be read (the message names it).
    """
    if path is None:
        return os.environ.get(TOKEN_ENV, "").strip() or None
    try:
        return Path(path).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError) as err:
        raise OSError(
            f"cannot read the token from --token-file {path}: {getattr(err, 'strerror', None) or err}"
        ) from err


def _serve(bench: Workbench, *, mcp: bool) -> None:
    if mcp:
        from serve.mcp_server import build_mcp_server

        build_mcp_server(bench).run("stdio")
        return
    import uvicorn

    from serve.app import create_app
    from serve.connections import uvicorn_config

    print(f"workbench on http://{bench.settings.host}:{bench.settings.port}/ (Ctrl-C stops it)", file=sys.stderr)
    uvicorn.Server(uvicorn_config(create_app(bench), bench.settings)).run()
