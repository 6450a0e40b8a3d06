"""Workers: procrastinate workers that answer the questions of the state database with a shared workbench.

Every worker holds an advisory lock of its name on a connection of its own for as long as it lives, and beats its
heartbeat every few seconds. Every second it hands back to the queue the questions being answered by a worker whose
lock is free (killed: PostgreSQL drops its connection, and the lock, at once), and every few seconds the jobs of
workers whose heartbeat stopped (a machine gone without closing its connections). The job itself counts its
attempts (``SharedWorkbench.work_on``): a question is answered again once, with a ``retry`` event, then failed with
one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
from dataclasses import dataclass

import psycopg
from procrastinate import App

from serve.state.queue import QUEUE_NAME, TASK_NAME, queue_app
from serve.state.shared import STALLED_AFTER_S, SharedWorkbench

__all__ = ["WorkerSettings", "WorkerThread", "requeue_dead_workers_jobs", "run_worker", "worker_name"]

logger = logging.getLogger(__name__)

_ALIVE_LOCK = 7_310_032
"""Advisory lock namespace of the workers' names (any number, the same in every process)."""
_ALIVE_EVERY_S = 1.0
"""Seconds between two looks for the questions of workers whose lock is free."""
_DEAD_WORKERS_SQL = """
SELECT p.id, w.id, w.worker FROM procrastinate_jobs p JOIN workbench.jobs w ON w.id = p.args->>'job_id'
WHERE p.queue_name = %s AND p.status = 'doing' AND w.status = 'running' AND w.worker <> %s
  AND pg_try_advisory_xact_lock(%s, hashtext(w.worker))
FOR UPDATE OF p, w SKIP LOCKED
"""
"""The questions being answered by another worker whose lock nobody holds: it is dead (taking the lock here holds
it until the end of this transaction only)."""


@dataclass(frozen=True, kw_only=True)
class WorkerSettings:
    """How one worker runs.

    Attributes:
        concurrency: Questions it answers at once (threads).
        stalled_after_s: Age of a heartbeat after which its worker counts as dead.
        name: Its name in the queue's tables and logs.
    """

    concurrency: int = 4
    stalled_after_s: float = STALLED_AFTER_S
    name: str = ""

    @property
    def heartbeat_s(self) -> float:
        """Seconds between heartbeats (several per stall window)."""
        return max(0.5, self.stalled_after_s / 5)


def worker_name() -> str:
    """``host:pid``, to tell workers apart in the jobs table."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _app_for(bench: SharedWorkbench, name: str) -> App:
    app = queue_app(bench.store_dsn)

    @app.task(name=TASK_NAME, queue=QUEUE_NAME)
    def answer(job_id: str) -> None:
        bench.work_on(job_id, name)

    return app


async def _hold_alive_lock(dsn: str, name: str) -> psycopg.AsyncConnection:
    """A connection holding the advisory lock of `name`: while it is open, every worker knows this one is alive
    (shared: workers of one name, threads of one process, all hold it)."""
    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    await conn.execute("SELECT pg_advisory_lock_shared(%s, hashtext(%s))", (_ALIVE_LOCK, name))
    return conn


def requeue_dead_workers_jobs(bench: SharedWorkbench, name: str) -> int:
    """Hand back to the queue, in one transaction each, the questions of workers whose lock is free; return how
    many. The question is marked queued again, so that no later look takes its next worker for the dead one."""
    with bench.pool.connection() as conn, conn.transaction():
        dead = conn.execute(_DEAD_WORKERS_SQL, (QUEUE_NAME, name, _ALIVE_LOCK)).fetchall()
        for queue_id, job_id, worker in dead:
            conn.execute("SELECT procrastinate_retry_job_v2(%s, NULL, NULL, NULL, NULL)", (queue_id,))
            conn.execute("UPDATE workbench.jobs SET status = 'queued', worker = NULL WHERE id = %s", (job_id,))
            logger.warning("question %s of stopped worker %s goes back to the queue", job_id, worker)
    return len(dead)


async def _requeue_dead(bench: SharedWorkbench, name: str, alive: list[psycopg.AsyncConnection]) -> None:
    """Every second, hand back the questions of workers whose lock is free, keeping this worker's own lock (taken
    again after the store restarted), forever (cancelled with the worker)."""
    while True:
        await asyncio.sleep(_ALIVE_EVERY_S)
        try:
            if alive[0].closed or alive[0].broken:
                alive[0] = await _hold_alive_lock(bench.store_dsn, name)
            await alive[0].execute("SELECT 1")  # a connection the store dropped shows as broken only when used
            await asyncio.to_thread(requeue_dead_workers_jobs, bench, name)
        except Exception as err:  # the store is down for a moment: try again in a second
            logger.warning("cannot look for stopped workers: %s", err)


async def _requeue_stalled(app: App, settings: WorkerSettings) -> None:
    """Put the jobs of workers whose heartbeat stopped back in the queue, forever (cancelled with the worker)."""
    while True:
        await asyncio.sleep(settings.heartbeat_s)
        try:
            stalled = await app.job_manager.get_stalled_jobs(
                queue=QUEUE_NAME, seconds_since_heartbeat=settings.stalled_after_s
            )
            for job in stalled:
                with contextlib.suppress(Exception):  # another worker handed it back first
                    await app.job_manager.retry_job(job)
                    logger.warning("job %s of a stopped worker goes back to the queue", job.task_kwargs)
            await app.job_manager.prune_stalled_workers(settings.stalled_after_s)
        except Exception as err:  # the store is down for a moment: try again at the next beat
            logger.warning("cannot look for stalled jobs: %s", err)


async def _work(bench: SharedWorkbench, settings: WorkerSettings, *, in_main_thread: bool) -> None:
    name = settings.name or worker_name()
    app = _app_for(bench, name)
    alive = [await _hold_alive_lock(bench.store_dsn, name)]  # before the first question is taken
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(lambda: alive[0].close())
        await stack.enter_async_context(app.open_async())
        requeue = asyncio.create_task(_requeue_stalled(app, settings))
        requeue_dead = asyncio.create_task(_requeue_dead(bench, name, alive))
        try:
            await app.run_worker_async(
                queues=[QUEUE_NAME],
                name=name,
                concurrency=settings.concurrency,
                update_heartbeat_interval=settings.heartbeat_s,
                stalled_worker_timeout=settings.stalled_after_s,
                delete_jobs="successful",
                fetch_job_polling_interval=1.0,  # a missed NOTIFY costs at most a second
                install_signal_handlers=in_main_thread,
            )
        finally:
            requeue.cancel()
            requeue_dead.cancel()


def run_worker(bench: SharedWorkbench, settings: WorkerSettings) -> None:
    """Answer questions until SIGINT or SIGTERM (the questions being answered end first)."""
    asyncio.run(_work(bench, settings, in_main_thread=True))


class WorkerThread(threading.Thread):
    """A worker in a thread of the web process (``python -m serve``: the web server and one worker together)."""

    def __init__(self, bench: SharedWorkbench, settings: WorkerSettings) -> None:
        super().__init__(name="workbench-worker", daemon=True)
        self.bench = bench
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None

    def run(self) -> None:
        """Run the worker's event loop until ``stop``."""
        self._loop = asyncio.new_event_loop()
        self._task = self._loop.create_task(_work(self.bench, self.settings, in_main_thread=False))
        with contextlib.suppress(asyncio.CancelledError):
            self._loop.run_until_complete(self._task)
        self._loop.close()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Cancel the worker and wait for its thread."""
        if self._loop is not None and self._task is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._task.cancel)
        self.join(timeout_s)
