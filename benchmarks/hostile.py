"""Measure what hostile SQL costs through the executor: per-query overhead, time to answer an uncancellable query,
time to hit the server's memory ceiling, and the client's peak memory for results the byte cap must bound.

Runs on a throwaway tiny embedded server (or `--dsn` with `--admin-dsn`). The uncancellable query (xpath, libxml2)
runs as the admin role with the guard bypassed, since the guard refuses it and the reader may not execute it.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import engines.postgres
from benchmarks.common import free_port, latency_summary_ms, package_versions, throwaway_data_dir
from db.server import ServerSettings, up
from engines.errors import ExecutionError
from engines.postgres import PostgresEngine, PostgresSettings

EXAMPLES = """examples:
  python -m benchmarks.hostile
  python -m benchmarks.hostile --dsn postgresql://alerce_reader@127.0.0.1:54329/alerce_tiny --admin-dsn URL

Prints one JSON object on stdout; exit codes: 0 done, 2 bad command line."""

UNCANCELLABLE_SQL = (
    "SELECT xpath('count(//a[count(//a[count(//a)>0])>0])', ('<r>' || repeat('<a/>', 700) || '</r>')::xml)"
)
MEMORY_SQL = "SELECT array_length(array_agg(repeat('x', 1000000)), 1) FROM generate_series(1, 100000)"
CLIENT_MEMORY_SQL = {
    "thousand_empty_columns": "SELECT " + ", ".join(["''"] * 1000) + " FROM generate_series(1, 100000)",
    "gigabyte_value": "SELECT repeat('x', 1000000000) AS s",
    "sixty_megabyte_value": "SELECT repeat('x', 60000000) AS s",
}
RSS_PROBE = """
import json, resource, sys
from engines.postgres import PostgresEngine, PostgresSettings
with PostgresEngine(PostgresSettings(dsn=sys.argv[1], timeout_s=30, max_rows=1_000_000, pool_size=1)) as executor:
    executor.execute("SELECT 1")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        result = executor.execute(sys.argv[2])
        outcome = f"{len(result.frame)} rows, truncated={result.truncated}"
    except Exception as err:
        outcome = str(err)[:80]
grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"outcome": outcome, "peak_rss_growth_mb": grown_mb}))
"""


def timed(executor: PostgresEngine, sql: str, timeout_s: float) -> dict[str, object]:
    """Run one statement; return its wall time in seconds and its outcome."""
    started = time.monotonic()
    try:
        executor.execute(sql, timeout_s=timeout_s)
        outcome = "ran"
    except ExecutionError as err:
        outcome = f"{err.kind.value} {err.sqlstate or ''}".strip()
    return {"seconds": round(time.monotonic() - started, 3), "timeout_s": timeout_s, "outcome": outcome}


def client_memory(dsn: str, sql: str) -> dict[str, object]:
    """Peak RSS growth of a fresh Python process running `sql` through the executor."""
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, dsn, sql], cwd=repo, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(dsn: str, admin_dsn: str, repeats: int) -> dict[str, object]:
    """All measurements on one database."""
    results: dict[str, object] = {}
    with PostgresEngine(PostgresSettings(dsn=dsn, pool_size=1)) as executor:
        executor.execute("SELECT 1")
        seconds = []
        for _ in range(repeats):
            started = time.perf_counter()
            executor.execute("SELECT 1 AS one")
            seconds.append(time.perf_counter() - started)
        results["select_1_ms"] = latency_summary_ms(seconds)
        results["array_agg_to_memory_ceiling"] = timed(executor, MEMORY_SQL, 30.0)
    guard = engines.postgres.check_sql
    engines.postgres.check_sql = lambda sql: sql
    try:
        with PostgresEngine(PostgresSettings(dsn=admin_dsn, admin_dsn=admin_dsn, pool_size=1)) as executor:
            results["uncancellable_xpath"] = timed(executor, UNCANCELLABLE_SQL, 1.0)
    finally:
        engines.postgres.check_sql = guard
    results["client_memory"] = {name: client_memory(dsn, sql) for name, sql in CLIENT_MEMORY_SQL.items()}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dsn", default=None, help="reader DSN (default: a throwaway tiny embedded server)")
    parser.add_argument("--admin-dsn", default=None, help="superuser DSN of the same database (with --dsn)")
    parser.add_argument("--repeats", type=int, default=200, help="SELECT 1 runs timed (default: %(default)s)")
    args = parser.parse_args(argv)
    if bool(args.dsn) != bool(args.admin_dsn):
        parser.error("--dsn and --admin-dsn go together")
    if args.dsn:
        results = measure(args.dsn, args.admin_dsn, args.repeats)
    else:
        with throwaway_data_dir("alerce-t2s-hostile-") as data_dir:
            info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0))
            results = measure(info.reader_dsn, info.admin_dsn, args.repeats)
    report = {
        "benchmark": "hostile",
        "params": {"repeats": args.repeats, "external": bool(args.dsn)},
        "results": results,
        "client_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "versions": package_versions("psycopg", "psycopg-pool"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
