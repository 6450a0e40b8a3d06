"""The command line of ``python -m serve``, kept apart from the workbench so that ``--help`` answers at once.

It imports nothing heavy (no DSPy, pandas, LiteLLM or FastAPI): ``python -m serve`` parses its arguments with it
and only then imports ``serve.cli``; ``web`` and ``worker`` have their own parsers (``serve.processes``).
"""

import argparse

from serve.options import add_answer_arguments, add_web_arguments
from serve.settings import MIN_TOKEN_CHARS, TOKEN_ENV
from serve.state.keys import KEY_ENV, KEY_FILE_ENV
from serve.state.options import STORE_DSN_ENV, add_state_arguments

__all__ = ["DESCRIPTION", "SUBCOMMANDS", "build_parser"]

SUBCOMMANDS = ("web", "worker")

DESCRIPTION = """\
Serve the astronomer's workbench: a web page, an HTTP API and, with --mcp, an MCP server over stdio.

The page asks questions with the compiled program and shows the stages as they run, the SQL (editable, rerun
through the same guard and read-only role), the rows with CSV, VOTable and Parquet downloads, a sky plot and light
curves. The API (POST /api/ask, POST /api/run-sql, GET /api/health) is described at /openapi.json.

Sessions, conversations, answers and questions live in PostgreSQL (the embedded server's database alerce_t2s_state,
or --store-dsn): `python -m serve` runs the web server and one worker together; `python -m serve worker` adds
workers (here or on other machines) and `python -m serve web --workers N` runs N web processes, all sharing them.
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
  python -m serve web --workers 2 --store-dsn postgresql://wb@db/state   # two web processes, no worker
  python -m serve worker --store-dsn postgresql://wb@db/state            # one more worker (python -m serve worker -h)

the token is never taken on the command line, where other users of the machine see it (ps): --token-file or
${TOKEN_ENV}, at least {MIN_TOKEN_CHARS} characters.

environment: {TOKEN_ENV} (the token when --token-file is not given), ALERCE_SERVE_METRICS_TOKEN
(--metrics-token-file), {STORE_DSN_ENV} (--store-dsn),
{KEY_FILE_ENV} (--session-key-file), {KEY_ENV} (the session key itself, hexadecimal),
ALERCE_DSN, ALERCE_TAP_URL, provider API keys
exit codes: 0 stopped, 1 the model, database, state database or session key is unusable (one line on stderr),
2 bad command line (e.g. a non-loopback --host without a token, or a token that is too short), 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``python -m serve`` (the web server and one worker together)."""
    parser = argparse.ArgumentParser(
        prog="python -m serve",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # `--token SECRET` would pass as --token-file and name the secret on the command line
    )
    add_web_arguments(parser)
    parser.add_argument("--mcp", action="store_true", help="serve MCP over stdio instead of HTTP (state in memory)")
    add_answer_arguments(parser)
    add_state_arguments(parser, session_key=True)
    return parser
