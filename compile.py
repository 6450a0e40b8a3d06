"""Entry point of ``python -m compile``: compile the program for one model and freeze it under artifacts/."""

from cli.command import run_command
from optimizers.arguments import build_parser


def main(argv: list[str] | None = None) -> int:
    """Run the command on `argv` (default: ``sys.argv[1:]``); return the exit code."""
    return run_command(build_parser, "optimizers.cli:run_parsed", argv)


if __name__ == "__main__":
    raise SystemExit(main())
