"""Tests for metric.value_match, cases from tests/fixtures/metric_cases.yaml."""

import pandas as pd
import pytest

from metric.value_match import ValueComparison, normalized_rows, value_match
from tests.optimizers.cases import frame, params


@pytest.mark.parametrize("case", params("value"))
def test_value_match(case):
    score = value_match(frame(case["gold"]), frame(case["pred"]), case["gold_sql"])
    assert score.pm is case["expect"]["pm"]
    assert score.comparison == ValueComparison(case["expect"]["comparison"])


def test_value_match_tolerance_is_adjustable():
    gold, pred = pd.DataFrame({"mag": [18.12]}), pd.DataFrame({"mag": [18.13]})
    assert value_match(gold, pred, "SELECT mag FROM magstat", rel_tol=1e-3).pm


def test_value_match_pairs_near_equal_rows_whatever_their_sort_order():
    gold = pd.DataFrame({"x": [1.0000001, 1.0], "y": ["a", "b"]})
    pred = pd.DataFrame({"x": [1.0, 1.0000001], "y": ["a", "b"]})
    assert value_match(gold, pred, "SELECT x, y FROM t").pm


def test_value_match_compares_decimal_and_timestamp_values():
    import datetime as dt
    import decimal

    gold = pd.DataFrame({"avg": [decimal.Decimal("2.5000")], "at": [dt.datetime(2023, 9, 1)]})
    pred = pd.DataFrame({"avg": [2.5], "at": [pd.Timestamp("2023-09-01")]})
    assert value_match(gold, pred, "SELECT avg(x), at FROM t").pm


def test_value_match_compares_array_cells():
    gold = pd.DataFrame({"arr": [[1, 2]]})
    assert value_match(gold, pd.DataFrame({"arr": [[1, 2]]}), "SELECT arr FROM t").pm
    assert not value_match(gold, pd.DataFrame({"arr": [[2, 1]]}), "SELECT arr FROM t").pm


def test_value_match_tells_booleans_from_integers():
    gold = pd.DataFrame({"flag": pd.array([True, False], dtype=object), "n": [1, 2]})
    as_integers = pd.DataFrame({"flag": pd.array([1, 0], dtype=object), "n": [1, 2]})
    assert value_match(gold, as_integers, "SELECT flag, n FROM t").comparison == ValueComparison.VALUES
    assert value_match(gold, pd.DataFrame({"flag": [False, True], "n": [2, 1]}), "SELECT flag, n FROM t").pm


def test_value_match_with_kept_gold_rows_scores_as_without():
    gold = pd.DataFrame({"oid": ["ZTF1", "ZTF2"], "ndet": [3, 4]})
    pred = pd.DataFrame({"oid": ["ZTF2", "ZTF1"], "ndet": [4, 5]})
    for sql in ("SELECT oid, ndet FROM object", "SELECT oid, ndet FROM object ORDER BY ndet"):
        kept = value_match(gold, pred, sql, gold_rows=normalized_rows(gold))
        assert kept == value_match(gold, pred, sql)
