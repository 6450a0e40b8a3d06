"""Time the ADQL translation, the local DaCHS set-up, and every gold through TAP against direct PostgreSQL.

Translation: every gold translated `--repeats` times (median and p95 per query). Set-up: `python -m db tap up`
from scratch for the catalog (copy of its embedded database into DaCHS, metadata import, server start). Execution:
each gold once on PostgreSQL and once through the local TAP service (one warm-up each), in the same run; the result
keeps the median of the per-query ratios and which golds give a different identifier set (the catalog's identifier
columns) or column names, with the reason. The golds are the benchmark's dev split for ztf and the project's example
set for multisurvey (or --dataset). The run holds the local DaCHS alone (other runs wait) and stops it at the end
when it had to start it.
"""

import argparse
import json
import logging
import statistics
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack

import pandas as pd

from benchmarks.common import gold_queries, latency_summary_ms, package_versions
from catalog.options import add_catalog_argument
from data.errors import DataError
from db.server import ServerSettings, up
from db.tap.server import SYNC_LIMIT_S, tap_session
from engines import PostgresEngine, TapSettings
from engines.adql.translation import TapTarget, default_target, translate
from engines.errors import EngineError, ExecutionError
from engines.postgres import PostgresSettings
from metric.perfect_match import IDS, identifier_columns, identifier_strings
from replica.replicas import replica_scales

EXAMPLES = """examples:
  python -m benchmarks.tap --dataset ../shared/alerce-t2s/dev.csv
  python -m benchmarks.tap --scale tiny --repeats 20 > tap.json
  python -m benchmarks.tap --catalog multisurvey > tap_multisurvey.json

Needs GAVO DaCHS (sudo bash scripts/install_system_packages.sh --tap). Prints one JSON object on stdout;
exit codes: 0 done, 1 dataset, database or DaCHS unavailable, 2 bad command line."""

logger = logging.getLogger("benchmarks.tap")

TIMEOUT_S = 60.0
# Both engines keep whole results (TAP has no byte cap), so the identifier sets compare.
LIMITS = {"max_rows": 100_000, "max_bytes": 1 << 30}


def same_result(postgres_frame: pd.DataFrame, tap_frame: pd.DataFrame, ids: Sequence[str] = IDS) -> bool:
    """Tell whether two results have the same column names (in order) and identifier set (first of `ids`)."""
    if list(postgres_frame.columns) != list(tap_frame.columns):
        return False
    key = next((name for name in ids if name in postgres_frame.columns), None)
    if key is None:
        return len(postgres_frame) == len(tap_frame)
    position = list(postgres_frame.columns).index(key)
    return identifier_strings(postgres_frame.iloc[:, position]) == identifier_strings(tap_frame.iloc[:, position])


def time_translation(golds: list[tuple[int, str]], repeats: int, target: TapTarget) -> dict:
    """Return the per-query translation time summary, and the golds ADQL cannot express."""
    seconds, unsupported = [], {}
    for req_id, sql in golds:
        for _ in range(repeats):
            started = time.perf_counter()
            try:
                translate(sql, target)
            except ExecutionError as err:
                unsupported[str(req_id)] = err.message
                break
            seconds.append(time.perf_counter() - started)
    return {"translation_ms": latency_summary_ms(seconds), "unsupported": unsupported}


def time_setup(settings: ServerSettings) -> tuple[float, ExitStack, str]:
    """Time publishing from scratch (server stopped, copy forgotten); return seconds, the held session and URL."""
    session = ExitStack()
    started = time.perf_counter()
    url = session.enter_context(tap_session(settings, fresh=True, catalogs=(settings.catalog,)))
    return time.perf_counter() - started, session, url


def compare(golds: list[tuple[int, str]], postgres: PostgresEngine, tap: object) -> dict:
    """Run each gold on both engines (one warm-up each); return timings, their median ratio and the differences."""
    ids = identifier_columns(postgres.catalog)
    ratios, postgres_s, tap_s, differ, with_rows = [], [], [], {}, 0
    for req_id, sql in golds:
        try:
            postgres.execute(sql)
            started = time.perf_counter()
            expected = postgres.execute(sql)
            postgres_s.append(time.perf_counter() - started)
            tap.execute(sql)
            started = time.perf_counter()
            got = tap.execute(sql)
            tap_s.append(time.perf_counter() - started)
        except ExecutionError as err:
            differ[str(req_id)] = f"{err.kind.value}: {err.message}"
            continue
        ratios.append(tap_s[-1] / max(postgres_s[-1], 1e-6))
        with_rows += len(expected.frame) > 0
        if not same_result(expected.frame, got.frame, ids):
            differ[str(req_id)] = _difference(expected, got)
    return {
        "postgres_ms": latency_summary_ms(postgres_s),
        "tap_ms": latency_summary_ms(tap_s),
        "tap_over_postgres_median_ratio": round(statistics.median(ratios), 2) if ratios else None,
        "golds_same_ids_and_columns": len(golds) - len(differ),
        "golds_with_rows": with_rows,
        "differ": differ,
    }


def _difference(expected: object, got: object) -> str:
    cut = [name for name, result in (("PostgreSQL", expected), ("TAP", got)) if result.truncated]
    note = f" (cut at the row or byte cap on {' and '.join(cut)})" if cut else ""
    return f"{len(expected.frame)} rows on PostgreSQL, {len(got.frame)} on TAP{note}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print its JSON object on stdout and return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.tap",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dataset", help="benchmark CSV or folder (default: $ALERCE_T2S_DATA; multisurvey: its example set)"
    )
    add_catalog_argument(parser)
    parser.add_argument(
        "--scale", choices=replica_scales("ztf"), default="default", help="embedded scale (default: default)"
    )
    parser.add_argument("--repeats", type=int, default=20, help="translations per query (default: %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    from engines.tap.engine import TapEngine

    try:
        dataset_file, golds = gold_queries(args.dataset, catalog=args.catalog)
        settings = ServerSettings(scale=args.scale, catalog=args.catalog)
        translation = time_translation(golds, max(1, args.repeats), default_target(args.catalog))
        setup_s, session, url = time_setup(settings)
        postgres_settings = PostgresSettings(
            dsn=up(settings).reader_dsn, timeout_s=TIMEOUT_S, catalog=args.catalog, **LIMITS
        )
        tap_settings = TapSettings(
            url=url, timeout_s=TIMEOUT_S, max_rows=LIMITS["max_rows"], sync_limit_s=SYNC_LIMIT_S, catalog=args.catalog
        )
        with session, PostgresEngine(postgres_settings) as postgres, TapEngine(tap_settings) as tap:
            execution = compare(golds, postgres, tap)
    except (DataError, EngineError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    output = {
        "benchmark": "tap",
        "params": {
            "catalog": args.catalog,
            "dataset": str(dataset_file),
            "scale": args.scale,
            "repeats": args.repeats,
            "golds": len(golds),
        },
        **translation,
        "dachs_setup_s": round(setup_s, 1),
        **execution,
        "versions": package_versions("sqlglot", "pyvo", "astropy", "psycopg"),
    }
    print(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
