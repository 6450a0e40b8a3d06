"""Load the workbench over loopback: questions waiting on a slow model and slow queries, while its health is timed.

A throwaway tiny embedded server (or --dsn with --admin-dsn) backs a workbench served by uvicorn on 127.0.0.1 in
this process. A fake model (``lms.fake``) answers after --answer-s seconds, one question at a time like the embedded
local model; --asks questions are posted to /api/ask at once (the queue's caps are raised to take them all), and
--queries slow queries (a cross join that runs until --query-timeout-s) to /api/run-sql. Meanwhile /api/health is
asked every 0.1 s. Everything is bounded: each request has a timeout and the load stops after --max-s seconds.

Reports the HTTP statuses of each kind of request, the health latency (p50, p95, max), the reader role's
connections to the server before and after (none may still be running a query), and this process's resident
memory before and after the load (the server runs in it).

Then (``fairness``, skipped with --fair-rounds 0) the workbench that ``python -m serve`` runs: the shared
workbench on a state database of the same throwaway server, one worker thread, and uvicorn with the command's own
connection settings (no proxy named). Client B (from 127.0.0.3) asks --fair-rounds fast questions and runs as many
``SELECT 1`` one after the other, alone first, then while client A (from 127.0.0.2) floods: slow questions (their
SQL runs until the query time limit), cookie-less ``POST /answers/ID/rerun`` of slow SQL, and ``/api/run-sql`` of
slow SQL, every request with a spoofed ``X-Forwarded-For`` (B's address or a documentation address). Reports B's
latency p50/p95 alone and under the flood and the p95 ratio (target: at most 2), and whether the spoofed header was
believed (any question of A recorded under an address other than A's: must be false).
"""

import argparse
import collections
import contextlib
import gc
import json
import logging
import secrets
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import httpx
import psycopg
import uvicorn
from psycopg import sql as pg_sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from benchmarks.common import free_port, latency_summary_ms, package_versions, throwaway_data_dir
from benchmarks.served import served
from db.server import ServerSettings, up
from engines import EngineSettings
from engines.errors import EngineError
from lms.fake import Call, fake_lm, render_answer
from modules.settings import ProgramSettings
from serve import ServeSettings, create_app
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

REPO_DIR = Path(__file__).resolve().parent.parent
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
    parser.add_argument(
        "--fair-rounds", type=int, default=20, help="client B's questions and queries per phase (default: %(default)s)"
    )
    parser.add_argument(
        "--flood-threads", type=int, default=12, help="client A's requests at once (default: %(default)s)"
    )
    parser.add_argument("--role", choices=["serve", "flood"], help=argparse.SUPPRESS)
    for hidden in ("--store-dsn", "--url", "--answer-id"):
        parser.add_argument(hidden, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    return parser


def slow_model(answer_s: float):
    """A fake LM whose SQL stage waits `answer_s` seconds, then writes ``SELECT 1 AS n``."""

    def answer(call: Call) -> str:
        if call.stage == "direct":
            time.sleep(answer_s)
        return render_answer(_FIELDS.get(call.stage, {"sql": "SELECT 1 AS n"}))

    return fake_lm(answer)


FLOODER, OTHER = "127.0.0.2", "127.0.0.3"
SPOOFED = (OTHER, "203.0.113.7", "198.51.100.9")
_STATE_DATABASE = "serve_load_state"


def fair_model(answer_s: float):
    """A fake LM: every SQL stage waits `answer_s` / 5 s; a question that says "slow" gets SQL that runs until the
    query time limit, any other ``SELECT 1 AS n``."""

    def answer(call: Call) -> str:
        if call.stage in _FIELDS:
            return render_answer(_FIELDS[call.stage])
        time.sleep(answer_s / 5)
        slow = "slow" in json.dumps(call.inputs).lower()
        return render_answer({"sql": SLOW_SQL if slow else "SELECT 1 AS n"})

    return fake_lm(answer)


def _client(url: str, address: str, timeout_s: float) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=url, transport=transport, timeout=timeout_s, follow_redirects=False)


def _timed_client_b(url: str, rounds: int, deadline: float) -> dict[str, list[float]]:
    """B asks `rounds` fast questions and runs `rounds` ``SELECT 1``, alternating; the latency of each that ended."""
    times: dict[str, list[float]] = {"ask": [], "run_sql": [], "failed": []}
    with _client(url, OTHER, 120.0) as client:
        for n in range(rounds):
            if time.monotonic() > deadline:
                break
            for kind, path, body in (
                ("ask", "/api/ask", {"question": f"[B] Which objects are there, round {n}?"}),
                ("run_sql", "/api/run-sql", {"sql": "SELECT 1 AS n"}),
            ):
                started = time.perf_counter()
                try:
                    ok = client.post(path, json=body).status_code == 200
                except httpx.HTTPError:
                    ok = False
                times[kind if ok else "failed"].append(time.perf_counter() - started)
    return times


def _flood(url: str, answer_id: str | None, stop: threading.Event, counts: collections.Counter) -> None:
    """One of A's flooding threads: slow questions, reruns of slow SQL and slow SQL, each with a spoofed header."""
    kinds = [("ask", "/api/ask"), ("run_sql", "/api/run-sql")] + ([("rerun", None)] if answer_id else [])
    with _client(url, FLOODER, 60.0) as client:
        n = 0
        while not stop.is_set():
            kind, path = kinds[n % len(kinds)]
            headers = {"X-Forwarded-For": SPOOFED[n % len(SPOOFED)]}
            n += 1
            try:
                if kind == "ask":
                    done = client.post(path, json={"question": f"[A] slow question {n}"}, headers=headers)
                elif kind == "run_sql":
                    done = client.post(path, json={"sql": SLOW_SQL}, headers=headers)
                else:
                    form = {"sql": SLOW_SQL, "question": "[A] rerun"}
                    done = client.post(f"/answers/{answer_id}/rerun", data=form, headers=headers)
                counts[f"{kind} {done.status_code}"] += 1
                if done.status_code in (429, 503):
                    stop.wait(0.05)  # refused at once: ask again soon, as a flood does
            except httpx.HTTPError as err:
                counts[f"{kind} {type(err).__name__}"] += 1


def _ratio(flood: dict, alone: dict) -> float | None:
    return round(flood["p95"] / alone["p95"], 2) if flood.get("p95") and alone.get("p95") else None


def _serve_role(args: argparse.Namespace) -> int:
    """Be the workbench ``python -m serve`` runs (web server and one worker), with the fake model, until SIGTERM."""
    from serve.connections import uvicorn_config
    from serve.state.shared import open_shared_workbench
    from serve.state.worker import WorkerSettings, WorkerThread

    settings = ServeSettings(port=args.port)
    engine = EngineSettings(dsn=args.dsn, timeout_s=args.query_timeout_s)
    bench = open_shared_workbench(
        "fake/fair",
        settings,
        program=ProgramSettings(uncompiled=True),
        engine=engine,
        store_dsn=args.store_dsn,
        session_key=secrets.token_bytes(32),
        lm=fair_model(args.answer_s),
    )
    worker = WorkerThread(bench, WorkerSettings(concurrency=settings.workers))
    worker.start()
    try:
        uvicorn.Server(uvicorn_config(create_app(bench), settings)).run()  # ends on SIGTERM
    finally:
        worker.stop()
        bench.close()
    return 0


_FLOODING = "flooding"
"""The line client A prints once its threads run."""


def _flood_role(args: argparse.Namespace) -> int:
    """Be client A: flood with --flood-threads threads until SIGTERM, then print the statuses as JSON."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    counts: collections.Counter = collections.Counter()
    flooders = [
        threading.Thread(target=_flood, args=(args.url, args.answer_id, stop, counts), daemon=True)
        for _ in range(args.flood_threads)
    ]
    for flooder in flooders:
        flooder.start()
    print(_FLOODING, flush=True)  # the SIGTERM that ends the flood is now heard
    stop.wait(args.max_s)
    stop.set()
    for flooder in flooders:
        flooder.join(args.query_timeout_s * 4 + 60)
    print(json.dumps(dict(sorted(counts.items()))))
    return 0


def _role(role: str, *argv: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "benchmarks.serve_load", "--role", role, *argv]
    return subprocess.Popen(command, cwd=REPO_DIR, stdout=subprocess.PIPE, text=True)


def _stopped(process: subprocess.Popen, timeout_s: float) -> str:
    process.send_signal(signal.SIGTERM)
    try:
        out, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    return out or ""


def measure_fairness(reader_dsn: str, admin_dsn: str, args: argparse.Namespace) -> dict:
    """Client B alone, then under client A's flood, on the workbench ``python -m serve`` runs; the server and A
    are processes of their own, so that B's times are the server's, not this process's threads'."""
    database = f"{_STATE_DATABASE}_{secrets.token_hex(4)}"  # of its own, dropped at the end (also on --dsn)
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(pg_sql.SQL("CREATE DATABASE {}").format(pg_sql.Identifier(database)))
    store_dsn = make_conninfo(admin_dsn, dbname=database)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    common = ["--answer-s", str(args.answer_s), "--query-timeout-s", str(args.query_timeout_s)]
    server = _role("serve", *common, "--dsn", reader_dsn, "--store-dsn", store_dsn, "--port", str(port))
    flood = None
    try:
        deadline = time.monotonic() + args.max_s
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the workbench did not start")
            time.sleep(0.2)
        with _client(url, FLOODER, 120.0) as client:  # A's own answer, whose SQL its reruns replace
            kept = client.post("/api/ask", json={"question": "[A] a first question"})
            answer_id = kept.json().get("id") if kept.status_code == 200 else ""
        _timed_client_b(url, 2, deadline)  # warm: the pools are open
        alone = _timed_client_b(url, args.fair_rounds, deadline)
        flood_argv = [*common, "--url", url, "--answer-id", answer_id, "--flood-threads", str(args.flood_threads)]
        flood = _role("flood", *flood_argv, "--max-s", str(args.max_s))
        if flood.stdout.readline().strip() != _FLOODING:  # a slow start (imports under load) is waited for
            raise RuntimeError("client A's flood did not start")
        time.sleep(args.query_timeout_s + 2)  # the flood holds what it can before B starts again
        under_flood = _timed_client_b(url, args.fair_rounds, deadline)
        counts = json.loads(_stopped(flood, args.query_timeout_s * 4 + 90).strip().splitlines()[-1])
        flood = None
        with psycopg.connect(store_dsn) as conn:
            rows = conn.execute("SELECT DISTINCT client FROM workbench.jobs WHERE question LIKE %s", ("[A]%",))
            clients_of_a = sorted(row[0] for row in rows.fetchall())
    finally:
        if flood is not None:
            _stopped(flood, 30)
        _stopped(server, 30)
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(pg_sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(pg_sql.Identifier(database)))
    b = {}
    for phase, times in (("alone", alone), ("under_flood", under_flood)):
        b[phase] = {
            "ask_ms": latency_summary_ms(times["ask"]),
            "run_sql_ms": latency_summary_ms(times["run_sql"]),
            "failed": len(times["failed"]),
        }
    ratios = {kind: _ratio(b["under_flood"][f"{kind}_ms"], b["alone"][f"{kind}_ms"]) for kind in ("ask", "run_sql")}
    return {
        "client_b": b,
        "p95_ratio": ratios,
        "within_2x": all(ratio is not None and ratio <= 2.0 for ratio in ratios.values())
        and not b["under_flood"]["failed"],
        "flood_requests": counts,
        "spoofed_header_believed": clients_of_a != [FLOODER],
        "clients_recorded_for_a": clients_of_a,
    }


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
    if args.role is not None:
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        return _serve_role(args) if args.role == "serve" else _flood_role(args)
    if bool(args.dsn) != bool(args.admin_dsn):
        parser.error("--dsn and --admin-dsn go together")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        if args.dsn:
            results = measure(args.dsn, args.admin_dsn, args)
            if args.fair_rounds > 0:
                results["fairness"] = measure_fairness(args.dsn, args.admin_dsn, args)
        else:
            with throwaway_data_dir("alerce-t2s-serve-load-") as data_dir:
                info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0))
                results = measure(info.reader_dsn, info.admin_dsn, args)
                if args.fair_rounds > 0:
                    results["fairness"] = measure_fairness(info.reader_dsn, info.admin_dsn, args)
    except EngineError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    keys = ("asks", "queries", "answer_s", "query_timeout_s", "max_s", "fair_rounds", "flood_threads")
    params = {key: getattr(args, key) for key in keys}
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
