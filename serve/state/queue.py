"""Questions as jobs on procrastinate (a PostgreSQL queue): submit from any web process, answer in any worker.

Each question is a row of ``workbench.jobs`` (what was asked, by whom, how it ended, its attempts) and a procrastinate
job naming it, inserted in one transaction: a question the web process acknowledged is in the queue.

Workers take the questions in turns, as a round-robin over the clients would (fair shares across all workers): a
question's turn is the turn being served when it arrives (the lowest turn waiting), or one after its client's
latest open question when that is later. A client with many questions queued thus lets every other client's next
question go ahead, and a client's own questions keep the order it asked them in, whatever was answered in between.
The turn is procrastinate's priority (negated: it takes the highest priority first, the oldest among equals).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from procrastinate import App, PsycopgConnector, jobs
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from serve.errors import TooManyQuestionsError, WorkbenchError

__all__ = [
    "MAX_ATTEMPTS",
    "QUEUE_NAME",
    "TASK_NAME",
    "QuestionQueue",
    "SharedJob",
    "add_event",
    "queue_app",
]

QUEUE_NAME = "questions"
TASK_NAME = "workbench.answer"
MAX_ATTEMPTS = 2
"""A question whose worker died is answered once more; a second death fails it with one line."""
_LOWEST_PRIORITY = -(2**31 - 1)
"""procrastinate's priority is a PostgreSQL integer; turns restart from 0 whenever no question is open."""
_EVENTS_EVERY_S = 0.2
"""Shortest time between two reads of a job's events from the database."""
_OPEN_SQL = """
SELECT count(*) FILTER (WHERE client = %s), count(*), max(turn) FILTER (WHERE client = %s),
       coalesce(min(turn) FILTER (WHERE status = 'queued'), max(turn), 0)
FROM workbench.jobs WHERE status IN ('queued', 'running')
"""
"""The client's open questions, everyone's, the client's latest turn, and the turn being served (the lowest
waiting, else the latest being answered)."""


def queue_app(dsn: str) -> App:
    """A procrastinate app on the state database (its schema is installed by ``serve.state.migrations``)."""
    return App(connector=PsycopgConnector(conninfo=dsn))


def add_event(conn: Any, job_id: str, event: dict[str, Any]) -> None:
    """Append one event to a job's log."""
    conn.execute(
        "INSERT INTO workbench.job_events (job_id, event) VALUES (%s, %s)",
        (job_id, Jsonb(event)),
    )


class SharedJob:
    """A question in the state database as ``serve.jobs.Job`` shows one: its events so far and how it ended.

    The events are read again at most every ``_EVENTS_EVERY_S``; the job has ended once its ``done`` event is in.
    """

    def __init__(self, pool: ConnectionPool, job_id: str) -> None:
        self.pool = pool
        self.id = job_id
        self._events: list[dict[str, Any]] = []
        self._last_seq = 0
        self._read_at = 0.0

    @property
    def events(self) -> list[dict[str, Any]]:
        """The events so far (read again when the last read is older than a fraction of a second)."""
        if not self.is_finished and time.monotonic() - self._read_at >= _EVENTS_EVERY_S:
            self._read()
        return self._events

    @property
    def is_finished(self) -> bool:
        """Tell whether the job's ``done`` event has been read."""
        return bool(self._events) and self._events[-1].get("type") == "done"

    @property
    def answer_id(self) -> str | None:
        """The answer's id once answered, else None."""
        return self._events[-1].get("answer_id") if self.is_finished else None

    @property
    def error(self) -> str | None:
        """Why the job failed, in one line, or None."""
        return self._events[-1].get("error") if self.is_finished else None

    @property
    def failure(self) -> WorkbenchError | None:
        """The failure as the workbench raises it, or None."""
        if not self.is_finished or self.error is None:
            return None
        failure = WorkbenchError(self.error)
        failure.kind = self._events[-1].get("kind") or failure.kind
        failure.status = self._events[-1].get("status") or failure.status
        return failure

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the job ends; False if `timeout_s` passed first."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not self.is_finished:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(_EVENTS_EVERY_S)
            self._read()
        return True

    async def finished(self) -> None:
        """Wait until the job ends without holding a thread for long."""
        while not self.is_finished:
            await asyncio.sleep(_EVENTS_EVERY_S)
            await asyncio.to_thread(self._read)

    def _read(self) -> None:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT seq, event FROM workbench.job_events WHERE job_id = %s AND seq > %s ORDER BY seq",
                (self.id, self._last_seq),
            ).fetchall()
        for seq, event in rows:
            self._events.append(event)
            self._last_seq = seq
        self._read_at = time.monotonic()


class QuestionQueue:
    """The questions waiting or being answered, from every web process, capped in all and per client."""

    one_at_a_time = False

    def __init__(self, pool: ConnectionPool, app: App, *, max_jobs: int, max_jobs_per_client: int) -> None:
        self.pool = pool
        self.app = app
        self.max_jobs = max_jobs
        self.max_jobs_per_client = max_jobs_per_client

    @property
    def length(self) -> int:
        """Questions waiting or being answered, in all."""
        with self.pool.connection() as conn:
            return conn.execute("SELECT count(*) FROM workbench.jobs WHERE status IN ('queued', 'running')").fetchone()[
                0
            ]

    def submit(
        self,
        *,
        client: str,
        session: str | None,
        question: str,
        knowledge: str,
        follows: str | None,
        targets: dict[str, Any] | None = None,
    ) -> str:
        """Queue a question (with the target list it is about, as ``TargetList.to_json`` gives it) and return its
        job id.

        Raises:
            TooManyQuestionsError: The client, or all clients together, have as many questions open as allowed.
        """
        job_id = secrets.token_urlsafe(16)
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('workbench.jobs'))")  # caps hold across processes
            mine, everyone, last_turn, serving = conn.execute(_OPEN_SQL, (client, client)).fetchone()
            if mine >= self.max_jobs_per_client or everyone >= self.max_jobs:
                who = f"you have {mine}" if mine >= self.max_jobs_per_client else f"{everyone} are"
                raise TooManyQuestionsError(
                    f"too many questions waiting ({who} in the queue); ask again when one is answered",
                    retry_after_s=10,
                )
            turn = serving if last_turn is None else max(serving, last_turn + 1)
            carried = None if targets is None else Jsonb(targets)
            conn.execute(
                "INSERT INTO workbench.jobs (id, client, session, question, knowledge, follows, turn, targets) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (job_id, client, session, question, knowledge, follows, turn, carried),
            )
            job = jobs.Job(
                id=None,
                queue=QUEUE_NAME,
                lock=None,
                queueing_lock=None,
                task_name=TASK_NAME,
                priority=max(_LOWEST_PRIORITY, -turn),
                task_kwargs={"job_id": job_id},
            )
            self.app.job_manager.defer_job(job, connection=conn)
        return job_id
