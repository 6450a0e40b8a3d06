"""Scoring a grid with repeated statements: each distinct (question, SQL) runs once, and no verdict changes."""

import dataclasses

import pytest

from benchmarks.prediction_grid import build_grid
from engines.errors import ExecutionError
from evaluation.checkpoint import Checkpoint
from evaluation.predictions import Prediction
from evaluation.runner import GOLD_REUSE_SHARE, score_predictions
from metric.perfect_match import score_frames
from tests.evaluation.counting_executor import CountingExecutor

TIMEOUT_S = 10.0
VERDICT_FIELDS = (
    "gold_rows",
    "pred_rows",
    "error_kind",
    "row_pm",
    "col_pm",
    "col_pm_formatted",
    "value_match",
    "error_message",
    "row_comparison",
    "value_comparison",
    "is_missing",
)


@pytest.fixture(scope="module")
def grid(dev_examples) -> list[Prediction]:
    """3 experiments x 12 questions x 4 runs of golds and their mutations, plus missing answers, with repeats."""
    golds = [(example.req_id, example.gold_sql) for example in dev_examples[:12]]
    predictions = build_grid(golds, experiments=3, runs=4, seed=1)
    missing = [Prediction(req_id, f"missing{run}", None) for req_id, _ in golds[:2] for run in range(2)]
    return predictions + missing


def scored_alone(prediction: Prediction, example, executor, gold_cache) -> dict:
    """The verdict of one prediction executed and scored on its own, as before statements were shared."""
    gold = gold_cache.result(example.gold_sql)
    frame, error = None, None
    if prediction.sql is None:
        error_kind, message = "general", "missing: no prediction for this question and run"
    else:
        try:
            frame = executor.execute(prediction.sql, timeout_s=TIMEOUT_S).frame
        except ExecutionError as err:
            error = err
        error_kind, message = (error.kind.value, error.message) if error else (None, None)
    scores = score_frames(gold.frame, example.gold_sql, frame, prediction.sql or "")
    return {
        "gold_rows": None if gold.frame is None else len(gold.frame),
        "pred_rows": None if frame is None else len(frame),
        "error_kind": error_kind,
        "row_pm": scores.row.pm,
        "col_pm": scores.column_raw.pm,
        "col_pm_formatted": scores.column_formatted.pm,
        "value_match": scores.value.pm,
        "error_message": message,
        "row_comparison": scores.row.comparison.value,
        "value_comparison": scores.value.comparison.value,
        "is_missing": prediction.sql is None,
    }


def test_grid_has_repeats_golds_errors_and_wrong_answers(grid, dev_examples, module_executor, gold_cache):
    assert len({(p.req_id, p.sql) for p in grid}) < len(grid) * 0.8
    by_id = {example.req_id: example for example in dev_examples}
    assert sum(p.sql == by_id[p.req_id].gold_sql for p in grid) >= 20


def test_sharing_statements_changes_no_verdict(grid, dev_examples, module_executor, gold_cache):
    by_id = {example.req_id: example for example in dev_examples}
    records = score_predictions(grid, dev_examples, module_executor, gold_cache, timeout_s=TIMEOUT_S, workers=2)
    assert [(record.req_id, record.run, record.sql) for record in records] == [(p.req_id, p.run, p.sql) for p in grid]
    alone = [scored_alone(p, by_id[p.req_id], module_executor, gold_cache) for p in grid]
    shared = [{name: getattr(record, name) for name in VERDICT_FIELDS} for record in records]
    differences = [(p.req_id, p.run) for p, a, s in zip(grid, alone, shared, strict=True) if a != s]
    assert differences == []
    outcomes = {(s["error_kind"], s["row_pm"], s["value_match"]) for s in shared}
    assert {(None, True, True), (None, False, False), ("missing_structure", False, False)} <= outcomes


def test_each_distinct_statement_runs_once_and_a_gold_statement_not_at_all(
    grid, dev_examples, module_executor, gold_cache
):
    by_id = {example.req_id: example for example in dev_examples}
    for example in by_id.values():
        gold_cache.result(example.gold_sql)
    counting = CountingExecutor(module_executor)
    score_predictions(grid, dev_examples, counting, gold_cache, timeout_s=TIMEOUT_S, workers=2)
    distinct = {(p.req_id, p.sql) for p in grid if p.sql is not None and p.sql != by_id[p.req_id].gold_sql}
    assert sorted(counting.calls) == sorted(sql for _, sql in distinct)


def test_a_slow_gold_statement_runs_again_under_the_prediction_time_limit(dev_examples, module_executor, gold_cache):
    example = dev_examples[0]
    gold = gold_cache.result(example.gold_sql)
    counting = CountingExecutor(module_executor)
    limit_s = gold.elapsed_s / GOLD_REUSE_SHARE  # the gold took too much of this limit to stand for the prediction
    prediction = Prediction(example.req_id, 0, example.gold_sql)
    score_predictions([prediction], [example], counting, gold_cache, timeout_s=limit_s)
    assert counting.calls == [example.gold_sql]


def test_resume_gives_a_checkpointed_statement_to_its_repeats(dev_examples, module_executor, gold_cache, tmp_path):
    example = dev_examples[1]
    sql = f"SELECT * FROM ({example.gold_sql}) AS g"
    checkpoint = Checkpoint(tmp_path / "checkpoint.jsonl", {"database_fingerprint": "test"})
    (first,) = score_predictions(
        [Prediction(example.req_id, 0, sql)],
        [example],
        module_executor,
        gold_cache,
        timeout_s=TIMEOUT_S,
        checkpoint=checkpoint,
    )
    counting = CountingExecutor(module_executor)
    records = score_predictions(
        [Prediction(example.req_id, run, sql) for run in range(3)],
        [example],
        counting,
        gold_cache,
        timeout_s=TIMEOUT_S,
        checkpoint=checkpoint,
    )
    assert counting.calls == []
    assert records == [dataclasses.replace(first, run=run) for run in range(3)]
    assert len(checkpoint.load()) == 3
