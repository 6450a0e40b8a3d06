"""The LM raises rate-limit, timeout and server errors at random (fixed seed): the LM retries them, the run
completes, and the report (evaluate) and the manifest (compile) count the retries."""

import json
import random

from dspy.lm15 import RateLimitError, ServerError, TimeoutError

import db.engine
import lms
import optimizers.cli as compile_cli
from evaluation.cli import main as evaluate_main
from evaluation.program_predictions import PREDICTIONS_FILE
from metric.gold_cache import GoldCache
from modules.artifacts.load import MANIFEST_FILE
from tests.faults.conftest import ScriptedEngine, oracle, scripted_lm, synthetic_csv

ERRORS = (RateLimitError, TimeoutError, ServerError)


class FlakyLM:
    """Fails a call with probability 0.4 (seeded), at most twice in a row (one thread): DSPy's 3 retries succeed."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.raised: list[str] = []
        self.in_a_row = 0

    def __call__(self, number: int) -> None:
        if self.in_a_row < 2 and self.rng.random() < 0.4:
            self.in_a_row += 1
            error = self.rng.choice(ERRORS)
            self.raised.append(error.__name__)
            raise error("injected", retry_after=0.0)
        self.in_a_row = 0


def test_evaluate_completes_and_counts_the_retries(tiny_dsn, tmp_path, monkeypatch, capsys):
    flaky = FlakyLM()
    engine = ScriptedEngine(oracle(), before=flaky)
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(engine))
    report = tmp_path / "report"
    argv = ["--model", "fake/oracle", "--uncompiled", "--dataset", str(synthetic_csv()), "--dsn", tiny_dsn]
    argv += ["--workers", "1", "--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q", "--json"]

    assert evaluate_main(argv) == 0
    usage = json.loads(capsys.readouterr().out)["settings"]["source"]["usage"]
    assert set(flaky.raised) == {"RateLimitError", "TimeoutError", "ServerError"}
    assert usage["lm_retries"] == len(flaky.raised) == len(engine.requests) - len(engine.calls)
    records = [json.loads(line) for line in (report / PREDICTIONS_FILE).read_text().splitlines()[1:]]
    assert sum(record["lm_retries"] for record in records) == len(flaky.raised)
    assert all(not record["failures"] for record in records)


def test_compile_completes_and_the_manifest_counts_the_retries(tiny_dsn, tmp_path, monkeypatch):
    flaky = FlakyLM(seed=1)
    engine = ScriptedEngine(oracle(), before=flaky)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: scripted_lm(engine))
    monkeypatch.setattr(db.engine, "resolve_dsn", lambda dsn, ground=None, **_: tiny_dsn)
    monkeypatch.setattr(compile_cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    out = tmp_path / "artifact"
    argv = ["--model", "fake/oracle", "--optimizer", "labeled", "--k", "2", "--num-threads", "1"]
    argv += ["--dataset", str(synthetic_csv())]
    assert compile_cli.main([*argv, "--out", str(out), "-q"]) == 0
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert flaky.raised and manifest["usage"]["lm_retries"] == len(flaky.raised)
    assert manifest["scores"]["heldout_pm_after"] > 0
