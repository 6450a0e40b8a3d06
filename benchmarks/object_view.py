"""Time the object page of an object with --detections detections, beside the answer page's light curve.

A throwaway embedded server builds the ztf replica at --scale (seed 0; or --dsn with --admin-dsn names one to use:
the benchmark adds rows to it). The object with the most detections gets more, copies of its own with shifted
times and new candids, until it has --detections, and its ndet follows. A workbench (fake model) is served by
uvicorn on 127.0.0.1 in this process, and each page is fetched --repeats times after one warm-up:

- ``object_page``: ``GET /objects/ztf/<oid>``, the object view (summary, classifications, cross-matches, features
  and every photometric point for the interactive light curve, in one HTML page);
- ``current_page``: what the workbench showed of an object before it: the answer page of a query of the object
  with the light curve chosen (``GET /answers/<id>?oid=<oid>``) and its PNG (``GET .../lightcurve.png``).

Reports p50/p95/max of each (ms) and of the view's queries alone (``fetch_ms``), their ratio (object page over
current page, p50), the size of the object page, and whether the object page's p95 is under 1 s (the target).
"""

import argparse
import json
import logging
import sys
import time

import httpx
import psycopg
from psycopg import sql as pg_sql

from answering.objects import fetch_object
from benchmarks.common import free_port, latency_summary_ms, package_versions, throwaway_data_dir
from benchmarks.served import served
from db.server import ServerSettings, up
from engines import EngineSettings
from engines.errors import EngineError
from lms.fake import fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench
from serve.workbench import open_workbench

EXAMPLES = """examples:
  python -m benchmarks.object_view
  python -m benchmarks.record object_view -- --repeats 10

Prints one JSON object on stdout; exit codes: 0 done, 1 server or database failure, 2 bad command line."""

TARGET_S = 1.0
_SHIFT_DAYS = 0.0137  # each copy's time shift, so copies do not stack on the originals


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.object_view",
        description=__doc__.splitlines()[0],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--scale", default="default", help="replica scale to build (default: %(default)s)")
    parser.add_argument(
        "--detections", type=int, default=10_000, help="detections of the object (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=7, help="timed fetches of each page (default: %(default)s)")
    parser.add_argument("--dsn", help="reader DSN of a ztf database to use instead of a throwaway one")
    parser.add_argument("--admin-dsn", help="its superuser DSN (rows are added to it)")
    return parser


def grow_object(admin_dsn: str, detections: int) -> tuple[str, int]:
    """Give the object with the most detections `detections` of them (copies of its own); return its oid and its
    count before."""
    with psycopg.connect(admin_dsn, autocommit=True) as connection:
        oid, before = connection.execute(
            "SELECT oid, count(*) FROM detection GROUP BY oid ORDER BY count(*) DESC, oid LIMIT 1"
        ).fetchone()
        names = [row[0] for row in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'detection' "
            "AND table_schema = current_schema() ORDER BY ordinal_position"
        )]  # fmt: skip
        copied = {"candid": pg_sql.SQL("d.candid + k * 1000000000000"), "mjd": pg_sql.SQL("d.mjd + k * %s")}
        values = [copied.get(name, pg_sql.SQL("d.{}").format(pg_sql.Identifier(name))) for name in names]
        connection.execute(
            pg_sql.SQL(
                "INSERT INTO detection ({}) SELECT {} FROM detection d CROSS JOIN generate_series(1, %s) AS k "
                "WHERE d.oid = %s ORDER BY k, d.mjd LIMIT %s"
            ).format(pg_sql.SQL(", ").join(map(pg_sql.Identifier, names)), pg_sql.SQL(", ").join(values)),
            (_SHIFT_DAYS, detections // max(before, 1) + 1, oid, max(detections - before, 0)),
        )
        connection.execute("UPDATE object SET ndet = (SELECT count(*) FROM detection WHERE oid = %s) WHERE oid = %s",
                           (oid, oid))  # fmt: skip
        connection.execute("ANALYZE detection")
    return oid, before


def timed(client: httpx.Client, paths: list[str], repeats: int) -> list[float]:
    """Fetch `paths` one after the other, once to warm up and then `repeats` times; the seconds of each round."""
    seconds = []
    for round_ in range(repeats + 1):
        started = time.perf_counter()
        for path in paths:
            client.get(path).raise_for_status()
        if round_:
            seconds.append(time.perf_counter() - started)
    return seconds


def timed_fetch(bench: Workbench, oid: str, repeats: int) -> list[float]:
    """The seconds of each of `repeats` fetches of the object's view alone (its queries, no page)."""
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        fetch_object(bench.engine, oid)
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(reader_dsn: str, admin_dsn: str, args: argparse.Namespace) -> dict:
    oid, before = grow_object(admin_dsn, args.detections)
    engine = EngineSettings(dsn=reader_dsn, catalog="ztf", timeout_s=60.0)
    lm = fake_lm(lambda call: render_answer({"sql": "SELECT 1 AS n"}))
    program = ProgramSettings(uncompiled=True)
    bench = open_workbench("fake/bench", ServeSettings(), program=program, engine=engine, lm=lm)
    try:
        record = bench.run_sql(f"SELECT oid, meanra, meandec, ndet FROM object WHERE oid = '{oid}'")
        with served(bench) as url, httpx.Client(base_url=url, timeout=120) as client:
            page = client.get(f"/objects/ztf/{oid}").text
            current = [f"/answers/{record.id}?oid={oid}", f"/answers/{record.id}/lightcurve.png?oid={oid}"]
            current_s = timed(client, current, args.repeats)
            object_s = timed(client, [f"/objects/ztf/{oid}"], args.repeats)
        fetch_s = timed_fetch(bench, oid, args.repeats)
    finally:
        bench.close()
    with psycopg.connect(reader_dsn) as connection:
        detections = connection.execute("SELECT count(*) FROM detection WHERE oid = %s", (oid,)).fetchone()[0]
    object_page, current_page = latency_summary_ms(object_s), latency_summary_ms(current_s)
    return {
        "oid": oid,
        "detections": detections,
        "detections_before": before,
        "page_bytes": len(page.encode()),
        "object_page_ms": object_page,
        "current_page_ms": current_page,
        "fetch_ms": latency_summary_ms(fetch_s),
        "ratio_p50": round(object_page["p50"] / current_page["p50"], 2),
        "under_target": object_page["p95"] < TARGET_S * 1000,
        "target_s": TARGET_S,
    }


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if bool(args.dsn) != bool(args.admin_dsn):
        parser.error("--dsn and --admin-dsn go together")
    if args.detections < 1 or args.repeats < 1:
        parser.error("--detections and --repeats must be positive")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        if args.dsn:
            results = measure(args.dsn, args.admin_dsn, args)
        else:
            with throwaway_data_dir("alerce-t2s-object-view-") as data_dir:
                info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale=args.scale, seed=0))
                results = measure(info.reader_dsn, info.admin_dsn, args)
    except (EngineError, psycopg.Error) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    params = {"scale": None if args.dsn else args.scale, "detections": args.detections, "repeats": args.repeats}
    report = {"benchmark": "object_view", "params": params, **results}
    report["versions"] = package_versions("fastapi", "uvicorn", "plotly", "psycopg")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
