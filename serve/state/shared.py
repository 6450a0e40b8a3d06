"""A workbench whose state and questions live in PostgreSQL: any web process takes a question, any worker answers it.

``SharedWorkbench`` keeps ``serve.workbench.Workbench``'s interface (the page, the API and the MCP server use it
unchanged); its store is ``PgAnswerStore`` and its queue ``QuestionQueue``. ``work_on`` is what a worker runs for
one job: it counts the attempt first, so a question whose worker died is answered again at most once, and says so.
"""

from __future__ import annotations

import logging
from typing import Any

import dspy
from psycopg_pool import ConnectionPool

from answering import load
from answering.api import ask_defaults
from answering.question import Question
from db.engine import open_engine
from db.state_database import embedded_state_dsn
from engines import EngineSettings
from engines.targets import TargetList
from modules.settings import ProgramSettings
from serve.errors import WorkbenchError, failure_of
from serve.gate import CLIENT, gated
from serve.progress import StageReporter
from serve.settings import ServeSettings
from serve.state.migrations import migrate
from serve.state.options import STALLED_AFTER_S
from serve.state.pg_store import PgAnswerStore, open_store_pool
from serve.state.queue import MAX_ATTEMPTS, QuestionQueue, SharedJob, add_event, queue_app
from serve.state.timings import StageClock, record_seconds
from serve.store import Record
from serve.workbench import Workbench

__all__ = ["STALLED_AFTER_S", "SharedWorkbench", "open_shared_workbench"]

logger = logging.getLogger(__name__)


_CLAIM_SQL = """
UPDATE workbench.jobs SET status = 'running', attempts = attempts + 1, worker = %s, started_at = now()
WHERE id = %s AND status IN ('queued', 'running')
RETURNING attempts, client, session, question, knowledge, follows, extract(epoch FROM now() - queued_at), targets
"""
_WORKERS_ALIVE_SQL = (
    "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat > now() - make_interval(secs => %s)"
)
_FINISH_SQL = """
UPDATE workbench.jobs SET status = %s, answer_id = %s, error = %s, finished_at = now()
WHERE id = %s AND attempts = %s AND status = 'running'
"""


class SharedWorkbench(Workbench):
    """A workbench on a state database shared by every web process and worker (thread-safe)."""

    def __init__(
        self,
        t2s: Any,
        settings: ServeSettings,
        *,
        model: str,
        pool: ConnectionPool,
        dsn: str,
        session_key: bytes | None,
    ) -> None:
        super().__init__(t2s, settings, model=model)
        self.pool = pool
        self.store_dsn = dsn
        self.session_key = session_key
        self.store = PgAnswerStore(
            pool,
            max_bytes=settings.max_kept_bytes,
            max_rows_bytes=settings.max_response_bytes,
            max_history=settings.max_history,
            engine=self.engine,
        )
        self.queue_app = queue_app(dsn)
        self.queue = QuestionQueue(
            pool, self.queue_app, max_jobs=settings.max_queued, max_jobs_per_client=settings.max_queued_per_client
        )

    def _submit(self, question: Question, session: str | None, earlier: Record | None, joins: bool) -> SharedJob:
        """Queue a checked question in the state database; any worker answers it.

        The target list a question is about travels with it (within the workbench's byte caps, checked already).
        """
        job_id = self.queue.submit(
            client=CLIENT.get(),
            session=session,
            question=question.text,
            knowledge=question.external_knowledge,
            follows=earlier.id if joins else None,  # a page link alone starts a question of its own
            targets=None if question.targets is None else question.targets.to_json(),
        )
        return SharedJob(self.pool, job_id)

    def find_job(self, job_id: str) -> SharedJob | None:
        """The question `job_id`, asked through any web process, or None."""
        with self.pool.connection() as conn:
            found = conn.execute("SELECT 1 FROM workbench.jobs WHERE id = %s", (job_id,)).fetchone()
        return None if found is None else SharedJob(self.pool, job_id)

    def state_health(self) -> dict[str, Any]:
        """The store and the queue apart: whether the store answers, the questions open, the workers alive."""
        try:
            with self.pool.connection(timeout=5) as conn:
                depth, running = conn.execute(
                    "SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'running') "
                    "FROM workbench.jobs WHERE status IN ('queued', 'running')"
                ).fetchone()
                alive = conn.execute(_WORKERS_ALIVE_SQL, (STALLED_AFTER_S,)).fetchone()[0]
        except Exception as err:  # the store is down: say so, apart from the engine
            return {"store": "unavailable", "store_error": f"{type(err).__name__}: {err}".splitlines()[0]}
        return {"store": "ok", "store_error": None, "queue_depth": depth, "running": running, "workers_alive": alive}

    def work_on(self, job_id: str, worker: str) -> None:
        """Answer job `job_id` as `worker`: count the attempt, answer, keep the answer and end the job.

        A third attempt (its worker died twice) fails the job with one line instead of answering.
        """
        with self.pool.connection() as conn, conn.transaction():
            claimed = conn.execute(_CLAIM_SQL, (worker, job_id)).fetchone()
            if claimed is None:
                return  # ended already (a late duplicate delivery)
            attempt, client, session, question, knowledge, follows, waited_s, targets = claimed
            if attempt > MAX_ATTEMPTS:
                line = f"the worker answering this question stopped {attempt - 1} times; ask it again"
                self._end(conn, job_id, attempt, failure=WorkbenchError(line))
                return
            if attempt > 1:
                add_event(
                    conn,
                    job_id,
                    {
                        "type": "retry",
                        "attempt": attempt,
                        "detail": f"its worker stopped; answering it again (attempt {attempt} of {MAX_ATTEMPTS})",
                    },
                )
            add_event(conn, job_id, {"type": "started"})
            record_seconds(conn, [("queue_wait", float(waited_s))])
        CLIENT.set(client)  # the answer's queries count for the asker
        clock = StageClock()
        try:
            earlier = self.record(follows) if follows else None
            asked = Question(question, knowledge, targets=None if targets is None else TargetList.of_json(targets))
            answer = self._answer_question(job_id, asked, earlier, clock)
            record = self._priced(answer, earlier, earlier is not None)  # a stored follow-up always joins
            self.store.keep(record, session)
        except Exception as err:  # every failure, a bug included, must end the job: someone waits for it
            with self.pool.connection() as conn, conn.transaction():
                record_seconds(conn, clock.seconds)
                self._end(conn, job_id, attempt, failure=failure_of(err))
            return
        with self.pool.connection() as conn, conn.transaction():
            record_seconds(conn, clock.seconds)
            self._end(conn, job_id, attempt, answer_id=record.id)

    def close(self) -> None:
        """Close the engine, the worker threads and the store's connections."""
        super().close()
        self.pool.close()

    def _answer_question(self, job_id: str, checked: Question, earlier: Record | None, clock: StageClock):
        def emit(event: dict[str, Any]) -> None:
            clock.see(event)
            with self.pool.connection() as conn:
                add_event(conn, job_id, event)

        if earlier is not None:
            checked = checked.following(earlier.answer, self.t2s.catalog)
        with dspy.context(callbacks=[StageReporter(self._stages, emit)]):
            return self.t2s.answer(checked)

    @staticmethod
    def _end(conn: Any, job_id: str, attempt: int, *, answer_id: str | None = None, failure: Any = None) -> None:
        """End the job if this attempt still holds it, with its ``done`` event in the same transaction."""
        error = None if failure is None else str(failure)
        status = "failed" if failure is not None else "done"
        ended = conn.execute(_FINISH_SQL, (status, answer_id, error, job_id, attempt)).rowcount
        if not ended:
            logger.warning("job %s was taken over by a later attempt; attempt %d's outcome is dropped", job_id, attempt)
            return
        done = {"type": "done", "answer_id": answer_id, "error": error}
        if failure is not None:
            done |= {"kind": failure.kind, "status": failure.status}
        add_event(conn, job_id, done)


def open_shared_workbench(
    model: str,
    settings: ServeSettings,
    *,
    program: ProgramSettings,
    engine: EngineSettings,
    store_dsn: str | None = None,
    session_key: bytes | None = None,
    lm: dspy.LM | None = None,
) -> SharedWorkbench:
    """Migrate the state database (`store_dsn`, else the embedded server's ``db.state_database``), open the
    engine, gate it, load the program and wrap them in a shared workbench signing page sessions with `session_key`
    (``serve.state.keys.session_key``; None for a worker, which issues no sessions).

    Raises:
        lms.LMConfigError, modules.errors.PipelineError, engines.errors.EngineError: As ``answering.load``.
        db.errors.ServerError: The embedded server cannot be started.
        psycopg.Error, psycopg_pool.PoolTimeout: The state database cannot be reached or migrated.
    """
    store_dsn = store_dsn or embedded_state_dsn()
    migrate(store_dsn)  # before the engine and the model: a bad store fails fast, having opened nothing
    pool = open_store_pool(store_dsn, max_size=max(4, settings.workers + 2))
    try:
        opened = open_engine(ask_defaults(engine))
        engine_ = gated(opened, wait_s=settings.busy_wait_s, own_wait_s=settings.own_wait_s)
        t2s = load(model, program=program, engine=engine_, lm=lm)
    except Exception:
        pool.close()
        raise
    return SharedWorkbench(t2s, settings, model=model, pool=pool, dsn=store_dsn, session_key=session_key)
