"""Several web processes and workers on one state database, with a worker killed and a web process restarted.

A throwaway tiny embedded server holds the catalog and the workbench's state database. A fake model answers every
LM call after --lm-s seconds. Two runs, in this order:

1. baseline: 1 web process + 1 worker, --clients clients asking --questions questions and running --sql queries;
2. cluster: 2 web processes on one bound address + 2 workers, the same load; at half the questions one worker is
   killed with SIGKILL (and started again, as systemd's Restart=always would) and one web process is stopped and
   started again.

Each client is a page (its own session cookie) with an equal share of the questions and the queries, alternating: it
posts a question to /jobs and reads /jobs/ID/events until the ``done`` event, reconnecting to the address when a web
process goes away (any web process serves any job) or the stream stays silent for the request timeout, and runs SQL
through /api/run-sql (again on a dropped connection: reading is idempotent). Every question carries a unique tag;
after the run the state database tells, per tag, how many jobs and answers it has.

Reports per run: questions answered, failed, lost (no outcome: must be 0), run twice (a tag with two answers: must
be 0), question latency p50/p95, throughput (answered per second) and the cluster's against the baseline (at least
1.8), the catalog database's connections before the faults and after the run, and whether a page session opened
before the restart still lists its history after it; and where the time went (``where_time_went``: the wait in the
queue, the answering time, the share of the workers' slots busy; the killed worker's questions' wait to be answered
again, its replacement's time to its first question, the web process's time to stop). Bounded: every request has a
timeout and each run stops after --max-s seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from benchmarks.common import free_port, latency_summary_ms, package_versions, throwaway_data_dir

EXAMPLES = """examples:
  python -m benchmarks.serve_cluster                                   # the issue's load (200 + 200, 20 clients)
  python -m benchmarks.serve_cluster --questions 40 --sql 40 --clients 10 > serve_cluster.json

Prints one JSON object on stdout (progress on stderr); exit 0 done, 1 a process or database failed, 2 bad command
line."""

_FIELDS = {
    "tables": {"tables": ["object"]},
    "columns": {"columns": {"object": ["oid"]}},
    "difficulty": {"difficulty": "simple"},
    "explanation": {
        "summary": "The rows the query returns.",
        "conditions": ["each condition"],
        "ordering": "not ordered",
        "assumptions": [],
    },
}
_REQUEST_TIMEOUT_S = 120.0
_STATE_DATABASE = "serve_cluster_state"

logger = logging.getLogger("benchmarks.serve_cluster")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.serve_cluster",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--questions", type=int, default=200, help="questions per run (default: %(default)s)")
    parser.add_argument("--sql", type=int, default=200, help="SQL queries per run (default: %(default)s)")
    parser.add_argument("--clients", type=int, default=20, help="clients at once (default: %(default)s)")
    parser.add_argument("--lm-s", type=float, default=1.0, help="seconds per LM call (default: %(default)s)")
    parser.add_argument(
        "--worker-concurrency", type=int, default=4, help="questions per worker at once (default: %(default)s)"
    )
    parser.add_argument(
        "--stalled-after-s",
        type=float,
        default=10.0,
        help="heartbeat age after which a worker counts as dead (default: %(default)s)",
    )
    parser.add_argument("--max-s", type=float, default=600.0, help="longest run, in seconds (default: %(default)s)")
    parser.add_argument("--role", choices=["web", "worker"], help=argparse.SUPPRESS)
    parser.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)
    return parser


def slow_model(lm_s: float):
    """A fake LM that answers every call after `lm_s` seconds; its SQL reads the object table."""
    from lms.fake import fake_lm, render_answer

    def answer(call) -> str:
        time.sleep(lm_s)
        return render_answer(_FIELDS.get(call.stage, {"sql": "SELECT oid, ndet FROM object ORDER BY oid LIMIT 5"}))

    return fake_lm(answer)


def run_role(args: argparse.Namespace) -> int:
    """Be one web process (on the inherited socket) or one worker, as ``python -m serve web|worker`` is."""
    from serve.options import web_settings
    from serve.processes import build_web_parser, build_worker_parser, run_worker_command, serve_web

    lm = slow_model(args.lm_s)
    common = ["--model", "fake/slow", "-q"]
    if args.role == "worker":
        role_args = build_worker_parser().parse_args([*common, "--concurrency", str(args.worker_concurrency)])
        role_args.stalled_after_s = args.stalled_after_s
        return run_worker_command(role_args, lm)
    parser = build_web_parser()
    role_args = parser.parse_args(common)
    many = max(20, args.clients * 2)
    settings = web_settings(parser, role_args, max_queued=many, max_queued_per_client=many)
    return serve_web(role_args, settings, with_worker=False, listen_fd=args.listen_fd, lm=lm)


class Cluster:
    """The web processes (on one bound address) and the workers of one run."""

    def __init__(self, args: argparse.Namespace, env: dict[str, str]) -> None:
        self.args = args
        self.env = env
        self.listener = socket.create_server(("127.0.0.1", free_port()), backlog=2048)
        self.listener.set_inheritable(True)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.webs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []

    def _start(self, role: str) -> subprocess.Popen:
        command = [sys.executable, "-m", "benchmarks.serve_cluster", "--role", role, "--lm-s", str(self.args.lm_s)]
        command += ["--clients", str(self.args.clients), "--worker-concurrency", str(self.args.worker_concurrency)]
        command += ["--stalled-after-s", str(self.args.stalled_after_s)]
        fds: list[int] = []
        if role == "web":
            command += ["--listen-fd", str(self.listener.fileno())]
            fds = [self.listener.fileno()]
        return subprocess.Popen(command, env=self.env, pass_fds=fds)

    def start(self, webs: int, workers: int) -> None:
        self.webs = [self._start("web") for _ in range(webs)]
        self.workers = [self._start("worker") for _ in range(workers)]
        deadline = time.monotonic() + 120
        while True:
            try:
                health = httpx.get(f"{self.url}/api/health", timeout=5).json()
                if health.get("workers_alive", 0) >= workers and health["status"] == "ok":
                    return
            except httpx.HTTPError:
                pass
            for process in self.webs + self.workers:
                if process.poll() is not None:
                    raise RuntimeError(f"a {'web' if process in self.webs else 'worker'} process ended at start")
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not become healthy within 120 s")
            time.sleep(0.5)

    def kill_a_worker(self) -> dict:
        """SIGKILL the first worker and start another in its place (a supervisor's restart); return when (epoch
        seconds) and the names of both in the jobs table."""
        killed = self.workers[0]
        killed.send_signal(signal.SIGKILL)
        killed.wait(10)
        killed_at = time.time()
        self.workers[0] = self._start("worker")
        host = socket.gethostname()  # a worker's name is host:pid (serve.state.worker.worker_name)
        return {
            "killed_at": killed_at,
            "killed": f"{host}:{killed.pid}",
            "replacement": f"{host}:{self.workers[0].pid}",
        }

    def restart_a_web(self) -> float:
        """Stop the first web process (SIGTERM) and start it again; return the seconds it took to stop."""
        began = time.monotonic()
        self.webs[0].send_signal(signal.SIGTERM)
        try:
            self.webs[0].wait(20)
        except subprocess.TimeoutExpired:
            self.webs[0].kill()
        stopped_s = time.monotonic() - began
        self.webs[0] = self._start("web")
        return stopped_s

    def stop(self) -> None:
        for process in self.webs + self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.webs + self.workers:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        self.listener.close()


def _retrying(send, attempts: int = 30):
    """Send a request again while the address has no web process accepting (a restart), for up to ~30 s."""
    for attempt in range(attempts):
        try:
            return send()
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError):
            if attempt == attempts - 1:
                raise
            time.sleep(1.0)
    raise AssertionError("unreachable")


def ask(client: httpx.Client, question: str) -> tuple[str | None, dict | None]:
    """Post a question to /jobs and read its events until ``done`` (again when its web process went away or the
    stream stayed silent for the request timeout: reading is idempotent); return (job id, done event)."""
    started = client.post("/jobs", data={"question": question})  # not sent again: that could ask twice
    job_id = started.json()["job_id"]
    for _ in range(30):
        try:
            with client.stream("GET", f"/jobs/{job_id}/events") as stream:
                for line in stream.iter_lines():
                    if line.startswith("data: "):
                        event = json.loads(line[len("data: ") :])
                        if event.get("type") == "done":
                            return job_id, event
        except httpx.ReadTimeout:
            continue  # long in the queue, nothing to tell yet: read the events again
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError):
            time.sleep(1.0)  # its web process went away: any other serves the same job
    return job_id, None


def client_shares(questions: int, queries: int, clients: int, run: str) -> list[list[tuple[str, str]]]:
    """Each client's questions and SQL queries: equal shares (the remainders one more each to the first clients),
    a question then a query while both last, the same in every run."""
    asked = [("ask", f"[{run}-q{n}] Which objects have the most detections?") for n in range(questions)]
    ran = [("sql", f"SELECT count(*) AS n FROM object WHERE ndet > {n % 50}") for n in range(queries)]
    shares = []
    for index in range(clients):
        mine_asked, mine_ran = asked[index::clients], ran[index::clients]
        pairs = itertools.zip_longest(mine_asked, mine_ran)
        shares.append([item for pair in pairs for item in pair if item is not None])
    return shares


def run_load(cluster: Cluster, args: argparse.Namespace, run: str, *, faults: bool, connections) -> dict:
    """Drive one run's load on the cluster; inject the faults at half the questions when `faults`."""
    shares = client_shares(args.questions, args.sql, args.clients, run)
    lock = threading.Lock()
    outcome = {"answered": 0, "failed": 0, "no_outcome": 0, "submit_errors": 0, "sql_ok": 0, "sql_errors": 0}
    latencies: list[float] = []
    asked = threading.Event()
    progress = {"questions": 0}
    deadline = time.monotonic() + args.max_s

    def client_loop(share: list[tuple[str, str]]) -> None:
        with httpx.Client(base_url=cluster.url, timeout=_REQUEST_TIMEOUT_S) as client:
            _retrying(lambda: client.get("/"))
            for kind, text in share:
                if time.monotonic() > deadline:
                    return
                began = time.monotonic()
                if kind == "sql":
                    try:
                        ran = _retrying(lambda text=text: client.post("/api/run-sql", json={"sql": text}))
                        key = "sql_ok" if ran.status_code == 200 else "sql_errors"
                    except httpx.HTTPError:
                        key = "sql_errors"
                    with lock:
                        outcome[key] += 1
                    continue
                try:
                    _, done = ask(client, text)
                except (httpx.HTTPError, KeyError, ValueError):
                    with lock:
                        outcome["submit_errors"] += 1
                    continue
                with lock:
                    if done is None:
                        outcome["no_outcome"] += 1
                    elif done.get("error"):
                        outcome["failed"] += 1
                    else:
                        outcome["answered"] += 1
                        latencies.append(time.monotonic() - began)
                    progress["questions"] += 1
                    if progress["questions"] * 2 >= args.questions:
                        asked.set()
                    if progress["questions"] % 10 == 0:
                        print(f"{run}: {progress['questions']}/{args.questions} questions", file=sys.stderr)

    page = httpx.Client(base_url=cluster.url, timeout=_REQUEST_TIMEOUT_S)
    faults_report: dict = {}
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.clients) as pool:
        futures = [pool.submit(client_loop, share) for share in shares]
        if faults:
            _retrying(lambda: page.get("/"))
            _, before_restart = ask(page, f"[{run}-page] Where are the objects?")
        asked.wait(args.max_s)
        faults_report["catalog_connections_before"] = connections()
        if faults:
            faults_report["killed_worker"] = cluster.kill_a_worker()
            faults_report["web_stop_s"] = round(cluster.restart_a_web(), 1)
            faults_report["page_question_answered"] = bool(before_restart and not before_restart.get("error"))
        for future in futures:
            future.result()
    elapsed = time.monotonic() - started
    if faults:
        history = _retrying(lambda: page.get("/")).text
        links = history[history.index('<ul id="history-list">') :].split("</aside>")[0].count('<a href="/answers/')
        faults_report["page_history_after_restart"] = links
    page.close()
    return {
        **outcome,
        **faults_report,
        "elapsed_s": round(elapsed, 1),
        "latency_ms": latency_summary_ms(latencies),
        "throughput_per_s": round(outcome["answered"] / elapsed, 3) if elapsed else None,
    }


_TIMES_SQL = """
SELECT attempts, worker, extract(epoch FROM queued_at), extract(epoch FROM started_at), extract(epoch FROM finished_at)
FROM workbench.jobs WHERE question LIKE %s AND finished_at IS NOT NULL
"""


def where_time_went(rows: list[tuple], slots: int, killed: dict | None) -> dict:
    """From the jobs' times (attempts, worker, queued, started, finished; epoch seconds): the wait in the queue and
    the answering time of the questions answered at the first attempt, the share of the workers' slots busy
    answering from the first question queued to the last answered, and, after a worker was killed, how long its
    questions waited to be answered again and how long its replacement took to take its first question."""
    first = [row for row in rows if row[0] == 1]
    busy_s = sum(float(finished) - float(started) for *_, started, finished in rows)
    span_s = max(float(row[4]) for row in rows) - min(float(row[2]) for row in rows) if rows else 0.0
    report = {
        "queue_wait_ms": latency_summary_ms([float(started) - float(queued) for *_, queued, started, _ in first]),
        "answer_ms": latency_summary_ms([float(finished) - float(started) for *_, started, finished in first]),
        "slots_busy": round(busy_s / (slots * span_s), 3) if span_s else None,
    }
    if killed is not None:
        at = killed["killed_at"]
        retried = [float(started) - at for attempts, _, _, started, _ in rows if attempts > 1]
        replacement = [float(started) - at for _, worker, _, started, _ in rows if worker == killed["replacement"]]
        report["killed_worker"] = {
            "questions_answered_again": len(retried),
            "their_wait_s": sorted(round(wait, 1) for wait in retried),
            "replacement_first_question_s": round(min(replacement), 1) if replacement else None,
        }
    return report


def store_counts(store_dsn: str, run: str, *, slots: int, killed: dict | None = None) -> dict:
    """Per question tag of `run`: jobs and answers in the state database; lost and run twice; where the time went
    (``where_time_went``: `slots` questions answered at once, a worker `killed` as ``Cluster.kill_a_worker`` says)."""
    pattern = f"[{run}-q%"
    with psycopg.connect(store_dsn) as conn:
        jobs = dict(
            conn.execute(
                "SELECT status, count(*) FROM workbench.jobs WHERE question LIKE %s GROUP BY 1", (pattern,)
            ).fetchall()
        )
        retried = conn.execute(
            "SELECT count(*) FROM workbench.jobs WHERE question LIKE %s AND attempts > 1", (pattern,)
        ).fetchone()[0]
        times = conn.execute(_TIMES_SQL, (pattern,)).fetchall()
        twice = conn.execute(
            "SELECT count(*) FROM (SELECT record->'answer'->>'question' q FROM workbench.answers "
            "WHERE source = 'ask' AND record->'answer'->>'question' LIKE %s GROUP BY 1 HAVING count(*) > 1) t",
            (pattern,),
        ).fetchone()[0]
    open_jobs = jobs.get("queued", 0) + jobs.get("running", 0)
    counts = {"jobs_by_status": jobs, "retried": retried, "lost": open_jobs, "run_twice": twice}
    return counts | {"time": where_time_went(times, slots, killed)}


def catalog_connections(admin_dsn: str, database: str) -> int:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)).fetchone()[0]


def measure(reader_dsn: str, admin_dsn: str, args: argparse.Namespace) -> dict:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(_STATE_DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(_STATE_DATABASE)))
    store_dsn = make_conninfo(admin_dsn, dbname=_STATE_DATABASE)
    catalog = conninfo_to_dict(reader_dsn)["dbname"]
    key_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"serve-cluster-{os.getpid()}.key"
    env = os.environ | {
        "ALERCE_DSN": reader_dsn,
        "ALERCE_SERVE_STORE_DSN": store_dsn,
        "ALERCE_SERVE_SESSION_KEY_FILE": str(key_file),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    results = {}
    try:
        for run, webs, workers, faults in (("baseline", 1, 1, False), ("cluster", 2, 2, True)):
            print(f"{run}: {webs} web + {workers} workers", file=sys.stderr)
            cluster = Cluster(args, env)
            try:
                cluster.start(webs, workers)
                load = run_load(
                    cluster, args, run, faults=faults, connections=lambda: catalog_connections(admin_dsn, catalog)
                )
                before = load.pop("catalog_connections_before")
                killed = load.pop("killed_worker", None)
                time.sleep(2.0)
                after = catalog_connections(admin_dsn, catalog)
            finally:
                cluster.stop()
            results[run] = {
                "web_processes": webs,
                "workers": workers,
                **load,
                **store_counts(store_dsn, run, slots=workers * args.worker_concurrency, killed=killed),
                "catalog_connections": {"before": before, "after": after},
            }
    finally:
        key_file.unlink(missing_ok=True)
    base, cluster_run = results["baseline"]["throughput_per_s"], results["cluster"]["throughput_per_s"]
    results["throughput_ratio"] = round(cluster_run / base, 2) if base and cluster_run else None
    return results


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m benchmarks.serve_cluster``; return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    for name in ("questions", "sql", "clients", "worker_concurrency"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.role:
        return run_role(args)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    from db.server import ServerSettings, up

    try:
        with throwaway_data_dir("alerce-t2s-serve-cluster-") as data_dir:
            info = up(ServerSettings(data_dir=data_dir, port=free_port(), scale="tiny", seed=0))
            results = measure(info.reader_dsn, info.admin_dsn, args)
    except (RuntimeError, psycopg.Error, OSError) as err:
        print(f"error: {str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__}", file=sys.stderr)
        return 1
    params = {
        key: getattr(args, key)
        for key in ("questions", "sql", "clients", "lm_s", "worker_concurrency", "stalled_after_s", "max_s")
    }
    report = {
        "benchmark": "serve_cluster",
        "params": params,
        **results,
        "versions": package_versions("procrastinate", "uvicorn", "psycopg-pool"),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
