"""Tell an LM that cannot answer at all from one that failed on a question, by watching every LM call.

Authentication, billing, configuration, unknown-model and transport errors (the last after the LM's retries: the
provider is unreachable) would fail every call alike: they are fatal. Any other failed call costs one question;
but a run in which every call failed measured nothing either.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback

from lms.errors import LMUnusable

__all__ = ["FATAL_LM_ERRORS", "LMWatch", "describe_lm_error", "raise_if_every_call_failed"]

FATAL_LM_ERRORS: tuple[type[Exception], ...] = (
    dspy.LMConfigurationError,
    dspy.LMAuthError,
    dspy.LMBillingError,
    dspy.LMUnsupportedModelError,
    dspy.LMTransportError,
)
"""LM errors that would fail every call: the run stops at the first one."""

_RUN_LOGGERS = ("dspy.utils.parallelizer", "dspy.teleprompt.bootstrap", "dspy.evaluate.evaluate")
"""DSPy loggers reporting each example a program raised on (after a fatal error, one line says it all) and
``Evaluate``'s average (whatever the ``-q``; the caller logs its own score, which may not stand)."""

_HINTS: tuple[tuple[type[Exception], str], ...] = (
    (dspy.LMAuthError, "Check the provider's API key in the environment."),
    (dspy.LMBillingError, "Check the provider account's billing and quota."),
    (dspy.LMUnsupportedModelError, "Check the model name (--model PROVIDER/MODEL)."),
    (dspy.LMTransportError, "Check the network connection to the provider."),
    (dspy.ContextWindowExceededError, "Use a model with a longer context window."),
)


def describe_lm_error(err: BaseException) -> str:
    """Name an LM error in one line: its class and the first line of its message.

    Examples:
        >>> describe_lm_error(dspy.LMAuthError("Invalid API key.\\nDetails.", model="openai/x"))
        'LMAuthError: [openai/x] Invalid API key.'
    """
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else 'no message'}"


def _hint(err: BaseException) -> str:
    return next((hint for cls, hint in _HINTS if isinstance(err, cls)), "Check the model and its settings.")


def _fatal(err: BaseException) -> LMUnusable:
    return LMUnusable(f"The language model cannot be used: {describe_lm_error(err)}. {_hint(err)}", type(err).__name__)


def raise_if_every_call_failed(calls: int, failed: int, last: BaseException | str | None = None) -> None:
    """Raise when LM calls were made and none succeeded; otherwise return.

    Args:
        calls: LM calls made.
        failed: How many of them failed.
        last: The last failure (an exception, or its description).

    Raises:
        LMUnusable: ``calls > 0`` and ``failed == calls``.
    """
    if calls == 0 or failed < calls:
        return
    detail = describe_lm_error(last) if isinstance(last, BaseException) else last or "unknown"
    hint = _hint(last) if isinstance(last, BaseException) else "Check the model and its settings."
    raise LMUnusable(
        f"Every one of the {calls} LM calls failed (the last: {detail}), so there is nothing to score. {hint}",
        type(last).__name__ if isinstance(last, BaseException) else "unknown",
    )


class LMWatch(BaseCallback):
    """A DSPy callback counting LM calls and failures, in total and per thread, and keeping the first fatal error.

    Register it with ``dspy.context(callbacks=[watch])``; DSPy's worker threads inherit it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Per context, not per thread: candidates run in threads that copy the context of their question.
        self._counts: contextvars.ContextVar[list[int]] = contextvars.ContextVar(f"lm_watch_{id(self)}")
        self.calls = 0
        self.failed = 0
        self.last_error: BaseException | None = None
        self.fatal: BaseException | None = None

    def __deepcopy__(self, memo: dict) -> LMWatch:
        return self

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop ``Evaluate``'s average, and DSPy's per-example errors after a fatal LM error (a ``logging`` filter)."""
        return self.fatal is None and record.name != "dspy.evaluate.evaluate"

    def on_lm_end(self, call_id: str, outputs: dict[str, Any] | None, exception: BaseException | None = None) -> None:
        """Count one finished LM call (called once per call, after its retries)."""
        failed = isinstance(exception, Exception)
        counts = self._context_counts()
        with self._lock:
            counts[0] += 1
            counts[1] += int(failed)
            self.calls += 1
            if failed:
                self.failed += 1
                self.last_error = exception
                if self.fatal is None and isinstance(exception, FATAL_LM_ERRORS):
                    self.fatal = exception

    def in_thread(self) -> tuple[int, int]:
        """Return ``(calls, failed)`` made so far by the current thread and the threads it started in a copy of its
        context (call it once before such threads start, so that they share its counts)."""
        counts = self._context_counts()
        return counts[0], counts[1]

    def _context_counts(self) -> list[int]:
        counts = self._counts.get(None)
        if counts is None:
            counts = [0, 0]
            self._counts.set(counts)
        return counts

    def raise_if_fatal(self) -> None:
        """Raise ``LMUnusable`` once a fatal LM error was seen; otherwise return."""
        if self.fatal is not None:
            raise _fatal(self.fatal) from self.fatal

    def guarded(self, program: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap ``program`` so that, after a fatal LM error, later calls fail at once instead of calling the LM."""

        def run(**inputs: Any) -> Any:
            self.raise_if_fatal()
            return program(**inputs)

        return run

    @contextlib.contextmanager
    def phase(self) -> Iterator[None]:
        """Run one phase (an evaluation, an optimiser) whose scores mean nothing if the LM could not answer.

        Raises:
            LMUnusable: A fatal LM error happened in the phase, or it made LM calls and every one failed.
        """
        with self._lock:
            calls_before, failed_before = self.calls, self.failed
        loggers = [logging.getLogger(name) for name in _RUN_LOGGERS]
        for logger in loggers:
            logger.addFilter(self)
        try:
            yield
        except Exception as err:
            if self.fatal is not None:
                raise _fatal(self.fatal) from err
            raise
        finally:
            for logger in loggers:
                logger.removeFilter(self)
        self.raise_if_fatal()
        with self._lock:
            calls, failed, last = self.calls - calls_before, self.failed - failed_before, self.last_error
        raise_if_every_call_failed(calls, failed, last)
