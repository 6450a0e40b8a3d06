"""Time the SQL guard: dev gold queries, long IN lists up to the length cap, and the refusals that bound its cost.

No database. Each input is checked `--repeats` times; the JSON gives p50/p95/max in milliseconds per input and the
outcome (accepted, or the start of the refusal message).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from benchmarks.common import gold_queries, latency_summary_ms, package_versions
from data.errors import DataError
from engines.errors import GuardError
from engines.guard import MAX_PARSE_S, MAX_SQL_CHARS, check_sql

EXAMPLES = """examples:
  python -m benchmarks.guard
  python -m benchmarks.guard --dataset ../shared/alerce-t2s/dev.csv --repeats 5

Prints one JSON object on stdout; exit codes: 0 done, 1 dataset not found, 2 bad command line."""


def in_list(chars: int) -> str:
    """A SELECT with an IN list of oid literals, about `chars` characters long."""
    head, item = "SELECT oid FROM object WHERE oid IN (", "'ZTF000000000', "
    return head + item * max(1, (chars - len(head)) // len(item)) + "'ZTF000000001')"


def inputs() -> dict[str, str]:
    """The hostile and long inputs, by name."""
    return {
        "in_list_10k_chars": in_list(10_000),
        "in_list_50k_chars": in_list(50_000),
        "in_list_at_cap": in_list(MAX_SQL_CHARS - 100),
        "in_list_1mb": in_list(1_000_000),
        "in_list_10mb": in_list(10_000_000),
        "parentheses_5000_deep": "SELECT " + "(" * 5000 + "1" + ")" * 5000,
        "nots_5000_deep": "SELECT " + "NOT " * 5000 + "true",
        "nested_array_30_deep": "SELECT " + "ARRAY[" * 30 + "1" + "]" * 30,
        "functional_notation": "SELECT (3::float8).pg_sleep",
    }


def time_check(sql: str, repeats: int) -> tuple[list[float], str]:
    """Run check_sql `repeats` times; return the durations in seconds and the outcome."""
    durations, outcome = [], "accepted"
    for _ in range(repeats):
        started = time.perf_counter()
        try:
            check_sql(sql)
        except GuardError as err:
            outcome = err.message[:60]
        durations.append(time.perf_counter() - started)
    return durations, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default=None, help="dev.csv or its folder (default: $ALERCE_T2S_DATA)")
    parser.add_argument("--repeats", type=int, default=3, help="checks per input (default: %(default)s)")
    args = parser.parse_args(argv)
    results: dict[str, object] = {}
    try:
        _, golds = gold_queries(args.dataset)
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    gold_seconds = [seconds for _, sql in golds for seconds in time_check(sql, args.repeats)[0]]
    results["dev_golds_ms"] = latency_summary_ms(gold_seconds)
    for name, sql in inputs().items():
        seconds, outcome = time_check(sql, args.repeats)
        results[name] = {"chars": len(sql), "outcome": outcome, "check_ms": latency_summary_ms(seconds)}
    report = {
        "benchmark": "guard",
        "params": {"repeats": args.repeats, "max_sql_chars": MAX_SQL_CHARS, "max_parse_s": MAX_PARSE_S},
        "results": results,
        "versions": package_versions("sqlglot"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
