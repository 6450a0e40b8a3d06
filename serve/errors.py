"""What the workbench refuses or fails at: one-line messages, each with the HTTP status and the kind clients branch on.

HTTP clients' default error handling (``raise_for_status()``) must see a failure as one: a request the workbench
cannot take is 4xx, a query that failed is 400 (refused by the guard), 422 (it ran and failed) or 504 (time limit),
a busy or unreachable engine is 503, and the kind in the body says which.
"""

from __future__ import annotations

import logging

import dspy

from answering import AnsweringError
from engines.errors import DatabaseBusy, DatabaseUnavailable, EngineError
from lms.lm_watch import describe_lm_error
from serve.store import Record

__all__ = [
    "ANSWER_STATUS",
    "EngineBusyError",
    "EngineUnavailableError",
    "LanguageModelError",
    "QueryFailedError",
    "TooManyQuestionsError",
    "UnexpectedError",
    "WorkbenchError",
    "answer_status",
    "failure_of",
    "raise_if_failed",
]

logger = logging.getLogger(__name__)

BUSY_RETRY_S = 5
"""Retry-After of a query refused as busy."""
ANSWER_STATUS = {"refused": 400, "timeout": 504}
"""HTTP status of a query that failed, by error kind; every other kind (it ran and failed, no SQL) is 422."""


class WorkbenchError(Exception):
    """A request the workbench cannot serve; the message says why, in one line, for the user.

    Attributes:
        status: The HTTP status of the response.
        kind: The kind named in error bodies.
        retry_after_s: Seconds a client should wait before trying again (the ``Retry-After`` header), or None.
    """

    status = 400
    kind = "bad_request"

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class TooManyQuestionsError(WorkbenchError):
    """The client, or all clients together, already have as many questions queued as the workbench takes."""

    status = 429
    kind = "too_many_requests"


class EngineBusyError(WorkbenchError):
    """Every connection the client may use runs another query; a later try may get one."""

    status = 503
    kind = "busy"


class EngineUnavailableError(WorkbenchError):
    """The database or TAP service cannot be reached."""

    status = 503
    kind = "unavailable"


class LanguageModelError(WorkbenchError):
    """The language model refused or failed every call."""

    status = 502
    kind = "lm_failed"


class UnexpectedError(WorkbenchError):
    """A bug; the server log has the traceback, the client gets one line."""

    status = 500
    kind = "internal"

    @classmethod
    def about(cls, err: BaseException) -> UnexpectedError:
        """Return the one line a client gets for an unexpected `err` (its type only: details stay in the log)."""
        return cls(f"internal error ({type(err).__name__}); the server log has the details")


class QueryFailedError(WorkbenchError):
    """The SQL (written by hand or by the model) was refused, failed or ran out of time; the answer is kept.

    Attributes:
        sql: The SQL that failed ("" when the model wrote none).
    """

    def __init__(self, message: str, *, kind: str, sql: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = answer_status(kind)
        self.sql = sql


def answer_status(kind: str) -> int:
    """Return the HTTP status of a failed query of `kind`.

    Examples:
        >>> answer_status("refused"), answer_status("timeout"), answer_status("missing_structure")
        (400, 504, 422)
    """
    return ANSWER_STATUS.get(kind, 422)


def raise_if_failed(record: Record) -> Record:
    """Return `record` if its SQL ran, for API and MCP clients, whose errors must look like errors.

    Raises:
        QueryFailedError: The SQL was refused, failed or ran out of time (the record is still kept for the page).
    """
    answer = record.answer
    if answer.error is not None:
        raise QueryFailedError(answer.error, kind=answer.error_kind or "general", sql=answer.sql or answer.adql)
    return record


def failure_of(err: Exception) -> WorkbenchError:
    """Say why a question or a query could not be served, as the workbench error of its kind (a bug is logged)."""
    if isinstance(err, DatabaseBusy):
        return EngineBusyError(str(err), retry_after_s=BUSY_RETRY_S)
    if isinstance(err, DatabaseUnavailable):
        return EngineUnavailableError(str(err))
    if isinstance(err, dspy.LMError):
        return LanguageModelError(f"the language model failed: {describe_lm_error(err)}")
    if isinstance(err, AnsweringError | EngineError):
        return WorkbenchError(str(err))
    logger.error("answering failed", exc_info=err)
    return UnexpectedError.about(err)
