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


def test_feedback_when_the_gold_query_fails(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    example = dspy.Example(question="q", gold_sql="SELECT nosuch FROM object")
    result = metric(example, prediction(executor, GOLD))
    assert result.score == 0.0
    assert result.feedback == "The expected query itself failed on this database, so the example cannot be scored."


@pytest.mark.parametrize(
    ("failures", "reason"),
    [
        ([{"stage": "generation", "message": "no SQL in the answer"}], "generation: no SQL in the answer"),
        ([], "empty answer"),
    ],
    ids=["stage-failure", "empty-answer"],
)
def test_feedback_when_no_sql_was_produced(gold_cache, failures, reason):
    metric = make_feedback_metric(RefusingExecutor(), gold_cache)
    result = metric(EXAMPLE, dspy.Prediction(sql="", result=None, error=None, failures=failures))
    assert result.score == 0.0
    assert result.feedback == f"No SQL was produced ({reason}). The expected query was: {GOLD}"


def test_feedback_when_the_query_was_not_executed(gold_cache):
    metric = make_feedback_metric(None, gold_cache)
    result = metric(EXAMPLE, dspy.Prediction(sql=GOLD, result=None, error=None))
    assert result.score == 0.0
    assert result.feedback == f"The query was not executed. The expected query was: {GOLD}"


def test_feedback_when_the_expected_result_is_empty(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    example = dspy.Example(question="q", gold_sql="SELECT oid FROM object WHERE ndet < 0")
    result = metric(example, prediction(executor, GOLD))
    assert result.score == 0.0
    assert result.feedback == (
        "The expected result is empty, so row matching cannot score this example. "
        "The expected query was: SELECT oid FROM object WHERE ndet < 0"
    )


@pytest.mark.parametrize(
    ("sql", "comparison"),
    [("SELECT ndet FROM object WHERE ndet > 20", "alias_crash"), ("SELECT oid FROM object WHERE false", None)],
    ids=["no-identifier", "no-rows"],
)
def test_feedback_when_rows_cannot_be_matched_by_identifier(executor, gold_cache, sql, comparison):
    metric = make_feedback_metric(executor, gold_cache)
    pred = prediction(executor, sql)
    n_gold, n_pred = len(executor.execute(GOLD).frame), len(pred.result.frame)
    comparison = comparison or "empty_prediction"
    columns = " Expected columns not returned: oid." if "ndet" in sql else ""
    assert metric(EXAMPLE, pred).feedback == (
        f"It returned {n_pred} rows; the expected result has {n_gold}. The result could not be matched by "
        f"identifier ({comparison}).{columns} The expected query was: {GOLD}"
    )


def test_feedback_quotes_every_value_when_only_a_few_differ(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    gold_oids = sorted(executor.execute(GOLD).frame["oid"])
    kept = ", ".join(f"'{oid}'" for oid in gold_oids[2:])
    pred = prediction(executor, f"SELECT oid FROM object WHERE oid IN ({kept})")
    feedback = metric(EXAMPLE, pred).feedback
    assert f"Missing oid values: {gold_oids[0]}, {gold_oids[1]}. The expected" in feedback


def test_feedback_for_classification_names_the_expected_difficulty(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    example = EXAMPLE.copy(difficulty="medium")
    pred = prediction(executor, GOLD, difficulty="simple")
    feedback = metric(example, pred, None, "classification.predict", None).feedback
    assert feedback.splitlines()[0] == "Difficulty should be medium; classified as simple."


def test_feedback_for_linking_says_when_no_table_was_chosen(executor, gold_cache):
    metric = make_feedback_metric(executor, gold_cache)
    feedback = metric(EXAMPLE, prediction(executor, GOLD, tables=[]), None, "schema_linking.tables", None).feedback
    assert feedback.splitlines()[0] == "Tables needed: object; chosen: none."


@pytest.mark.parametrize("pred_name", ["generation.planned", "classification.predict", None])
def test_feedback_has_no_stage_line_when_the_labels_say_nothing_of_the_stage(executor, gold_cache, pred_name):
    metric = make_feedback_metric(executor, gold_cache)
    feedback = metric(EXAMPLE, prediction(executor, GOLD, difficulty="simple"), None, pred_name, None).feedback
    assert feedback.splitlines() == [
        f"Correct: the oid values match the expected result. The expected query was: {GOLD}"
    ]
