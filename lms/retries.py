"""An LM whose transient failures the project retries itself, so that every retry is counted.

DSPy 3.4 retries inside ``dspy.LM`` and reports nothing: ``on_lm_start``/``on_lm_end`` span all attempts of a
call, and its native provider engines (openai, anthropic, gemini, ...) never go through LiteLLM, whose failure
callbacks would see them. So every LM the project builds is a ``RetryingLM``: DSPy makes one attempt
(``num_retries=0``), and a call that raised an error DSPy calls transient (``is_retryable_lm_error``: rate limit,
timeout, server, transport, credential lock) is made again with DSPy's policy, waiting ``retry_after`` or
``min(2**attempt, 60)`` s, up to the LM's ``num_retries`` times; each retry is counted and logged (INFO).

A cache hit raises nothing, so it is never retried or counted; usage, history and ``n`` stay DSPy's. Callbacks
see one LM call per call, spanning its retries, as with DSPy's own retries. A streamed call is not retried (its
output may already be shown), and ``n > 1`` is retried whole (DSPy retries the failed candidate only).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import dspy
from dspy.clients.base_lm import LM_CLASS_STATE_KEY
from dspy.utils.callback import BaseCallback, with_callbacks
from dspy.utils.exceptions import is_retryable_lm_error

__all__ = ["RetryingLM", "retries_in_thread", "retries_total", "retry_delay"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
# A mutable counter per context, not per thread: threads started in a copy of the context (the program's
# concurrent candidates) add to the counter of the question that started them.
_counter: contextvars.ContextVar[list[int]] = contextvars.ContextVar("lm_retries")
_total = [0]
_in_attempt: contextvars.ContextVar[bool] = contextvars.ContextVar("lm_attempt", default=False)
_PLAIN_LM_CLASS = f"{dspy.LM.__module__}.{dspy.LM.__qualname__}"


def retry_delay(err: BaseException, attempt: int) -> float:
    """Return the seconds to wait before retrying after ``err`` on attempt ``attempt`` (0-based), as DSPy does.

    Examples:
        >>> retry_delay(dspy.LMRateLimitError("slow down", retry_after=7.5), 0)
        7.5
        >>> [retry_delay(dspy.LMServerError("busy"), attempt) for attempt in (0, 1, 5, 9)]
        [1.0, 2.0, 32.0, 60.0]
    """
    hint = getattr(err, "retry_after", None)
    if isinstance(hint, int | float | str) and not isinstance(hint, bool):
        with contextlib.suppress(ValueError, OverflowError):
            seconds = float(hint)
            if math.isfinite(seconds) and seconds >= 0:
                return seconds
    return float(min(2 ** min(attempt, 6), 60))


def _context_counter() -> list[int]:
    counter = _counter.get(None)
    if counter is None:
        counter = [0]
        _counter.set(counter)
    return counter


def retries_in_thread() -> int:
    """Return the retries made so far by LM calls in the current thread and the threads it started in a copy of its
    context (call it once before such threads start, so that they share its counter)."""
    return _context_counter()[0]


def retries_total() -> int:
    """Return the retries made so far by LM calls in every thread."""
    with _lock:
        return _total[0]


def _count_retry(lm: RetryingLM, err: BaseException, attempt: int) -> float:
    """Count and log the retry after ``err`` on attempt ``attempt``; return the seconds to wait before it."""
    delay_s = retry_delay(err, attempt)
    counter = _context_counter()
    with _lock:
        counter[0] += 1
        _total[0] += 1
    retry = f"retry {attempt + 1} of {lm.retries}"
    logger.info("retrying an LM call to %s after %s (%s, in %.1f s)", lm.model, type(err).__name__, retry, delay_s)
    return delay_s


@contextlib.contextmanager
def _one_attempt() -> Iterator[None]:
    """Hide every callback from one attempt: the retrying call reports to them once, around all attempts."""
    token = _in_attempt.set(True)
    try:
        with dspy.context(callbacks=[]):
            yield
    finally:
        _in_attempt.reset(token)


class RetryingLM(dspy.LM):
    """A ``dspy.LM`` that retries transient failures itself and counts each retry (``retries_in_thread``).

    Args:
        model: The model string, as for ``dspy.LM``.
        num_retries: Retries after a transient error (DSPy's meaning); DSPy itself is given 0.
        **settings: Everything else ``dspy.LM`` takes (engine, temperature, max_tokens, cache, api_key, ...).

    Attributes:
        retries: The retries made after a transient error; ``num_retries`` stays 0 so that DSPy makes one attempt.
    """

    def __init__(self, model: str, *, num_retries: int = 3, **settings: Any) -> None:
        if isinstance(num_retries, bool) or not isinstance(num_retries, int) or num_retries < 0:
            raise ValueError(f"num_retries must be a non-negative integer, got {num_retries!r}")
        super().__init__(model, num_retries=0, **settings)
        self.retries = num_retries

    @property
    def callbacks(self) -> list[BaseCallback]:
        """The LM's own callbacks; none inside one attempt (see ``_one_attempt``)."""
        return [] if _in_attempt.get() else self._callbacks

    @callbacks.setter
    def callbacks(self, value: list[BaseCallback]) -> None:
        self._callbacks = value

    def _should_retry(self, err: Exception, attempt: int) -> bool:
        streamed = dspy.settings.get("send_stream") is not None
        return attempt < self.retries and not streamed and is_retryable_lm_error(err)

    @with_callbacks
    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> Any:
        """Call the LM as ``dspy.LM`` does, retrying transient errors."""
        for attempt in itertools.count():
            try:
                with _one_attempt():
                    return super().__call__(prompt, messages=messages, **kwargs)
            except Exception as err:
                if not self._should_retry(err, attempt):
                    raise
                time.sleep(_count_retry(self, err, attempt))

    @with_callbacks
    async def acall(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> Any:
        """Call the LM as ``dspy.LM.acall`` does, retrying transient errors."""
        for attempt in itertools.count():
            try:
                with _one_attempt():
                    return await super().acall(prompt, messages=messages, **kwargs)
            except Exception as err:
                if not self._should_retry(err, attempt):
                    raise
                await asyncio.sleep(_count_retry(self, err, attempt))

    def copy(self, **kwargs: Any) -> RetryingLM:
        """Copy as ``dspy.LM.copy`` does; ``num_retries`` sets the copy's ``retries``."""
        retries = kwargs.pop("num_retries", self.retries)
        copied = super().copy(**kwargs)
        copied.retries = retries
        return copied

    def dump_state(self) -> dict[str, Any]:
        """Save as the plain ``dspy.LM`` it behaves like (DSPy retrying), so that any program loads it back."""
        return {**super().dump_state(), LM_CLASS_STATE_KEY: _PLAIN_LM_CLASS, "num_retries": self.retries}
