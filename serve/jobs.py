"""Questions in flight: their event logs, read by the page's stream, and the queue that caps and orders them."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from serve.errors import TooManyQuestionsError, WorkbenchError

__all__ = ["AnswerQueue", "Job"]

_FIRST_GUESS_S = 10.0
"""Time one question takes, guessed until one has been answered (for Retry-After)."""


@dataclasses.dataclass
class Job:
    """One question being answered: events so far (appended by the worker thread), and how it ended."""

    question: str
    client: str = ""
    id: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(16))
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    answer_id: str | None = None
    failure: WorkbenchError | None = None
    _finished: threading.Event = dataclasses.field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)
    _wakers: list[Callable[[], None]] = dataclasses.field(default_factory=list, repr=False)

    @property
    def error(self) -> str | None:
        """Why the job failed, in one line, or None."""
        return None if self.failure is None else str(self.failure)

    def emit(self, event: dict[str, Any]) -> None:
        """Append an event (thread-safe: list appends are atomic)."""
        self.events.append(event)

    def finish(self, *, answer_id: str | None = None, failure: WorkbenchError | None = None) -> None:
        """Record the outcome and wake whoever waits for it."""
        self.answer_id, self.failure = answer_id, failure
        self.emit({"type": "done", "answer_id": answer_id, "error": self.error})
        with self._lock:
            self._finished.set()
            wakers, self._wakers = self._wakers, []
        for wake in wakers:
            wake()

    @property
    def is_finished(self) -> bool:
        """Tell whether the job has ended."""
        return self._finished.is_set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the job ends; False if `timeout_s` passed first."""
        return self._finished.wait(timeout_s)

    async def finished(self) -> None:
        """Wait until the job ends without holding a thread (the worker wakes the event loop)."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        with self._lock:
            if self._finished.is_set():
                return
            self._wakers.append(lambda: _wake(loop, done))
        await done


def _wake(loop: asyncio.AbstractEventLoop, future: asyncio.Future) -> None:
    """Resolve `future` in its loop's thread; a loop already closed (the server stopped) has nobody to wake."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_resolve, future)


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


class AnswerQueue:
    """Take at most `max_jobs` questions (`max_jobs_per_client` from one client) waiting or running; when
    `one_at_a_time`, let one through at a time and tell each waiting job its place.

    A job joins when it is submitted, so it learns its place even before a worker thread picks it up; every change
    of the queue tells the waiting jobs whose place moved (``{"type": "queue", "position": jobs ahead}``).
    """

    def __init__(self, *, one_at_a_time: bool, max_jobs: int, max_jobs_per_client: int) -> None:
        self.one_at_a_time = one_at_a_time
        self.max_jobs = max_jobs
        self.max_jobs_per_client = max_jobs_per_client
        self._changed = threading.Condition()
        self._waiting: list[Job] = []
        self._told: dict[str, int] = {}
        self._running = 0
        self._per_client: collections.Counter[str] = collections.Counter()
        self._mean_s = _FIRST_GUESS_S

    @property
    def length(self) -> int:
        """Jobs waiting or running."""
        with self._changed:
            return len(self._waiting) + self._running

    def join(self, job: Job) -> None:
        """Put `job` at the end of the queue.

        Raises:
            TooManyQuestionsError: Its client, or all clients together, have as many jobs as the queue takes.
        """
        with self._changed:
            mine, everyone = self._per_client[job.client], len(self._waiting) + self._running
            if mine >= self.max_jobs_per_client or everyone >= self.max_jobs:
                who = f"you have {mine}" if mine >= self.max_jobs_per_client else f"{everyone} are"
                raise TooManyQuestionsError(
                    f"too many questions waiting ({who} in the queue); ask again when one is answered",
                    retry_after_s=self._retry_after_s(everyone),
                )
            self._per_client[job.client] += 1
            self._waiting.append(job)
            self._announce()

    @contextmanager
    def turn(self, job: Job) -> Iterator[None]:
        """Wait until `job` (which joined) may run, then hold its turn for the block; the job leaves the queue after."""
        with self._changed:
            while self.one_at_a_time and (self._running or self._waiting[0] is not job):
                self._changed.wait()
            self._waiting.remove(job)
            self._told.pop(job.id, None)
            self._running += 1
            self._announce()
        started = time.monotonic()
        try:
            yield
        finally:
            with self._changed:
                self._mean_s = 0.8 * self._mean_s + 0.2 * (time.monotonic() - started)
                self._running -= 1
                self._leave(job)
                self._announce()
                self._changed.notify_all()

    def _leave(self, job: Job) -> None:
        self._per_client[job.client] -= 1
        if self._per_client[job.client] <= 0:
            del self._per_client[job.client]

    def _retry_after_s(self, jobs: int) -> int:
        ahead = jobs if self.one_at_a_time else 1
        return max(1, math.ceil(self._mean_s * ahead))

    def _announce(self) -> None:
        if not self.one_at_a_time:
            return
        for index, job in enumerate(self._waiting):
            position = index + self._running
            if position and self._told.get(job.id) != position:
                job.emit({"type": "queue", "position": position})
                self._told[job.id] = position
