"""The workbench behind the page, the HTTP API and the MCP server: ask, rerun SQL, keep answers and histories.

LM calls and queries block: questions are answered in worker threads, and a caller waits for one without holding a
thread (``await bench.answer(job)``); SQL written by hand runs in the web layer's thread pool. Every query takes a
slot of its client's share of the engine's connections first (``serve.gate``).
"""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dspy

from answering import Answer, AnsweringError, Text2SQL, clean_text, load
from answering.api import ask_defaults
from answering.question import Question
from db.engine import open_engine
from engines import EngineSettings
from engines.adql.hints import sql_box_hint
from engines.errors import EngineError, ExecutionError
from engines.guard import check_sql
from lms.usage import price_usd, total_usage
from modules.settings import ProgramSettings
from serve.errors import WorkbenchError, failure_of
from serve.gate import CLIENT, GatedEngine, gated
from serve.jobs import AnswerQueue, Job
from serve.progress import StageReporter, stage_names
from serve.settings import ServeSettings
from serve.store import AnswerStore, Record

__all__ = ["MAX_ID_CHARS", "Workbench", "open_workbench"]

MAX_ID_CHARS = 64
"""Longest answer or conversation id taken (ids are 22 characters); a longer one is refused, never echoed."""


class Workbench:
    """A loaded program with its engine, the answers kept in memory and each page session's history (thread-safe)."""

    session_key: bytes | None = None
    """Key that signs page sessions (None: one of this process; ``serve.state`` shares one between processes)."""

    def __init__(self, t2s: Text2SQL, settings: ServeSettings, *, model: str) -> None:
        """Wrap a program loaded on a ``GatedEngine`` (``open_workbench`` builds both); its stages and executions
        are reported to each question's listener.

        Raises:
            ValueError: The program's engine is not gated per client.
        """
        if not isinstance(t2s.executor, GatedEngine):
            raise ValueError("the workbench's program must run on a serve.gate.GatedEngine; use open_workbench")
        self.t2s = t2s
        self.settings = settings
        self.model = model
        self.engine = t2s.executor
        self.queue = AnswerQueue(
            one_at_a_time=settings.one_at_a_time,
            max_jobs=settings.max_queued,
            max_jobs_per_client=settings.max_queued_per_client,
        )
        self.store = AnswerStore(
            max_answers=settings.max_answers_kept,
            max_bytes=settings.max_kept_bytes,
            max_sessions=settings.max_sessions,
            max_history=settings.max_history,
        )
        self._stages = stage_names(t2s.program)
        self._pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="workbench")
        self._submitting = threading.Lock()

    @property
    def engine_name(self) -> str:
        """The engine kind, "postgres" or "tap"."""
        return self.engine.name

    def start_ask(
        self,
        question: str,
        knowledge: str = "",
        *,
        session: str | None = None,
        follows: str | None = None,
        conversation: str | None = None,
    ) -> Job:
        """Check the texts and queue the question for the current client (``serve.gate.CLIENT``); a worker answers
        it (``_submit``), and the job's events report its progress.

        ``conversation`` (API and MCP) continues a conversation from its latest answer; ``follows`` names a kept
        answer to follow up, whose conversation continues only when the caller holds it (no page `session`, or
        the answer is in the session's history): a page link alone starts a conversation of its own.

        Raises:
            WorkbenchError: The question is empty or too long, the knowledge is too long, or the conversation or
                the answer followed up is unknown, gone, failed or on another catalog.
            TooManyQuestionsError: The client, or all clients, have as many questions queued as the queue takes.
        """
        try:
            checked = Question.of(question, knowledge, max_chars=self.settings.max_question_chars)
            earlier = self.latest_in(conversation) if conversation else self.record(follows) if follows else None
            if earlier is not None:
                checked = checked.following(earlier.answer, self.t2s.catalog)
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        joins = earlier is not None and (conversation is not None or self._holds(session, earlier))
        return self._submit(checked, session, earlier, joins)

    def _submit(self, question: Question, session: str | None, earlier: Record | None, joins: bool) -> Job:
        """Queue a checked question; a worker thread of this process answers it."""
        job = Job(question=question.text, client=CLIENT.get())
        with self._submitting:  # the pool takes jobs in queue order, so no worker waits on a job not yet taken
            self.queue.join(job)
            self._pool.submit(self._answer, job, question, session, earlier, joins)
        return job

    def ask(
        self, question: str, knowledge: str = "", *, session: str | None = None, follows: str | None = None
    ) -> Record:
        """Answer and wait, holding the calling thread (Python callers; the API and MCP await ``answer``).

        Raises:
            WorkbenchError: Bad texts, an answer that cannot be followed up, or the model or engine failed.
        """
        job = self.start_ask(question, knowledge, session=session, follows=follows)
        job.wait()
        if job.failure is not None:
            raise job.failure
        return self.record(job.answer_id)

    async def answer(self, job: Job) -> Record:
        """Wait for the job's answer without holding a thread (API and MCP).

        Raises:
            WorkbenchError: The model or the engine failed (the subclass says how).
        """
        await job.finished()
        if job.failure is not None:
            raise job.failure
        return self.record(job.answer_id)

    def latest_in(self, conversation: str) -> Record:
        """Return the newest kept answer of a conversation.

        Raises:
            WorkbenchError: No kept answer belongs to it.
        """
        if len(conversation) > MAX_ID_CHARS:
            raise WorkbenchError(f"a conversation id has at most {MAX_ID_CHARS} characters")
        found = self.store.latest_in(conversation)
        if found is None:
            raise WorkbenchError(f"no conversation {conversation!r} here; it may have been dropped for newer ones")
        return found

    def run_sql(self, sql: str, *, question: str = "", session: str | None = None, conversation: str = "") -> Record:
        """Run SQL the user wrote, through the same guard and read-only role as generated SQL.

        Raises:
            WorkbenchError: The SQL is empty or too long, or the database is busy or cannot be reached.
        """
        return self._run_by_hand("sql", sql, question, session, self.engine.inner.execute, conversation)

    def run_alternative(self, answer_id: str, number: int, *, session: str | None = None) -> Record:
        """Run alternative `number` (from 1) of an answer instead of its SQL; the result joins its conversation.

        Raises:
            WorkbenchError: No such answer or alternative, or the database is busy or cannot be reached.
        """
        record = self.record(answer_id)
        alternatives = record.answer.alternatives
        if not 1 <= number <= len(alternatives):
            raise WorkbenchError(f"answer {answer_id!r} has no alternative {number}; it has {len(alternatives)}")
        sql = alternatives[number - 1]["sql"]
        conversation = record.conversation if self._holds(session, record) else ""
        return self.run_sql(sql, question=record.answer.question, session=session, conversation=conversation)

    def run_adql(self, adql: str, *, question: str = "", session: str | None = None) -> Record:
        """Run ADQL the user wrote on the TAP engine as it is (one SELECT; the service's read-only role applies).

        Raises:
            WorkbenchError: Not on the TAP engine, the ADQL is empty or too long, or the service is busy or cannot
                be reached.
        """
        tap = self.engine.inner
        if not hasattr(tap, "execute_adql"):
            raise WorkbenchError("ADQL runs on a TAP service only; start the workbench with --engine tap")
        return self._run_by_hand("adql", adql, question, session, tap.execute_adql)

    def record(self, answer_id: str | None) -> Record:
        """Return a kept answer.

        Raises:
            WorkbenchError: No such answer (never made, or dropped for newer ones).
        """
        found = self.store.get(answer_id or "")
        if found is None:
            shown = answer_id if len(answer_id or "") <= MAX_ID_CHARS else f"{answer_id[:MAX_ID_CHARS]}..."
            raise WorkbenchError(f"no answer {shown!r} here; it may have been dropped for newer ones")
        return found

    def history(self, session: str | None) -> list[Record]:
        """Return the answers of a page session's history (``AnswerStore.rotate``) still kept, newest first."""
        return self.store.history(session) if session else []

    def _holds(self, session: str | None, record: Record) -> bool:
        """Whether the caller holds `record`'s conversation: a Python caller (no session), or the session lists it."""
        return session is None or any(kept.id == record.id for kept in self.history(session))

    def find_job(self, job_id: str) -> Job | None:
        """A question another process took (None here: this workbench's questions are all in its page's list)."""
        return None

    def state_health(self) -> dict[str, Any]:
        """The store and the queue apart (in memory: always up; workers are this process's threads)."""
        return {"store": "memory", "store_error": None, "queue_depth": self.queue.length, "workers_alive": 1}

    def close(self) -> None:
        """Stop the worker threads and close the engine."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.t2s.close()

    def _run_by_hand(
        self, language: str, text: str, question: str, session: str | None, execute: Any, conversation: str = ""
    ) -> Record:
        """Run SQL or ADQL written in a page box or sent to the API or MCP with `execute` (ungated); keep the answer."""
        try:
            text = clean_text(text, field=language, max_chars=self.settings.max_sql_chars)
            question = clean_text(question, field="original_question", max_chars=self.settings.max_question_chars)
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        if not text:
            raise WorkbenchError(f"the {language.upper()} box is empty; write one SELECT statement")
        sent, changes = self._sent(language, text)
        sql = text if language == "sql" else ""
        try:
            with self.engine.gate.slot(CLIENT.get()):  # the engine itself, within the client's share
                result = execute(text)
        except ExecutionError as err:
            kind = err.label
            hint = sql_box_hint(text) if language == "sql" else ""
            error = f"{err} {hint}." if hint else str(err)
            answer = Answer(question=question, sql=sql, adql=sent, frame=None, error=error, error_kind=kind)
        except EngineError as err:
            raise failure_of(err) from err
        else:
            answer = Answer.of_result(
                result,
                question=question,
                sql=sql,
                engine=self.engine,
                attempts=[{"sql": text, "error_kind": None, "message": None}],
                catalog=self.t2s.catalog,
                notice=f"Changed before sending: {'; '.join(changes)}." if changes else None,
            )
        record = Record(
            id=_new_id(), answer=answer, source=language, model="", engine=self.engine_name, conversation=conversation
        )
        self.store.keep(record, session, client=CLIENT.get())
        return record

    def _sent(self, language: str, text: str) -> tuple[str, tuple[str, ...]]:
        """The ADQL a TAP service gets for the text ("" on PostgreSQL), and what was changed in pasted ADQL; shown
        also when the run fails. Failures here are left for the run to report."""
        tap = self.engine.inner
        try:
            if language == "adql" and hasattr(tap, "prepare_adql"):
                prepared = tap.prepare_adql(text)
                return prepared.adql, prepared.changes
            if language == "sql" and hasattr(tap, "translate"):
                return tap.translate(check_sql(text)).adql, ()
        except EngineError:
            pass
        return ("", ()) if language == "sql" else (text, ())

    def _answer(self, job: Job, question: Question, session: str | None, earlier: Record | None, joins: bool) -> None:
        CLIENT.set(job.client)  # this worker thread's own context: the answer's queries count for the asker
        try:
            with self.queue.turn(job):
                job.emit({"type": "started"})
                reporter = StageReporter(self._stages, job.emit)
                with dspy.context(callbacks=[reporter]):
                    answer = self.t2s.answer(question)
        except Exception as err:  # every failure, a bug included, must end the job: someone waits for it
            job.finish(failure=failure_of(err))
            return
        record = self._priced(answer, earlier, joins)
        self.store.keep(record, session, client=job.client)
        job.finish(answer_id=record.id)

    def _priced(self, answer: Answer, earlier: Record | None, joins: bool) -> Record:
        totals = total_usage(answer.usage)
        input_tokens, output_tokens = totals["input_tokens"], totals["output_tokens"]
        return Record(
            id=_new_id(),
            answer=answer,
            source="ask",
            model=self.model,
            engine=self.engine_name,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=price_usd(self.model, input_tokens, output_tokens),
            conversation=earlier.conversation if earlier is not None and joins else "",
            follows=earlier.id if earlier is not None else None,
        )


def open_workbench(
    model: str,
    settings: ServeSettings,
    *,
    program: ProgramSettings,
    engine: EngineSettings,
    lm: dspy.LM | None = None,
) -> Workbench:
    """Open the engine, gate it per client (``serve.gate``), load the program on it and wrap both in a workbench.

    Raises:
        lms.LMConfigError, modules.errors.PipelineError, engines.errors.EngineError: As ``answering.load``.
    """
    opened = open_engine(ask_defaults(engine))
    engine_ = gated(opened, wait_s=settings.busy_wait_s, own_wait_s=settings.own_wait_s)
    t2s = load(model, program=program, engine=engine_, lm=lm)
    return Workbench(t2s, settings, model=model)


def _new_id() -> str:
    return secrets.token_urlsafe(16)
