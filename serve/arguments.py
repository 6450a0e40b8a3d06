"""The command line of ``python -m serve``, kept apart from the workbench so that ``--help`` answers at once.

It imports nothing heavy (no DSPy, pandas, LiteLLM or FastAPI): ``python -m serve`` parses its arguments with it
and only then imports ``serve.cli``.
"""

import argparse

from cli import add_verbosity_arguments, positive_float, positive_int
from engines.options import add_engine_arguments, add_query_timeout_argument
from lms.options import add_model_argument
from modules.options import add_candidates_argument
from serve.settings import MIN_TOKEN_CHARS, TOKEN_ENV, ServeSettings

__all__ = ["build_parser"]

DESCRIPTION = """\
Serve the astronomer's workbench: a web page, an HTTP API and, with --mcp, an MCP server over stdio.

The page asks questions with the compiled program and shows the stages as they run, the SQL (editable, rerun
through the same guard and read-only role), the rows with CSV, VOTable and Parquet downloads, a sky plot and light
curves. The API (POST /api/ask, POST /api/run-sql, GET /api/health) is described at /openapi.json.
"""

EPILOG = f"""\
examples:
  python -m serve                                   # http://127.0.0.1:8000, embedded database and local model
  python -m serve --model openai/gpt-4.1-mini --engine tap --port 8080
  python -m serve --catalog multisurvey             # Rubin/LSST and ZTF (schema alerce_tap)
  (umask 077; openssl rand -hex 16 > token) && python -m serve --host 0.0.0.0 --token-file token
                                                    # then open http://HOST:8000/?token=... once
  python -m serve --forwarded-allow-ips 127.0.0.1   # behind a reverse proxy on this machine (X-Forwarded-*)
  python -m serve --mcp                             # MCP server on stdin/stdout (tools ask, run_sql, describe_schema)

the token is never taken on the command line, where other users of the machine see it (ps): --token-file or
${TOKEN_ENV}, at least {MIN_TOKEN_CHARS} characters.

environment: {TOKEN_ENV} (the token when --token-file is not given), ALERCE_DSN, ALERCE_TAP_URL, provider API keys
exit codes: 0 stopped, 1 the model or database is unusable (one line on stderr), 2 bad command line (e.g. a
non-loopback --host without a token, or a token that is too short), 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m serve``."""
    parser = argparse.ArgumentParser(
        prog="python -m serve",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # `--token SECRET` would pass as --token-file and name the secret on the command line
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=positive_int, default=8000, help="TCP port (default: %(default)s)")
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"file holding the access token every request must carry (default: ${TOKEN_ENV}; none)",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="reverse proxies (comma-separated addresses or networks, * for any) whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (default: none; every client is its peer address)",
    )
    parser.add_argument(
        "--max-connections",
        type=positive_int,
        default=ServeSettings.max_connections,
        help="open HTTP connections in all (default: %(default)s, and below the open-file limit)",
    )
    parser.add_argument(
        "--max-connections-per-client",
        type=positive_int,
        default=ServeSettings.max_connections_per_client,
        help="open HTTP connections of one peer address (default: %(default)s; a trusted proxy counts in all only)",
    )
    parser.add_argument(
        "--header-timeout",
        type=positive_float,
        metavar="SECONDS",
        default=ServeSettings.header_timeout_s,
        help="seconds a connection may take to send a request's headers (default: %(default)s)",
    )
    parser.add_argument("--mcp", action="store_true", help="serve MCP over stdio instead of HTTP")
    add_model_argument(parser)
    parser.add_argument("--program", metavar="PATH", help="artifact folder or program.json (default: the model's)")
    add_query_timeout_argument(parser)
    add_candidates_argument(parser)
    add_engine_arguments(parser)
    add_verbosity_arguments(parser)
    return parser
