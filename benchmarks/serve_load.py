"""Load the workbench over loopback: questions waiting on a slow model and slow queries, while its health is timed.

A throwaway tiny embedded server (or --dsn with --admin-dsn) backs a workbench served by uvicorn on 127.0.0.1 in
this process. A fake model (``lms.fake``) answers after --answer-s seconds, one question at a time like the embedded
local model; --asks questions are posted to /api/ask at once (the queue's caps are raised to take them all), and
--queries slow queries (a cross join that runs until --query-timeout-s) to /api/run-sql. Meanwhile /api/health is
asked every 0.1 s. Everything is bounded: each request has a timeout and the load stops after --max-s seconds.

Reports the HTTP statuses of each kind of request, the health latency (p50, p95, max), the reader role's
connections to the server before and after (none may still be running a query), and this process's resident
memory before and after the load (the server runs in it).
"""

import argparse
import collections
import contextlib
import gc
import json
import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

import httpx
import psycopg
import uvicorn
from psycopg.conninfo import conninfo_to_dict

from benchmarks.common import free_port, latency_summary_ms, package_versions, throwaway_data_dir
from db.server import ServerSettings, up
from engines import EngineSettings
from engines.errors import EngineError
from lms.fake import Call, fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings, Workbench, create_app
from serve.workbench import open_workbench

EXAMPLES = """examples:
  python -m benchmarks.serve_load
  python -m benchmarks.serve_load --asks 50 --queries 20 --answer-s 0.5 > serve_load.json

Prints one JSON object on stdout; exit 0 done, 1 the database is unusable, 2 bad command line."""

SLOW_SQL = "SELECT count(*) AS n FROM detection a, detection b, detection c, detection d"
HEALTH_EVERY_S = 0.1
_FIELDS = {
    "tables": {"tables": ["object"]},
    "columns": {"columns": {"object": ["oid"]}},
    "difficulty": {"difficulty": "simple"},
}

logger = logging.getLogger("benchmarks.serve_load")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.serve_load",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--asks", type=int, default=50, help="questions posted at once (default: %(default)s)")
    parser.add_argument("--queries", type=int, default=20, help="slow queries posted at once (default: %(default)s)")
    parser.add_argument("--answer-s", type=float, default=0.5, help="seconds per answer (default: %(default)s)")
    parser.add_argument("--query-timeout-s", type=float, default=3.0, help="query time limit (default: %(default)s)")
    parser.add_argument("--max-s", type=float, default=120.0, help="longest load, in seconds (default: %(default)s)")
    parser.add_argument("--dsn", default=None, help="reader DSN (default: a throwaway tiny embedded server)")
    parser.add_argument("--admin-dsn", default=None, help="superuser DSN of the same database (with --dsn)")
    return parser


def slow_model(answer_s: float):
    """A fake LM whose SQL stage waits `answer_s` seconds, then writes ``SELECT 1 AS n``."""

    def answer(call: Call) -> str:
        if call.stage == "direct":
            time.sleep(answer_s)
        return render_answer(_FIELDS.get(call.stage, {"sql": "SELECT 1 AS n"}))

    return fake_lm(answer)


def reader_connections(admin_dsn: str, reader: str) -> dict[str, int]:
    """Count the reader role's connections to the server, and those running a query."""
    sql = "SELECT count(*), count(*) FILTER (WHERE state = 'active') FROM pg_stat_activity WHERE usename = %s"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        total, active = conn.execute(sql, (reader,)).fetchone()
    return {"open": total, "running_a_query": active}


def resident_mb() -> float:
    """This process's resident memory (VmRSS), in MiB."""
    for line in open("/proc/self/status").read().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


@contextlib.contextmanager
def served(bench: Workbench):
    """Serve the workbench with uvicorn on a free loopback port in a thread; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(bench), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def run_load(url: str, args: argparse.Namespace) -> dict:
    """Post the questions and queries at once, time /api/health until they end; return statuses and latencies."""
    statuses: dict[str, collections.Counter] = {"ask": collections.Counter(), "run_sql": collections.Counter()}
    health_s: list[float] = []
    done = threading.Event()
    timeout = httpx.Timeout(args.max_s)

    def post(kind: str, path: str, body: dict) -> None:
        try:
            statuses[kind][str(httpx.post(f"{url}{path}", json=body, timeout=timeout).status_code)] += 1
        except httpx.HTTPError as err:
            statuses[kind][type(err).__name__] += 1

    def watch_health() -> None:
        while not done.is_set():
            started = time.perf_counter()
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{url}/api/health", timeout=5).raise_for_status()
                health_s.append(time.perf_counter() - started)
            done.wait(HEALTH_EVERY_S)

    with ThreadPoolExecutor(max_workers=args.asks + args.queries + 1) as pool:
        pool.submit(watch_health)
        started = time.perf_counter()
        load_ = [pool.submit(post, "ask", "/api/ask", {"question": f"Question {n}?"}) for n in range(args.asks)]
        load_ += [pool.submit(post, "run_sql", "/api/run-sql", {"sql": SLOW_SQL}) for _ in range(args.queries)]
        wait(load_, timeout=args.max_s)
        elapsed_s = time.perf_counter() - started
        done.set()
    return {
        "statuses": {kind: dict(sorted(counts.items())) for kind, counts in statuses.items()},
        "health_ms": latency_summary_ms(health_s),
        "load_s": round(elapsed_s, 2),
    }


def measure(reader_dsn: str, admin_dsn: str, args: argparse.Namespace) -> dict:
    """Build the workbench on `reader_dsn`, load it, and report."""
    reader = conninfo_to_dict(reader_dsn).get("user") or ""
    settings = ServeSettings(one_at_a_time=True, max_queued=args.asks, max_queued_per_client=args.asks)
    engine = EngineSettings(dsn=reader_dsn, timeout_s=args.query_timeout_s)
    program = ProgramSettings(uncompiled=True)
    bench = open_workbench("fake/slow", settings, program=program, engine=engine, lm=slow_model(args.answer_s))
    try:
        with served(bench) as url:
            httpx.post(f"{url}/api/run-sql", json={"sql": "SELECT 1"}, timeout=30)  # warm: the pool is open
            before = {"connections": reader_connections(admin_dsn, reader), "rss_mb": resident_mb()}
            results = run_load(url, args)
            time.sleep(1.0)  # a query abandoned at its time limit ends within a second
            gc.collect()
            after = {"connections": reader_connections(admin_dsn, reader), "rss_mb": resident_mb()}
    finally:
        bench.close()
    return {**results, "before": before, "after": after}


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m benchmarks.serve_load``; return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if bool(args.dsn) != bool(args.admin_dsn):
        parser.error("--dsn and --admin-dsn go together")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        if args.dsn:
            results = measure(args.dsn, args.admin_dsn, args)
        else:
            with throwaway_data_dir("alerce-t2s-serve-load-") as data_dir:
                info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0))
                results = measure(info.reader_dsn, info.admin_dsn, args)
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    params = {key: getattr(args, key) for key in ("asks", "queries", "answer_s", "query_timeout_s", "max_s")}
    params["external"] = bool(args.dsn)
    report = {
        "benchmark": "serve_load",
        "params": params,
        **results,
        "versions": package_versions("fastapi", "uvicorn", "psycopg-pool"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
