"""Entry point of ``python -m ask``: answer one question about ALeRCE data (see answering/cli.py)."""

from answering.arguments import build_parser
from cli.command import run_command


def main(argv: list[str] | None = None) -> int:
    """Run the command on `argv` (default: ``sys.argv[1:]``); return the exit code."""
    return run_command(build_parser, "answering.cli:run_parsed", argv)


if __name__ == "__main__":
    raise SystemExit(main())
