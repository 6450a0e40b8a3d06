"""Entry point of ``python -m serve``: the astronomer's workbench (see serve/cli.py)."""

from cli.command import run_command
from serve.arguments import build_parser

raise SystemExit(run_command(build_parser, "serve.cli:run_parsed"))
