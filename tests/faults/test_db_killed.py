"""The database is killed in the middle of evaluate and of compile: one clear error line, exit 1, and a rerun
resumes without losing or recomputing finished work (answers, scored items, LM calls)."""

import json
from typing import ClassVar

import pandas as pd

import db.engine
import lms
import optimizers.cli as compile_cli
from db.server import up
from engines.postgres import PostgresEngine
from evaluation.checkpoint import CHECKPOINT_FILE
from evaluation.cli import main as evaluate_main
from evaluation.program_predictions import PREDICTIONS_FILE
from metric.gold_cache import GoldCache
from modules.artifacts.load import MANIFEST_FILE
from tests.faults.conftest import ScriptedEngine, kill_postmaster, oracle, questions_asked, scripted_lm, synthetic_csv

KILL_AT_CALL = 9
"""The fake LM kills the database before this call (mid-question, after a couple of questions)."""


def saved(path) -> list[dict]:
    """Records of a checkpoint file (its first line is the header)."""
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def _kill_at(settings, number):
    def before(call_number: int) -> None:
        if call_number == number:
            kill_postmaster(settings)

    return before


def test_evaluate_killed_while_answering_resumes_without_asking_again(
    scratch, scratch_server, tmp_path, monkeypatch, capsys
):
    engine = ScriptedEngine(oracle(), before=_kill_at(scratch_server, KILL_AT_CALL))
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(engine))
    report = tmp_path / "report"
    argv = ["--model", "fake/oracle", "--uncompiled", "--dataset", str(synthetic_csv()), "--dsn", scratch.reader_dsn]
    argv += ["--workers", "1", "--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q"]

    assert evaluate_main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert err.endswith(f"Finished items are saved; rerun with --report {report} to resume.\n")
    first = saved(report / PREDICTIONS_FILE)
    assert 1 <= len(first) < 10 and all(record["error_kind"] is None for record in first)

    up(scratch_server)
    rerun = ScriptedEngine(oracle())
    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(rerun))
    assert evaluate_main(argv) == 0
    answered = {row.req_id: row.request for row in pd.read_csv(synthetic_csv()).itertuples()}
    assert not questions_asked(rerun) & {answered[record["req_id"]] for record in first}
    records = saved(report / PREDICTIONS_FILE)
    assert sorted(record["req_id"] for record in records) == sorted(answered)
    assert json.loads((report / "report.json").read_text())["counts"]["pred_errors"] == 0


class KillingExecutor(PostgresEngine):
    """A PostgresEngine that kills its server before its n-th query and records the SQL it was given."""

    kill_before: ClassVar[int | None] = None
    server: ClassVar[object] = None
    executed: ClassVar[list[str]] = []

    def execute(self, sql, **options):
        type(self).executed.append(sql)
        if len(type(self).executed) == type(self).kill_before:
            kill_postmaster(type(self).server)
        return super().execute(sql, **options)


def test_evaluate_killed_while_scoring_resumes_without_rescoring(
    scratch, scratch_server, tmp_path, monkeypatch, capsys
):
    frame = pd.read_csv(synthetic_csv())
    predictions = tmp_path / "preds.csv"
    # A trailing space tells a prediction's execution from its gold's in the executed SQL.
    frame.assign(sql=frame.gold_query + " ")[["req_id", "sql"]].to_csv(predictions, index=False)
    monkeypatch.setattr(KillingExecutor, "server", scratch_server)
    monkeypatch.setattr(KillingExecutor, "kill_before", 7)
    monkeypatch.setattr(KillingExecutor, "executed", [])
    monkeypatch.setattr(db.engine, "PostgresEngine", KillingExecutor)
    report = tmp_path / "report"
    argv = ["--predictions", str(predictions), "--dataset", str(synthetic_csv()), "--dsn", scratch.reader_dsn]
    argv += ["--workers", "1", "--report", str(report), "--gold-cache", str(tmp_path / "gold"), "-q"]

    assert evaluate_main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "rerun with --report" in err
    first = saved(report / CHECKPOINT_FILE)
    assert 1 <= len(first) < 10 and all(record["error_kind"] is None for record in first)
    assert not list((tmp_path / "gold").rglob("*.parquet")) or all(
        record["gold_error_kind"] is None for record in first
    )

    up(scratch_server)
    monkeypatch.setattr(KillingExecutor, "kill_before", None)
    monkeypatch.setattr(KillingExecutor, "executed", [])
    assert evaluate_main(argv) == 0
    predicted = [sql for sql in KillingExecutor.executed if sql.endswith(" ")]
    assert len(predicted) == 10 - len(first)
    assert not {sql for sql in predicted} & {record["sql"] for record in first}
    counts = json.loads((report / "report.json").read_text())["counts"]
    assert counts["items"] == 10 and counts["pred_errors"] == 0 and counts["gold_errors"] == 0


def test_compile_killed_fails_clearly_and_a_rerun_makes_no_lm_call_twice(
    scratch, scratch_server, tmp_path, monkeypatch, capsys
):
    engine = ScriptedEngine(oracle(), before=_kill_at(scratch_server, 12))
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: scripted_lm(engine, cache=True))
    monkeypatch.setattr(compile_cli, "GoldCache", lambda executor: GoldCache(executor, cache_dir=tmp_path / "gold"))
    out = tmp_path / "artifact"
    argv = ["--model", "fake/oracle", "--optimizer", "labeled", "--k", "2", "--num-threads", "1"]
    argv += ["--dataset", str(synthetic_csv()), "--dsn", scratch.reader_dsn, "--out", str(out), "-q"]

    assert compile_cli.main(argv) == 1
    last = capsys.readouterr().err.splitlines()[-1]  # DSPy's Evaluate also logs each failed example before it
    assert last.startswith("error: ") and "PostgreSQL" in last
    assert last.endswith("LM calls made so far are cached; rerun the same command to resume.")
    assert not (out / MANIFEST_FILE).exists()

    up(scratch_server)
    rerun = ScriptedEngine(oracle())
    monkeypatch.setattr(compile_cli, "resolve_lm", lambda model: scripted_lm(rerun, cache=True))
    assert compile_cli.main(argv) == 0
    assert len(engine.requests) >= 12 and rerun.requests
    assert not set(rerun.requests) & set(engine.requests), "a request answered before the kill was sent again"
    scores = json.loads((out / MANIFEST_FILE).read_text())["scores"]
    assert scores["heldout_pm_before"] == scores["heldout_pm_after"] > 0
