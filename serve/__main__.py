"""Entry point of ``python -m serve``: the astronomer's workbench (see serve/cli.py)."""

import sys

from cli.command import run_command
from serve.arguments import SUBCOMMANDS, build_parser

if sys.argv[1:2] and sys.argv[1] in SUBCOMMANDS:
    from serve.processes import main

    raise SystemExit(main(sys.argv[1], sys.argv[2:]))
raise SystemExit(run_command(build_parser, "serve.cli:run_parsed"))
