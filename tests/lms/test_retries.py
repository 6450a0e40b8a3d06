"""RetryingLM: transient LM errors are retried by the project, each retry counted; nothing else is retried."""

from __future__ import annotations

import asyncio
import copy
import threading

import dspy
import pytest
from dspy import lm15

import lms.retries
from lms import FATAL_LM_ERRORS, LMWatch
from lms.fake import text_response
from lms.retries import RetryingLM, retries_in_thread, retries_total
from modules.selection.candidates import run_concurrently

TRANSIENT = [lm15.RateLimitError, lm15.TimeoutError, lm15.ServerError, lm15.TransportError, lm15.LockTimeoutError]
NOT_RETRIED = [lm15.AuthError, lm15.BillingError, lm15.UnsupportedModelError, lm15.ContextLengthError, ValueError]


class FailingEngine:
    """A DSPy engine that raises the given errors on its first calls, then answers with the request's last text."""

    def __init__(self, *errors: type[Exception]) -> None:
        self.errors = list(errors)
        self.calls = 0

    def complete(self, request: lm15.Request) -> lm15.Response:
        """Fail with the next scripted error, or answer."""
        self.calls += 1
        if self.errors:
            error = self.errors.pop(0)
            raise error("injected", retry_after=0.0) if issubclass(error, lm15.LM15Error) else error("injected")
        return text_response(f"echo {request.messages[-1].text}")

    def __deepcopy__(self, memo: dict) -> FailingEngine:
        return self


class AsyncFailingEngine(FailingEngine):
    """The async counterpart of ``FailingEngine``."""

    async def complete(self, request: lm15.Request) -> lm15.Response:
        """Fail with the next scripted error, or answer."""
        return super().complete(request)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds each retry waited (recorded, not slept)."""
    seconds: list[float] = []
    monkeypatch.setattr(lms.retries.time, "sleep", seconds.append)
    return seconds


def test_transient_failures_are_retried_counted_and_answered(waits):
    engine = FailingEngine(lm15.RateLimitError, lm15.ServerError, lm15.TimeoutError)
    lm = RetryingLM("fake/flaky", engine=engine, cache=False, num_retries=3)
    watch = LMWatch()
    in_thread, total = retries_in_thread(), retries_total()
    with dspy.context(callbacks=[watch]), dspy.track_usage() as usage:
        assert lm("hello") == ["echo hello"]
    assert engine.calls == 4
    assert (retries_in_thread() - in_thread, retries_total() - total) == (3, 3)
    assert waits == [0.0, 0.0, 0.0]  # the errors' retry_after
    assert (watch.calls, watch.failed) == (1, 0)  # callbacks see one call spanning its retries
    assert len(lm.history) == 1
    assert usage.get_total_tokens()["fake/flaky"]["total_tokens"] == 15


def test_without_retry_after_the_waits_back_off_exponentially(waits):
    class NoHint(FailingEngine):
        def complete(self, request):
            self.calls += 1
            if self.calls <= 3:
                raise lm15.ServerError("busy")
            return text_response("ok")

    assert RetryingLM("fake/busy", engine=NoHint(), cache=False, num_retries=3)("hi") == ["ok"]
    assert waits == [1.0, 2.0, 4.0]


@pytest.mark.parametrize("error", TRANSIENT, ids=lambda error: error.__name__)
def test_each_transient_error_class_is_retried(error, waits):
    engine = FailingEngine(error)
    before = retries_in_thread()
    assert RetryingLM("fake/flaky", engine=engine, cache=False, num_retries=1)("x") == ["echo x"]
    assert (engine.calls, retries_in_thread() - before) == (2, 1)


@pytest.mark.parametrize("error", NOT_RETRIED, ids=lambda error: error.__name__)
def test_other_errors_fail_after_one_attempt_uncounted(error, waits):
    engine = FailingEngine(error)
    lm = RetryingLM("fake/broken", engine=engine, cache=False, num_retries=5)
    watch = LMWatch()
    before = retries_total()
    with dspy.context(callbacks=[watch]), pytest.raises(dspy.LMError):
        lm("x")
    assert (engine.calls, retries_total() - before, waits) == (1, 0, [])
    assert (watch.calls, watch.failed) == (1, 1)
    assert (watch.fatal is not None) == isinstance(watch.last_error, FATAL_LM_ERRORS)


def test_an_unreachable_provider_is_fatal_only_after_the_retries(waits):
    engine = FailingEngine(*[lm15.TransportError] * 3)
    lm = RetryingLM("fake/offline", engine=engine, cache=False, num_retries=2)
    watch = LMWatch()
    before = retries_in_thread()
    with dspy.context(callbacks=[watch]), pytest.raises(dspy.LMTransportError):
        lm("x")
    assert (engine.calls, retries_in_thread() - before) == (3, 2)
    assert (watch.calls, watch.failed) == (1, 1)
    assert isinstance(watch.fatal, dspy.LMTransportError)


def test_a_cache_hit_is_not_retried_or_counted(waits):
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    engine = FailingEngine(lm15.RateLimitError)
    lm = RetryingLM("fake/cached", engine=engine, cache=True, num_retries=2)
    assert lm("cache me") == ["echo cache me"]
    before = retries_in_thread()
    engine.errors = [lm15.RateLimitError] * 5  # a call reaching the engine now would fail and retry
    with dspy.track_usage() as usage:
        assert lm("cache me") == ["echo cache me"]
    assert (engine.calls, retries_in_thread() - before, len(waits)) == (2, 0, 1)
    assert usage.get_total_tokens() == {}  # a cache hit adds no usage
    assert len(lm.history) == 2


def test_several_candidates_are_all_returned_after_a_retry(waits):
    engine = FailingEngine(lm15.ServerError)
    lm = RetryingLM("fake/sampled", engine=engine, cache=False, temperature=0.7, num_retries=1)
    before = retries_in_thread()
    assert lm("x", n=2) == ["echo x", "echo x"]
    assert retries_in_thread() - before == 1


def test_a_streamed_call_is_not_retried(waits):
    class StreamingEngine(FailingEngine):
        def stream(self, request):
            self.calls += 1
            raise lm15.RateLimitError("injected", retry_after=0.0)

    engine = StreamingEngine()
    lm = RetryingLM("fake/streamed", engine=engine, cache=False, num_retries=3)
    with dspy.context(send_stream=object()), pytest.raises(dspy.LMRateLimitError):
        lm("x")  # DSPy streams to send_stream; a replay could repeat chunks already sent
    assert (engine.calls, waits) == (1, [])


def test_async_calls_are_retried_and_counted(waits, monkeypatch):
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(lms.retries.asyncio, "sleep", record)
    engine = AsyncFailingEngine(lm15.TimeoutError, lm15.RateLimitError)
    lm = RetryingLM("fake/async", engine=FailingEngine(), async_engine=engine, cache=False, num_retries=2)
    before = retries_total()
    assert asyncio.run(lm.acall("x")) == ["echo x"]
    assert (engine.calls, retries_total() - before, slept) == (3, 2, [0.0, 0.0])


def test_retries_are_counted_per_thread(waits):
    lm = RetryingLM("fake/flaky", engine=FailingEngine(lm15.ServerError, lm15.ServerError), cache=False)
    counted: list[int] = []

    def call() -> None:
        lm("x")
        counted.append(retries_in_thread())

    worker = threading.Thread(target=call)
    before = retries_in_thread()
    worker.start()
    worker.join()
    assert (counted, retries_in_thread() - before) == ([2], 0)


def test_threads_in_a_copy_of_the_context_count_for_the_question_that_started_them(waits):
    # The program's candidates run like this (modules.selection.candidates.run_concurrently).
    engines = [FailingEngine(lm15.ServerError) for _ in range(3)]
    lms_ = [RetryingLM("fake/flaky", engine=engine, cache=False) for engine in engines]
    watch = LMWatch()
    with dspy.context(callbacks=[watch]):
        calls_before, _ = watch.in_thread()
        retries_before = retries_in_thread()
        run_concurrently([lambda lm=lm: lm("x") for lm in lms_])
        calls, _ = watch.in_thread()
    assert (calls - calls_before, retries_in_thread() - retries_before) == (3, 3)


def test_copies_keep_the_retries_and_leave_dspy_one_attempt():
    lm = RetryingLM("fake/flaky", engine=FailingEngine(), cache=False, num_retries=4)
    assert (type(copy.deepcopy(lm)), copy.deepcopy(lm).retries) == (RetryingLM, 4)
    assert (lm.copy(rollout_id=1).retries, lm.copy(num_retries=1).retries) == (4, 1)
    assert {lm.num_retries, lm.copy(num_retries=1).num_retries} == {0}


def test_a_saved_program_loads_back_as_a_plain_dspy_lm(tmp_path):
    predict = dspy.Predict("question -> sql")
    predict.lm = RetryingLM("openai/gpt-4.1-mini", api_key="sk-test", num_retries=4)
    predict.save(tmp_path / "program.json")
    loaded = dspy.Predict("question -> sql")
    loaded.load(tmp_path / "program.json")  # no allow_unsafe_lm_state: the file names no custom class
    assert type(loaded.lm) is dspy.LM
    assert (loaded.lm.model, loaded.lm.num_retries) == ("openai/gpt-4.1-mini", 4)
    assert "sk-test" not in (tmp_path / "program.json").read_text()


def test_num_retries_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match=r"^num_retries must be a non-negative integer, got -1$"):
        RetryingLM("fake/x", engine=FailingEngine(), num_retries=-1)
