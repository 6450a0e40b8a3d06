"""Argument types shared by the commands: positive numbers, ISO dates and comma-separated choices.

Each raises ``argparse.ArgumentTypeError``, which argparse turns into "argument --x: <message>" and exit 2.

Example:
    >>> positive_int("3"), positive_float("0.5")
    (3, 0.5)
    >>> comma_choices(("sql", "plan"), "--show item")("plan, sql")
    ('plan', 'sql')
    >>> iso_date("2026-12-01")
    datetime.date(2026, 12, 1)
"""

import argparse
import contextlib
import datetime as dt
import re
from collections.abc import Callable

__all__ = ["comma_choices", "iso_date", "positive_float", "positive_int"]


def _positive(kind: type[int] | type[float], text: str) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def positive_int(text: str) -> int:
    """Parse a whole number above 0 (workers, runs, row limits)."""
    return int(_positive(int, text))


def positive_float(text: str) -> float:
    """Parse a number above 0 (seconds)."""
    return float(_positive(float, text))


def iso_date(text: str) -> dt.date:
    """Parse a calendar date written YYYY-MM-DD (a reference date)."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        with contextlib.suppress(ValueError):  # a day the calendar lacks (2026-02-30) gets the message below
            return dt.date.fromisoformat(text)
    raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}")


def comma_choices(choices: tuple[str, ...], what: str) -> Callable[[str], tuple[str, ...]]:
    """Return a parser of a comma-separated list of ``choices`` (``none`` or nothing is the empty list).

    Args:
        choices: The allowed names.
        what: What a name is, for the error ("stage", "--show item").
    """

    def parse(text: str) -> tuple[str, ...]:
        names = tuple(name.strip() for name in text.split(",") if name.strip() and name.strip() != "none")
        unknown = [name for name in names if name not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {what} {unknown[0]!r}; choose from {', '.join(choices)}")
        return names

    return parse
