"""The execution-based PM metric and GEPA's feedback metric, on the tiny database."""

import inspect
import re

import dspy
import pandas as pd
import pytest

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from metric.dspy_metric import make_feedback_metric, make_pm_metric
from metric.gold_cache import GoldCache

GOLD = "SELECT oid FROM object WHERE ndet > 20"
EXAMPLE = dspy.Example(question="Objects with more than 20 detections", gold_sql=GOLD, tables=["object"])


class RefusingExecutor(FakeEngine):
    """An executor that must not be called (the prediction carries its result)."""

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        raise AssertionError(f"executed {sql!r}")


@pytest.fixture
def gold_cache(executor, tmp_path):
    return GoldCache(executor, cache_dir=tmp_path)


def prediction(executor, sql, **fields):
    result = executor.execute(sql) if sql else None
    return dspy.Prediction(sql=sql, result=result, error=None, failures=[], **fields)


def test_right_prediction_scores_1_and_true_under_trace(executor, gold_cache):
    metric = make_pm_metric(executor, gold_cache)
    pred = prediction(executor, "SELECT oid, ndet FROM object WHERE ndet >= 21")
    assert metric(EXAMPLE, pred) == 1.0
    assert metric(EXAMPLE, pred, trace=[]) is True


def test_wrong_prediction_scores_0_and_false_under_trace(executor, gold_cache):
    metric = make_pm_metric(executor, gold_cache)
    pred = prediction(executor, "SELECT oid FROM object WHERE ndet > 30")
    assert metric(EXAMPLE, pred) == 0.0
    assert metric(EXAMPLE, pred, trace=[]) is False


def test_metric_reuses_the_predictions_result(executor, gold_cache):
    gold_cache.result(GOLD)
    metric = make_pm_metric(RefusingExecutor(), gold_cache)
    empty = dspy.Prediction(sql=GOLD, result=type("R", (), {"frame": pd.DataFrame({"oid": []})})(), error=None)
    assert metric(EXAMPLE, empty) == 0.0
    assert metric(EXAMPLE, prediction(executor, GOLD)) == 1.0


def test_metric_executes_sql_when_the_program_did_not(executor, gold_cache):
    metric = make_pm_metric(executor, gold_cache)
    assert metric(EXAMPLE, dspy.Prediction(sql=GOLD)) == 1.0


@pytest.mark.parametrize(
    "pred",
    [
        dspy.Prediction(sql=GOLD, result=None, error=ExecutionError(ErrorKind.TIMEOUT, "57014", "canceled")),
        dspy.Prediction(sql="", result=None, error=None),
    ],
    ids=["execution-error", "no-sql"],
)
def test_failed_prediction_scores_0(pred, gold_cache):
    metric = make_pm_metric(RefusingExecutor(), gold_cache)
    assert metric(EXAMPLE, pred) == 0.0
    assert metric(EXAMPLE, pred, trace=[]) is False


def test_feedback_metric_takes_gepas_five_arguments(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    inspect.signature(metric).bind(None, None, None, None, None)
    result = metric(EXAMPLE, prediction(executor, GOLD), None, None, None)
    assert result.score == 1.0
    assert result.feedback.startswith("Correct: the oid values match the expected result.")


def test_feedback_names_missing_values_counts_and_columns(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    pred = prediction(executor, "SELECT oid AS id FROM object WHERE ndet > 25 OR ndet < 3")
    n_gold, n_pred = len(executor.execute(GOLD).frame), len(pred.result.frame)
    feedback = metric(EXAMPLE, pred).feedback
    assert re.match(
        rf"It returned {n_pred} rows; the expected result has {n_gold}\. Missing oid values: ZTF\w+, ZTF\w+, ZTF\w+"
        r" and \d+ more\. Unexpected id values: ZTF\w+, ",
        feedback,
    )
    assert "Expected columns not returned: oid." in feedback
    assert feedback.endswith(f"The expected query was: {GOLD}")


def test_feedback_on_execution_error_gives_kind_and_message(gold_cache):
    metric = make_feedback_metric(RefusingExecutor(), gold_cache)
    error = ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "ndets" does not exist')
    pred = dspy.Prediction(sql="SELECT ndets FROM object", result=None, error=error)
    result = metric(EXAMPLE, pred, None, None, None)
    assert result.score == 0.0
    assert result.feedback == (
        f'The query failed (missing_structure): column "ndets" does not exist The expected query was: {GOLD}'
    )


def test_feedback_for_linking_names_the_needed_tables(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    pred = prediction(executor, GOLD, tables=["probability"])
    feedback = metric(EXAMPLE, pred, None, "schema_linking.tables", None).feedback
    assert feedback.splitlines()[0] == "Tables needed: object; chosen: probability."
