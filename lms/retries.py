"""Count the LM calls DSPy retried after a transient error (rate limit, timeout, server or transport error).

DSPy retries inside ``dspy.LM`` and reports nothing; it waits ``_delay(exc, attempt)`` seconds before each
retry, so wrapping that function counts exactly the retries made, per thread and in total.

Callbacks cannot do this in DSPy 3.4: ``on_lm_start``/``on_lm_end`` span all attempts of a call (a flaky engine
making 9 attempts for 3 calls shows 3 of each), and DSPy's native provider engines (openai, anthropic, gemini,
ollama, openrouter) never go through LiteLLM, so its ``failure_callback`` sees none of them.
"""

import functools
import logging
import threading

from dspy.clients import execution

__all__ = ["install_retry_counter", "retries_in_thread", "retries_total"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_local = threading.local()
_total = [0]


def _record() -> None:
    _local.count = getattr(_local, "count", 0) + 1
    with _lock:
        _total[0] += 1


def install_retry_counter() -> None:
    """Start counting retries (idempotent); a DSPy without the hook only logs a warning and counts none."""
    delay = getattr(execution, "_delay", None)
    if delay is None:
        logger.warning("this DSPy version has no retry hook; LM retries are not counted")
        return
    if getattr(delay, "counts_retries", False):
        return

    @functools.wraps(delay)
    def counted_delay(exc: BaseException, attempt: int) -> float:
        _record()
        logger.info("retrying an LM call after %s (attempt %d)", type(exc).__name__, attempt + 1)
        return delay(exc, attempt)

    counted_delay.counts_retries = True
    execution._delay = counted_delay


def retries_in_thread() -> int:
    """Return the retries made so far by LM calls in the current thread."""
    return getattr(_local, "count", 0)


def retries_total() -> int:
    """Return the retries made so far by LM calls in every thread."""
    with _lock:
        return _total[0]
