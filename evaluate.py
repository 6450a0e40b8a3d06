"""Entry point of ``python -m evaluate``: score predicted SQL against the benchmark (see evaluation/cli.py)."""

from evaluation.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
