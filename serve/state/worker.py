"""Workers: procrastinate workers that answer the questions of the state database with a shared workbench.

Every worker beats its heartbeat every few seconds and, every few seconds too, hands the jobs of workers whose
heartbeat stopped (killed, machine gone) back to the queue. The job itself counts its attempts
(``SharedWorkbench.work_on``): a question is answered again once, with a ``retry`` event, then failed with one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
from dataclasses import dataclass

from procrastinate import App

from serve.state.queue import QUEUE_NAME, TASK_NAME, queue_app
from serve.state.shared import STALLED_AFTER_S, SharedWorkbench

__all__ = ["WorkerSettings", "WorkerThread", "run_worker", "worker_name"]

logger = logging.getLogger(__name__)


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


async def _requeue_stalled(app: App, settings: WorkerSettings) -> None:
    """Put the jobs of dead workers back in the queue, forever (cancelled with the worker)."""
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
    async with app.open_async():
        requeue = asyncio.create_task(_requeue_stalled(app, settings))
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
