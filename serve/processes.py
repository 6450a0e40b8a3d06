"""``python -m serve web`` and ``python -m serve worker``, and the web server every form of ``python -m serve`` runs.

``web --workers N`` binds the address once and runs N web processes on it (the kernel spreads the connections),
restarting one that dies; they share sessions, answers and questions through the state database, so any of them
serves any page. A worker answers the questions of every web process, here or on another machine.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli import positive_float, positive_int
from lms import LOCAL_PREFIX
from serve.settings import ServeSettings
from serve.state.options import STALLED_AFTER_S, STORE_DSN_ENV, add_state_arguments, store_dsn

if TYPE_CHECKING:
    import dspy

__all__ = ["build_web_parser", "build_worker_parser", "main", "run_worker_command", "serve_web"]

logger = logging.getLogger(__name__)

_RESTART_PAUSE_S = 1.0
"""Wait before a web process that died is started again (a crash loop costs one start a second)."""
_STOP_GRACE_S = 15.0


def build_web_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m serve web``."""
    from serve.options import add_answer_arguments, add_web_arguments

    parser = argparse.ArgumentParser(
        prog="python -m serve web",
        description="Run the workbench's web server without a worker (start workers with `python -m serve worker`); "
        "--workers N runs N web processes on one address, sharing everything through the state database.",
        epilog="environment and exit codes: as `python -m serve --help`",
        allow_abbrev=False,
    )
    add_web_arguments(parser)
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help="web processes serving the address (default: %(default)s)",
    )
    parser.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)  # a web process of `--workers N`
    add_answer_arguments(parser)
    add_state_arguments(parser, session_key=True)
    return parser


def build_worker_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m serve worker``."""
    from serve.options import add_answer_arguments

    parser = argparse.ArgumentParser(
        prog="python -m serve worker",
        description="Answer the questions every web process queues in the state database (as many workers as you "
        "like, on this machine or others, with the same --store-dsn, model and engine). SIGTERM stops it after "
        "the questions it is answering; a worker killed outright has its questions answered again by another.",
        epilog=f"environment: {STORE_DSN_ENV} (--store-dsn), ALERCE_DSN, ALERCE_TAP_URL, provider API keys\n"
        "exit codes: 0 stopped, 1 the model, database or state database is unusable (one line on stderr),\n"
        "2 bad command line, 130 interrupted",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=ServeSettings.workers,
        metavar="N",
        help="questions answered at once (default: %(default)s; 1 for a local model)",
    )
    parser.add_argument(
        "--stalled-after-s",
        type=positive_float,
        default=STALLED_AFTER_S,
        metavar="SECONDS",
        help="heartbeat age after which this worker counts another as dead and answers its questions again "
        "(default: %(default)s; the same on every worker)",
    )
    add_answer_arguments(parser)
    add_state_arguments(parser, session_key=False)
    return parser


def main(command: str, argv: list[str]) -> int:
    """Run ``python -m serve web|worker ARGS``; return the exit code."""
    from cli import logging_to_stderr

    if command == "worker":
        args = build_worker_parser().parse_args(argv)
        with logging_to_stderr(args):
            return run_worker_command(args)
    parser = build_web_parser()
    args = parser.parse_args(argv)
    from serve.options import web_settings

    settings = web_settings(parser, args)
    with logging_to_stderr(args):
        if args.workers > 1:
            return _serve_processes(argv, args, settings)
        return serve_web(args, settings, with_worker=False, listen_fd=args.listen_fd)


def serve_web(
    args: argparse.Namespace,
    settings: ServeSettings,
    *,
    with_worker: bool,
    listen_fd: int | None = None,
    lm: dspy.LM | None = None,
) -> int:
    """Serve the page and the API on a shared workbench (with one worker thread when `with_worker`), answering with
    `lm` instead of ``--model``'s when given (benchmarks); return the exit code."""
    from serve.state.keys import session_key

    try:
        key = session_key(Path(args.session_key_file) if args.session_key_file else None)
    except (OSError, ValueError) as err:
        return _one_line(err)
    bench = _open(args, settings, key, lm)
    if isinstance(bench, int):
        return bench
    worker = None
    try:
        import uvicorn

        from serve.app import create_app
        from serve.connections import uvicorn_config

        if with_worker:
            from serve.state.worker import WorkerSettings, WorkerThread

            worker = WorkerThread(bench, WorkerSettings(concurrency=_concurrency(args, settings.workers)))
            worker.start()
        sockets = None if listen_fd is None else [socket.socket(fileno=listen_fd)]
        if listen_fd is None:
            print(f"workbench on http://{settings.host}:{settings.port}/ (Ctrl-C stops it)", file=sys.stderr)
        uvicorn.Server(uvicorn_config(create_app(bench), settings)).run(sockets=sockets)
    except KeyboardInterrupt:
        return 130
    finally:
        if worker is not None:
            worker.stop()
        bench.close()
    return 0


def run_worker_command(args: argparse.Namespace, lm: dspy.LM | None = None) -> int:
    """Answer questions as ``python -m serve worker`` does (with `lm` instead of ``--model``'s when given); return
    the exit code."""
    from serve.state.worker import WorkerSettings, run_worker

    concurrency = _concurrency(args, args.concurrency)
    bench = _open(args, ServeSettings(workers=concurrency), None, lm)
    if isinstance(bench, int):
        return bench
    try:
        run_worker(bench, WorkerSettings(concurrency=concurrency, stalled_after_s=args.stalled_after_s))
    except KeyboardInterrupt:
        return 130
    finally:
        bench.close()
    return 0


def _concurrency(args: argparse.Namespace, wanted: int) -> int:
    return 1 if args.model.startswith(LOCAL_PREFIX) else wanted  # one local model answers one question at a time


def _open(args: argparse.Namespace, settings: ServeSettings, key: bytes | None, lm: dspy.LM | None) -> Any:
    """The shared workbench, or exit code 1 after one line saying why it cannot be opened."""
    import psycopg
    from psycopg_pool import PoolTimeout

    from db.errors import ServerError
    from engines.errors import EngineError
    from lms import LMConfigError
    from modules.errors import PipelineError
    from serve.options import answer_settings
    from serve.state.shared import open_shared_workbench

    try:
        program, engine = answer_settings(args)
        return open_shared_workbench(
            args.model, settings, program=program, engine=engine, store_dsn=store_dsn(args), session_key=key, lm=lm
        )
    except (LMConfigError, PipelineError, EngineError, ServerError) as err:
        return _one_line(err)
    except (psycopg.Error, PoolTimeout, RuntimeError) as err:
        return _one_line(f"the state database cannot be used: {err}")


def _one_line(err: object) -> int:
    print(f"error: {(str(err).strip().splitlines() or [type(err).__name__])[0]}", file=sys.stderr)
    return 1


def _serve_processes(argv: list[str], args: argparse.Namespace, settings: ServeSettings) -> int:
    """Bind the address, run `--workers` web processes on it and start again any that dies, until SIGINT/SIGTERM."""
    from db.state_database import embedded_state_dsn
    from serve.state.keys import session_key
    from serve.state.migrations import migrate

    try:
        session_key(Path(args.session_key_file) if args.session_key_file else None)  # made once, before the others
        dsn = store_dsn(args) or embedded_state_dsn()
        migrate(dsn)
        family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
        listener = socket.create_server((settings.host, settings.port), family=family, backlog=2048)
    except Exception as err:  # the key, the store or the address is unusable: one line, like the other commands
        return _one_line(err)
    listener.set_inheritable(True)
    env = os.environ | {STORE_DSN_ENV: dsn}  # never on a command line, where ps would show its password
    command = [sys.executable, "-m", "serve", "web", *argv, "--workers", "1", "--listen-fd", str(listener.fileno())]
    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    def start() -> subprocess.Popen:
        return subprocess.Popen(command, pass_fds=[listener.fileno()], env=env)

    processes = [start() for _ in range(args.workers)]
    print(
        f"workbench on http://{settings.host}:{settings.port}/ with {args.workers} web processes "
        f"(pids {' '.join(str(p.pid) for p in processes)}; Ctrl-C stops them)",
        file=sys.stderr,
    )
    try:
        while not stopping:
            time.sleep(0.2)
            for index, process in enumerate(processes):
                if process.poll() is not None and not stopping:
                    logger.warning("web process %d ended (code %s); starting another", process.pid, process.returncode)
                    time.sleep(_RESTART_PAUSE_S)
                    processes[index] = start()
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + _STOP_GRACE_S
        for process in processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        listener.close()
    return 130 if signal.SIGINT in stopping else 0
