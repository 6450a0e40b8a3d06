"""Count the MJD hints of the dev split that the date stage finds again from the question alone.

The benchmark gives some questions their dates as MJDs in the external knowledge ("-- mjd date for September 01
= 60188.0"): a hint is a knowledge line that mentions "mjd" and holds an MJD-sized number (five digits before the
point). For those questions the date stage (modules.dates.stage) reads the question without any knowledge, relative to
--as-of, and each hinted value is looked for among the bounds of the ranges it returns:
- "exact": the value is within --tolerance-days of a range bound;
- "last_day": also accepted when it is within the tolerance of the start of the last day inside an end bound
  (end - 1), because the hints give the last day of a period ("the end of January = 59975") where the stage gives
  the day after it (half-open ranges).
No LM and no database.
"""

import argparse
import json
import re
import sys
from datetime import date

from benchmarks.common import EmptyInputError, package_versions, split_examples
from data.errors import DataError
from modules.dates.stage import DateRange, date_ranges

EXAMPLES = """examples:
  python -m benchmarks.date_hints --as-of 2023-10-01
  python -m benchmarks.date_hints --dataset ../shared/alerce-t2s --as-of 2023-10-01 --tolerance-days 0.5

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset not found or unreadable, or no question with an
MJD hint (one line on stderr), 2 bad command line."""

_MJD_NUMBER = re.compile(r"(?<![\d.])\d{5}(?:\.\d+)?(?![\d.])")


def hinted_mjds(knowledge: str) -> list[float]:
    """Return the MJD values of the knowledge's hint lines, in order.

    Examples:
        >>> hinted_mjds("-- last june in mjd date: [start=60096.0, end=60125.0]\\n-- 1000 arcmin = 16.7 deg")
        [60096.0, 60125.0]
    """
    lines = (line for line in knowledge.splitlines() if "mjd" in line.lower())
    return [float(number) for line in lines for number in _MJD_NUMBER.findall(line)]


def _bounds(ranges: list[DateRange], *, last_day: bool) -> list[float]:
    bounds = [bound for found in ranges for bound in (found.start_mjd, found.end_mjd) if bound is not None]
    if last_day:
        bounds += [found.end_mjd - 1 for found in ranges if found.end_mjd is not None]
    return bounds


def is_reproduced(value: float, ranges: list[DateRange], tolerance_days: float, *, last_day: bool = False) -> bool:
    """Tell whether a hinted MJD is within ``tolerance_days`` of a bound of the ranges (or of end - 1)."""
    return any(abs(value - bound) <= tolerance_days for bound in _bounds(ranges, last_day=last_day))


def measure(examples: list, as_of: date, tolerance_days: float) -> dict[str, object]:
    """Run the date stage on every hinted question and count the hinted values found again."""
    questions, counts = [], {"hinted_values": 0, "reproduced_exact": 0, "reproduced_last_day": 0}
    for example in examples:
        hints = hinted_mjds(example.external_knowledge)
        if not hints:
            continue
        ranges = date_ranges(example.question, as_of)
        exact = [is_reproduced(value, ranges, tolerance_days) for value in hints]
        last_day = [is_reproduced(value, ranges, tolerance_days, last_day=True) for value in hints]
        counts["hinted_values"] += len(hints)
        counts["reproduced_exact"] += sum(exact)
        counts["reproduced_last_day"] += sum(last_day)
        questions.append(
            {
                "req_id": int(example.req_id),
                "hinted_mjd": hints,
                "ranges": [[found.text, found.start_mjd, found.end_mjd] for found in ranges],
                "reproduced_exact": exact,
                "reproduced_last_day": last_day,
            }
        )
    return {"questions_with_hints": len(questions), **counts, "questions": questions}


def _as_of(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from err


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default=None, help="dev.csv or its folder (default: $ALERCE_T2S_DATA)")
    parser.add_argument("--as-of", type=_as_of, required=True, help="reference date for relative dates, YYYY-MM-DD")
    parser.add_argument(
        "--tolerance-days", type=float, default=0.5, help="largest distance to a bound (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    try:
        file, examples = split_examples(args.dataset, "dev")
        results = measure(examples, args.as_of, args.tolerance_days)
        if not results["questions_with_hints"]:
            raise EmptyInputError(f"no question of '{file}' has an MJD hint in its external knowledge to compare with.")
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    report = {
        "benchmark": "date_hints",
        "params": {"dataset": str(file), "as_of": args.as_of.isoformat(), "tolerance_days": args.tolerance_days},
        "results": results,
        "versions": package_versions("astropy"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
