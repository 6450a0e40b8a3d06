"""The workbench behind the page, the HTTP API and MCP: ask, follow up, rerun SQL or alternatives, keep histories.

Everything here blocks (LM calls, queries); the web layer calls it from worker threads.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dspy

from answering import Answer, AnsweringError, Text2SQL, clean_text
from answering.conversation import follow_up_of
from answering.question import MAX_KNOWLEDGE_CHARS
from engines.errors import EngineError, ExecutionError
from lms.lm_watch import describe_lm_error
from lms.usage import price_usd, total_usage
from serve.jobs import AnswerQueue, Job
from serve.progress import StageReporter, stage_names
from serve.settings import ServeSettings

__all__ = ["Record", "Workbench", "WorkbenchError"]

logger = logging.getLogger(__name__)


class WorkbenchError(Exception):
    """A request the workbench cannot serve; the message says why, in one line, for the user."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record:
    """One answer kept for its page, downloads and plots.

    Attributes:
        id: Its key in URLs.
        answer: The answer (``frame`` None when it could not answer).
        source: ``ask`` (the program wrote the SQL), ``sql`` (the user's SQL box or ``run_sql``) or ``adql`` (the
            user's ADQL box, on TAP).
        model: The model that answered ("" for SQL the user wrote).
        engine: The engine the SQL ran on.
        input_tokens: LM input tokens of the answer.
        output_tokens: LM output tokens.
        cost_usd: Their price from LiteLLM's price map, or None (local or unknown model).
        created: Unix time.
        conversation: The conversation (thread) the answer belongs to: the id of its first answer.
        follows: The id of the answer this question followed up (None: it stands on its own).
    """

    id: str
    answer: Answer
    source: str
    model: str
    engine: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    created: float = dataclasses.field(default_factory=time.time)
    conversation: str = ""
    follows: str | None = None

    def __post_init__(self) -> None:
        """Make an answer that starts a conversation name it."""
        if not self.conversation:
            object.__setattr__(self, "conversation", self.id)

    def usage(self) -> dict[str, Any]:
        """Return the model, engine, tokens and cost, JSON-ready."""
        return {
            "model": self.model,
            "engine": self.engine,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
        }


class Workbench:
    """A loaded program with its engine, the answers kept in memory and each session's history (thread-safe)."""

    def __init__(self, t2s: Text2SQL, settings: ServeSettings, *, model: str) -> None:
        """Wrap a loaded program; its stages and executions are reported to each question's listener."""
        self.t2s = t2s
        self.settings = settings
        self.model = model
        self.engine = t2s.executor
        self.queue = AnswerQueue(one_at_a_time=settings.one_at_a_time)
        self._stages = stage_names(t2s.program)
        self._pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="workbench")
        self._lock = threading.Lock()
        self._submitting = threading.Lock()
        self._records: collections.OrderedDict[str, Record] = collections.OrderedDict()
        self._histories: dict[str, list[str]] = collections.defaultdict(list)

    @property
    def engine_name(self) -> str:
        """The engine kind, "postgres" or "tap"."""
        return self.engine.name

    def start_ask(self, question: str, knowledge: str = "", *, session: str = "", follows: str | None = None) -> Job:
        """Check the texts, then answer in a worker thread; the job's events report its progress.

        ``follows`` names a kept answer this question follows up: its conversation continues.

        Raises:
            WorkbenchError: The question is empty or too long, the knowledge is too long, or the answer followed
                up is gone, failed or is on another catalog.
        """
        question, knowledge = self._clean(question, knowledge)
        earlier = self.record(follows) if follows is not None else None
        if earlier is not None:
            try:
                follow_up_of(earlier.answer, self.t2s.catalog)
            except AnsweringError as err:
                raise WorkbenchError(str(err)) from err
        job = Job(question=question)
        with self._submitting:  # the pool takes jobs in queue order, so no worker waits on a job not yet taken
            self.queue.join(job)
            self._pool.submit(self._answer, job, knowledge, session, earlier)
        return job

    def ask(self, question: str, knowledge: str = "", *, session: str = "", follows: str | None = None) -> Record:
        """Answer and wait (API and MCP); ``follows`` names an answer it follows up.

        Raises:
            WorkbenchError: Bad texts, an answer that cannot be followed up, or the model or database failed.
        """
        job = self.start_ask(question, knowledge, session=session, follows=follows)
        job.wait()
        if job.error is not None:
            raise WorkbenchError(job.error)
        return self.record(job.answer_id)

    def latest_in(self, conversation: str) -> Record:
        """Return the newest kept answer of a conversation.

        Raises:
            WorkbenchError: No kept answer belongs to it.
        """
        with self._lock:
            found = [record for record in self._records.values() if record.conversation == conversation]
        if not found:
            raise WorkbenchError(f"no conversation {conversation!r} here; it may have been dropped for newer ones")
        return found[-1]

    def run_sql(self, sql: str, *, question: str = "", session: str = "", conversation: str = "") -> Record:
        """Run SQL the user wrote, through the same guard and read-only role as generated SQL.

        Raises:
            WorkbenchError: The SQL is empty or too long, or the database cannot be reached.
        """
        return self._run_by_hand("sql", sql, question, session, self.engine.execute, conversation)

    def run_alternative(self, answer_id: str, number: int, *, session: str = "") -> Record:
        """Run alternative `number` (from 1) of an answer instead of its SQL; the result joins its conversation.

        Raises:
            WorkbenchError: No such answer or alternative, or the database cannot be reached.
        """
        record = self.record(answer_id)
        alternatives = record.answer.alternatives
        if not 1 <= number <= len(alternatives):
            raise WorkbenchError(f"answer {answer_id!r} has no alternative {number}; it has {len(alternatives)}")
        sql = alternatives[number - 1]["sql"]
        return self.run_sql(sql, question=record.answer.question, session=session, conversation=record.conversation)

    def run_adql(self, adql: str, *, question: str = "", session: str = "") -> Record:
        """Run ADQL the user wrote on the TAP engine as it is (one SELECT; the service's read-only role applies).

        Raises:
            WorkbenchError: Not on the TAP engine, the ADQL is empty or too long, or the service cannot be reached.
        """
        if not hasattr(self.engine, "execute_adql"):
            raise WorkbenchError("ADQL runs on a TAP service only; start the workbench with --engine tap")
        return self._run_by_hand("adql", adql, question, session, self.engine.execute_adql)

    def _run_by_hand(
        self, language: str, text: str, question: str, session: str, execute: Any, conversation: str = ""
    ) -> Record:
        """Run SQL or ADQL written in the page's boxes or sent to the API, and keep the answer."""
        try:
            text = clean_text(text, field=language, max_chars=self.settings.max_sql_chars)
            question = clean_text(question, field="original_question", max_chars=self.settings.max_question_chars)
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        if not text:
            raise WorkbenchError(f"the {language.upper()} box is empty; write one SELECT statement")
        sql = text if language == "sql" else ""
        try:
            result = execute(text)
        except ExecutionError as err:
            adql = text if language == "adql" else ""
            error, kind = str(err), err.kind.value
            answer = Answer(question=question, sql=sql, adql=adql, frame=None, error=error, error_kind=kind)
        except EngineError as err:
            raise WorkbenchError(str(err)) from err
        else:
            answer = Answer(
                question=question,
                sql=sql,
                frame=result.frame,
                truncated=result.truncated,
                adql=getattr(result, "adql", ""),
                service_table=getattr(result, "table", None),
                engine=self.engine,
                attempts=[{"sql": text, "error_kind": None, "message": None}],
                catalog=self.t2s.catalog,
            )
        record = Record(
            id=_new_id(), answer=answer, source=language, model="", engine=self.engine_name, conversation=conversation
        )
        return self._keep(record, session)

    def record(self, answer_id: str | None) -> Record:
        """Return a kept answer.

        Raises:
            WorkbenchError: No such answer (never made, or dropped for newer ones).
        """
        with self._lock:
            found = self._records.get(answer_id or "")
        if found is None:
            raise WorkbenchError(f"no answer {answer_id!r} here; it may have been dropped for newer ones")
        return found

    def history(self, session: str) -> list[Record]:
        """Return the session's answers still kept, newest first."""
        with self._lock:
            ids = list(self._histories.get(session, ()))
            return [self._records[i] for i in reversed(ids) if i in self._records]

    def close(self) -> None:
        """Stop the worker threads and close the engine."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.t2s.close()

    def _clean(self, question: str, knowledge: str) -> tuple[str, str]:
        try:
            question = clean_text(question, max_chars=self.settings.max_question_chars)
            knowledge = clean_text(knowledge, field="external_knowledge", max_chars=MAX_KNOWLEDGE_CHARS)
        except AnsweringError as err:
            raise WorkbenchError(str(err)) from err
        return question, knowledge

    def _answer(self, job: Job, knowledge: str, session: str, earlier: Record | None) -> None:
        try:
            with self.queue.turn(job):
                job.emit({"type": "started"})
                reporter = StageReporter(self._stages, job.emit)
                with dspy.context(callbacks=[reporter]):
                    follows = earlier.answer if earlier is not None else None
                    answer = self.t2s.ask(job.question, external_knowledge=knowledge, follows=follows)
        except (AnsweringError, EngineError) as err:
            job.finish(error=str(err))
            return
        except dspy.LMError as err:
            job.finish(error=f"the language model failed: {describe_lm_error(err)}")
            return
        except Exception as err:  # a bug must not leave the page waiting; the log keeps the traceback
            logger.exception("answering %r failed", job.question)
            job.finish(error=f"internal error ({type(err).__name__}); the server log has the details")
            return
        record = self._keep(self._priced(answer, earlier), session)
        job.finish(answer_id=record.id)

    def _priced(self, answer: Answer, earlier: Record | None) -> Record:
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
            conversation=earlier.conversation if earlier is not None else "",
            follows=earlier.id if earlier is not None else None,
        )

    def _keep(self, record: Record, session: str) -> Record:
        with self._lock:
            self._records[record.id] = record
            while len(self._records) > self.settings.max_answers_kept:
                self._records.popitem(last=False)
            self._histories[session].append(record.id)
        return record


def _new_id() -> str:
    return secrets.token_urlsafe(9)
