"""Tests for metric.perfect_match: row PM and both column PMs, cases from tests/fixtures/metric_cases.yaml."""

import pandas as pd
import pytest

from metric.perfect_match import (
    IDS,
    Comparison,
    column_match_formatted,
    column_match_raw,
    identifier_columns,
    identifier_strings,
    row_match,
    score_frames,
)
from metric.value_match import ValueComparison
from tests.optimizers.cases import frame, params


@pytest.mark.parametrize("case", params("row"))
def test_row_match(case):
    score = row_match(frame(case["gold"]), frame(case["pred"]), case["pred_sql"])
    expect = case["expect"]
    assert score.pm is expect["pm"]
    assert score.comparison == Comparison(expect["comparison"])
    for field in ("precision", "recall", "f1", "gold_id", "pred_id"):
        if field in expect:
            assert getattr(score, field) == expect[field], field


@pytest.mark.parametrize("case", params("column"))
def test_column_match(case):
    gold, pred = frame(case["gold"]), frame(case["pred"])
    assert column_match_raw(gold, pred).pm is case["expect"]["raw"]
    assert column_match_formatted(case["pred_sql"], gold, pred).pm is case["expect"]["formatted"]


def test_row_match_precision_recall_and_f1_for_a_subset():
    gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2", "ZTF3", "ZTF4"]})
    score = row_match(gold, pd.DataFrame({"oid": ["ZTF1"]}), "SELECT oid FROM object")
    assert (score.precision, score.recall, score.f1) == (1.0, 0.25, 0.4)


def test_column_error_comparisons_are_named():
    gold = pd.DataFrame({"oid": ["ZTF1"]})
    assert column_match_raw(None, gold).comparison == Comparison.GOLD_ERROR
    assert column_match_raw(gold.iloc[:0], gold).comparison == Comparison.EMPTY_GOLD
    assert column_match_raw(gold, None).comparison == Comparison.PRED_ERROR
    assert column_match_formatted("SELECT oid FROM object", None, gold).comparison == Comparison.GOLD_ERROR
    assert column_match_formatted("SELECT oid FROM object", gold, None).comparison == Comparison.PRED_ERROR


@pytest.mark.parametrize(
    ("series", "expected"),
    [
        (pd.Series([123, 4]), {"123", "4"}),
        (pd.Series([2434000000000000001, None]), {"2.434e+18", "nan"}),
        (pd.Series([7, None], dtype="Int64"), {"7.0", "nan"}),
        (pd.Series(["ZTF1", None]), {"ZTF1", "None"}),
        (pd.Series(["ZTF1", None], dtype=object), {"ZTF1", "None"}),
        (pd.Series([0.1], dtype="float32"), {"0.1"}),
        (pd.Series([1.5, None], dtype="Float64"), {"1.5", "nan"}),
        (pd.Series([True, None], dtype=object), {"True", "None"}),
    ],
    ids=["int", "int_with_null", "nullable_int", "text_null", "object_null", "real", "nullable_float", "bool"],
)
def test_identifier_strings_reproduce_python_str(series, expected):
    assert identifier_strings(series) == expected


def test_score_frames_combines_all_metrics():
    gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2"], "ndet": [3, 4]})
    pred = pd.DataFrame({"ztf_id": ["ZTF2", "ZTF1"], "ndet": [4, 3]})
    scores = score_frames(gold, "SELECT oid, ndet FROM object", pred, "SELECT oid AS ztf_id, ndet FROM object")
    assert scores.row.pm and scores.row.pred_id == "ztf_id"
    assert not scores.column_raw.pm
    assert scores.column_formatted.pm
    assert not scores.value.pm and scores.value.comparison == ValueComparison.MISSING_COLUMNS


def test_score_frames_with_failed_gold_scores_zero_everywhere():
    pred = pd.DataFrame({"oid": ["ZTF1"]})
    scores = score_frames(None, "SELECT oid FROM objec", pred, "SELECT oid FROM object")
    assert not any(s.pm for s in (scores.row, scores.column_raw, scores.column_formatted, scores.value))
    assert scores.row.comparison == Comparison.GOLD_ERROR


def test_multisurvey_identifiers_score_a_solar_system_gold_against_itself():
    frame = pd.DataFrame({"ssobjectid": [21165806405629509, 7], "designation": ["2020 TE16", "2010 WX64"]})
    sql = "SELECT ssobjectid, designation FROM lsst_mpc_orbits"
    assert row_match(frame, frame.copy(), sql, ids=identifier_columns("multisurvey")).pm
    assert row_match(frame, frame.copy(), sql).comparison is Comparison.ALIAS_CRASH  # ztf's list lacks ssobjectid


def test_multisurvey_identifiers_compare_detections_before_objects():
    gold = pd.DataFrame({"oid": [1, 1], "sid": [1, 1], "measurement_id": [10, 11]})
    pred = pd.DataFrame({"oid": [1, 1], "sid": [1, 1], "measurement_id": [10, 12]})
    sql = "SELECT oid, sid, measurement_id FROM detection"
    score = row_match(gold, pred, sql, ids=identifier_columns("multisurvey"))
    assert (score.gold_id, score.pm) == ("measurement_id", False)
    assert (
        identifier_columns("ztf") == IDS == ("candid", "oid", "oid_catalog", "objectidps1", "classifier_name", "count")
    )


def test_a_prediction_holding_every_gold_row_and_more_is_no_match():
    # Gold: the 2 objects asked for; the prediction returns them and 2 more (a filter dropped).
    gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2"], "ndet": [3, 4]})
    pred = pd.DataFrame({"oid": ["ZTF1", "ZTF2", "ZTF3", "ZTF4"], "ndet": [3, 4, 5, 6]})
    score = row_match(gold, pred, "SELECT oid, ndet FROM object")
    assert not score.pm
    assert (score.precision, score.recall) == (0.5, 1.0)  # half the returned rows are gold; every gold row returned
    assert score.f1 == pytest.approx(2 / 3)
    value = score_frames(gold, "SELECT oid, ndet FROM object", pred, "SELECT oid, ndet FROM object").value
    assert not value.pm
