"""Entry point of `python -m db`."""

from cli.command import run_command
from db.arguments import build_parser

raise SystemExit(run_command(build_parser, "db.cli:run_parsed"))
