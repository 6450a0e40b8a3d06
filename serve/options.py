"""The options the web processes and workers of the workbench share, and the settings they make."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from cli import add_verbosity_arguments, positive_float, positive_int
from engines import EngineSettings
from engines.options import add_engine_arguments, add_query_timeout_argument, engine_settings
from lms import LOCAL_PREFIX
from lms.options import add_model_argument
from modules.options import add_candidates_argument
from serve.settings import TOKEN_ENV, ServeSettings

if TYPE_CHECKING:  # modules.settings imports DSPy, which --help must not wait for
    from modules.settings import ProgramSettings

METRICS_TOKEN_ENV = "ALERCE_SERVE_METRICS_TOKEN"
"""Environment variable holding the /metrics token when --metrics-token-file is not given."""

__all__ = [
    "METRICS_TOKEN_ENV",
    "add_answer_arguments",
    "add_web_arguments",
    "answer_settings",
    "read_token",
    "web_settings",
]


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """Add what the web server needs: address, token, proxies, connection limits."""
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
    parser.add_argument(
        "--hips-url",
        metavar="URL",
        default="",
        help="a HiPS survey the sky view shows under the positions, e.g. https://alasky.cds.unistra.fr/DSS/DSSColor "
        "(the browser loads it; default: none, a plain coordinate view)",
    )
    parser.add_argument(
        "--metrics-token-file",
        metavar="PATH",
        help=f"file holding the token /metrics asks for (Authorization: Bearer TOKEN; default: ${METRICS_TOKEN_ENV}); "
        "without one, /metrics is open on a loopback server without an access token and absent (404) otherwise",
    )


def add_answer_arguments(parser: argparse.ArgumentParser) -> None:
    """Add what answering needs: model, program, query timeout, candidates, engine, verbosity."""
    add_model_argument(parser)
    parser.add_argument("--program", metavar="PATH", help="artifact folder or program.json (default: the model's)")
    add_query_timeout_argument(parser)
    add_candidates_argument(parser)
    add_engine_arguments(parser)
    add_verbosity_arguments(parser)


def web_settings(parser: argparse.ArgumentParser, args: argparse.Namespace, **overrides: object) -> ServeSettings:
    """The web server's settings from its options (a bad one ends the command with one line, exit 2)."""
    try:
        return ServeSettings(
            host=args.host,
            port=args.port,
            token=read_token(args.token_file),
            metrics_token=read_token(args.metrics_token_file, env=METRICS_TOKEN_ENV, option="--metrics-token-file"),
            one_at_a_time=args.model.startswith(LOCAL_PREFIX),
            forwarded_allow_ips=args.forwarded_allow_ips,
            max_connections=args.max_connections,
            max_connections_per_client=args.max_connections_per_client,
            header_timeout_s=args.header_timeout,
            hips_url=args.hips_url,
            **overrides,
        )
    except (OSError, ValueError) as err:
        parser.error(str(err))


def answer_settings(args: argparse.Namespace) -> tuple[ProgramSettings, EngineSettings]:
    """The program's and the engine's settings from the answering options."""
    from modules.settings import ProgramSettings

    return ProgramSettings(artifact=args.program, candidates=args.candidates), engine_settings(
        args, timeout_s=args.timeout
    )


def read_token(path: str | None, *, env: str = TOKEN_ENV, option: str = "--token-file") -> str | None:
    """Read the token from `path`, else from the environment; None when neither has one.

    Raises:
        OSError: The file cannot be read (the message names it).
    """
    if path is None:
        return os.environ.get(env, "").strip() or None
    try:
        return Path(path).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError) as err:
        raise OSError(f"cannot read the token from {option} {path}: {getattr(err, 'strerror', None) or err}") from err
