"""Entry point of ``python -m evaluate``: score predicted SQL against the benchmark (see evaluation/cli.py)."""

from cli.command import run_command
from evaluation.arguments import build_parser, check_model_mode_arguments


def main(argv: list[str] | None = None) -> int:
    """Run the command on `argv` (default: ``sys.argv[1:]``); return the exit code."""
    return run_command(build_parser, "evaluation.cli:run_parsed", argv, check=check_model_mode_arguments)


if __name__ == "__main__":
    raise SystemExit(main())
