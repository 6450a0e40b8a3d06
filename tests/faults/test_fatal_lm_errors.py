"""An LM that cannot answer at all stops compile and evaluate with one line and exit 1, instead of scoring zeros.

Fatal errors (authentication, billing, configuration, unknown model, unreachable provider) stop at the first
call; an error that costs one question (context window exceeded) stops the run only when every call failed. The
last tests use a real provider string on a machine without network to the provider.
"""

import json
import time

import pytest
from dspy import lm15

import db.engine
import lms
import optimizers.cli as compile_cli
from evaluation.cli import main as evaluate_main
from lms.resolve import resolve_lm
from lms.retries import retries_total
from metric.gold_cache import GoldCache
from tests.faults.conftest import ScriptedEngine, oracle, scripted_lm, synthetic_csv

FATAL = {
    "auth": (lm15.AuthError, "LMAuthError", "Check the provider's API key in the environment."),
    "billing": (lm15.BillingError, "LMBillingError", "Check the provider account's billing and quota."),
    "unknown_model": (lm15.UnsupportedModelError, "LMUnsupportedModelError", "Check the model name"),
    "unreachable": (lm15.TransportError, "LMTransportError", "Check the network connection to the provider."),
    "configuration": (lm15.ConfigurationError, "LMConfigurationError", "Check the model and its settings."),
}


def raising(error: type[Exception]):
    """A ``before`` hook of ``ScriptedEngine`` that fails every call with ``error`` (retried at once, if ever)."""

    def fail(number: int) -> None:
        raise error("injected failure", retry_after=0.0)

    return fail


@pytest.fixture
def compile_with(tiny_dsn, tmp_path, monkeypatch, capsys):
    """Run ``python -m compile`` in-process on the tiny database with a given LM; return (code, stderr, out dir)."""
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(compile_cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))

    def run(lm, *argv: str) -> tuple[int, str, object]:
        monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: lm)
        out = tmp_path / "artifact"
        argv = ("--model", "fake/oracle", "--num-threads", "2", "--dataset", str(synthetic_csv()), *argv)
        code = compile_cli.main([*argv, "--out", str(out), "-q"])
        captured = capsys.readouterr()
        assert captured.out == (f"{out}\n" if code == 0 else "")
        return code, captured.err, out

    return run


@pytest.mark.parametrize("name", list(FATAL))
@pytest.mark.parametrize("optimizer", ["random-search", "labeled"])
def test_a_fatal_lm_error_stops_compile_with_one_line_and_no_artifact(compile_with, name, optimizer):
    error, kind, hint = FATAL[name]
    engine = ScriptedEngine(oracle(), before=raising(error))
    code, err, out = compile_with(scripted_lm(engine), "--optimizer", optimizer)
    assert code == 1
    assert err.startswith(f"error: The language model cannot be used: {kind}: [fake/oracle] injected failure. ")
    assert hint in err and err.endswith(" No artifact was written.\n") and err.count("\n") == 1
    assert not out.exists()
    # After the first fatal error the other questions fail at once: at most one call per thread (plus retries).
    assert len({call for call, _ in engine.requests}) <= 2


@pytest.mark.parametrize("name", list(FATAL))
def test_a_fatal_error_is_not_retried_unless_the_provider_may_come_back(compile_with, name):
    error, _, _ = FATAL[name]
    engine = ScriptedEngine(oracle(), before=raising(error))
    before = retries_total()
    code, _, _ = compile_with(scripted_lm(engine), "--optimizer", "labeled", "--num-threads", "1")
    retries = 3 if name == "unreachable" else 0  # a transport error is transient until the LM's 3 retries fail
    assert (code, len(engine.requests), retries_total() - before) == (1, 1 + retries, retries)


def test_a_fatal_error_keeps_a_previous_artifact(compile_with):
    engine = ScriptedEngine(oracle())
    code, _, out = compile_with(scripted_lm(engine), "--optimizer", "labeled")
    assert code == 0
    saved = {path.name: path.read_bytes() for path in out.iterdir()}
    code, _, _ = compile_with(
        scripted_lm(ScriptedEngine(oracle(), before=raising(lm15.AuthError))), "--optimizer", "none"
    )
    assert code == 1
    assert {path.name: path.read_bytes() for path in out.iterdir()} == saved


def test_compile_stops_when_every_call_overflows_the_context_window(compile_with):
    engine = ScriptedEngine(oracle(), before=raising(lm15.ContextLengthError))
    code, err, out = compile_with(scripted_lm(engine), "--optimizer", "labeled")
    assert code == 1
    assert err.startswith(f"error: Every one of the {len(engine.requests)} LM calls failed (the last: ")
    assert "ContextWindowExceededError: [fake/oracle] injected failure), so there is nothing to score." in err
    assert err.endswith("Use a model with a longer context window. No artifact was written.\n")
    assert err.count("\n") == 1 and not out.exists()


def test_compile_goes_on_when_only_some_calls_overflow(compile_with):
    def overflow_every_third(number: int) -> None:
        if number % 3 == 0:
            raise lm15.ContextLengthError("too long")

    engine = ScriptedEngine(oracle(), before=overflow_every_third)
    code, err, out = compile_with(scripted_lm(engine), "--optimizer", "labeled", "--num-threads", "1")
    assert (code, err) == (0, "")
    assert (out / "manifest.json").is_file()


@pytest.fixture
def real_provider(monkeypatch):
    """A real provider string with a dummy key, few retries and a short timeout: fails fast without network."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-key-for-tests")
    return resolve_lm("openai/gpt-4.1-mini", num_retries=1, timeout=5, cache=False)


def test_compile_with_an_unreachable_provider_exits_1_quickly(compile_with, real_provider):
    started = time.monotonic()
    code, err, out = compile_with(real_provider, "--optimizer", "random-search")
    assert code == 1 and err.count("\n") == 1 and not out.exists()
    # No network: a transport error; a network that reaches OpenAI rejects the dummy key instead.
    assert err.startswith(
        (
            "error: The language model cannot be used: LMTransportError: [openai/gpt-4.1-mini] ",
            "error: The language model cannot be used: LMAuthError: [openai/gpt-4.1-mini] ",
        )
    )
    assert time.monotonic() - started < 90


@pytest.fixture
def evaluate_with(tiny_dsn, tmp_path, monkeypatch, capsys):
    """Run ``python -m evaluate --model`` in-process with a given LM; return (code, stdout, stderr, report dir)."""
    report = tmp_path / "report"

    def run(lm) -> tuple[int, str, str, object]:
        monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: lm)
        argv = ["--model", "fake/oracle", "--uncompiled", "--dataset", str(synthetic_csv()), "--dsn", tiny_dsn]
        argv += ["--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q", "--json"]
        code = evaluate_main(argv)
        captured = capsys.readouterr()
        return code, captured.out, captured.err, report

    return run


def test_evaluate_stops_when_every_call_overflows_and_a_rerun_does_too(evaluate_with):
    engine = ScriptedEngine(oracle(), before=raising(lm15.ContextLengthError))
    code, out, err, report = evaluate_with(scripted_lm(engine))
    assert (code, out) == (1, "")
    assert err.startswith("error: Every one of the ") and err.count("\n") == 1
    assert "ContextWindowExceededError: [fake/oracle] injected failure" in err
    assert not (report / "report.json").exists()
    # The failed answers are in the checkpoint; resuming them must not turn them into a score.
    again = ScriptedEngine(oracle())
    code, out, err, _ = evaluate_with(scripted_lm(again))
    assert (code, out, len(again.requests)) == (1, "", 0)
    assert err.startswith("error: Every one of the ")


def test_evaluate_scores_a_run_whose_calls_succeed(evaluate_with):
    code, out, err, _ = evaluate_with(scripted_lm(ScriptedEngine(oracle())))
    assert code == 0 and err == ""
    usage = json.loads(out)["settings"]["source"]["usage"]
    assert usage["calls"] > 0


@pytest.mark.parametrize("name", ["auth", "unreachable", "unknown_model"])
def test_a_fatal_lm_error_stops_evaluate_with_one_line(evaluate_with, name):
    error, _, _ = FATAL[name]
    code, out, err, report = evaluate_with(scripted_lm(ScriptedEngine(oracle(), before=raising(error))))
    assert (code, out) == (1, "")
    assert err == "error: the language model failed: [fake/oracle] injected failure\n"
    assert not (report / "report.json").exists()


def test_evaluate_with_an_unreachable_provider_exits_1_quickly(evaluate_with, real_provider):
    started = time.monotonic()
    code, out, err, _ = evaluate_with(real_provider)
    assert (code, out) == (1, "")
    assert err.startswith("error: the language model failed: [openai/gpt-4.1-mini] ") and err.count("\n") == 1
    assert time.monotonic() - started < 90
