"""Questions in flight: their event logs, read by the page's stream, and the queue of a one-at-a-time model."""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["AnswerQueue", "Job"]


@dataclasses.dataclass
class Job:
    """One question being answered: events so far (appended by the worker thread), and how it ended."""

    question: str
    id: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(12))
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    answer_id: str | None = None
    error: str | None = None
    _finished: threading.Event = dataclasses.field(default_factory=threading.Event, repr=False)

    def emit(self, event: dict[str, Any]) -> None:
        """Append an event (thread-safe: list appends are atomic)."""
        self.events.append(event)

    def finish(self, *, answer_id: str | None = None, error: str | None = None) -> None:
        """Record the outcome and wake whoever waits for it."""
        self.answer_id, self.error = answer_id, error
        self.emit({"type": "done", "answer_id": answer_id, "error": error})
        self._finished.set()

    @property
    def is_finished(self) -> bool:
        """Tell whether the job has ended."""
        return self._finished.is_set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the job ends; False if `timeout_s` passed first."""
        return self._finished.wait(timeout_s)


class AnswerQueue:
    """Let one job at a time through when `one_at_a_time`, telling each waiting job its place in the queue.

    A job joins when it is submitted, so it learns its place even before a worker thread picks it up; every change
    of the queue tells the waiting jobs whose place moved (``{"type": "queue", "position": jobs ahead}``).
    """

    def __init__(self, *, one_at_a_time: bool) -> None:
        self.one_at_a_time = one_at_a_time
        self._changed = threading.Condition()
        self._waiting: list[Job] = []
        self._told: dict[str, int] = {}
        self._running = 0

    @property
    def length(self) -> int:
        """Jobs waiting or running."""
        with self._changed:
            return len(self._waiting) + self._running

    def join(self, job: Job) -> None:
        """Put `job` at the end of the queue."""
        with self._changed:
            self._waiting.append(job)
            self._announce()

    @contextmanager
    def turn(self, job: Job) -> Iterator[None]:
        """Wait until `job` (which joined) may run, then hold its turn for the block."""
        with self._changed:
            while self.one_at_a_time and (self._running or self._waiting[0] is not job):
                self._changed.wait()
            self._waiting.remove(job)
            self._told.pop(job.id, None)
            self._running += 1
            self._announce()
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._announce()
                self._changed.notify_all()

    def _announce(self) -> None:
        if not self.one_at_a_time:
            return
        for index, job in enumerate(self._waiting):
            position = index + self._running
            if position and self._told.get(job.id) != position:
                job.emit({"type": "queue", "position": position})
                self._told[job.id] = position
