"""Tests for metric.aggregate: per-difficulty means and std over runs, both gold-error conventions."""

import json

import pytest

from metric.aggregate import ScoredItem, aggregate


def _items() -> list[ScoredItem]:
    """Three questions over three runs; question 3's gold always fails; question 2 times out in run 2."""
    items = []
    for run in (0, 1, 2):
        items.append(ScoredItem(req_id=1, run=run, difficulty="simple", row_pm=True, col_pm=True, value_match=run != 1))
        items.append(
            ScoredItem(
                req_id=2,
                run=run,
                difficulty="advanced",
                pred_error="timeout" if run == 2 else None,
                row_pm=True,
                col_pm_formatted=True,
            )
        )
        items.append(ScoredItem(req_id=3, run=run, difficulty="advanced", gold_error=True, row_pm=True))
    return items


def test_aggregate_paper_convention_counts_gold_errors_as_zeros():
    report = aggregate(_items(), take_error_gold=True)
    advanced = report["by_difficulty"]["advanced"]
    assert advanced["n_items"] == 6 and advanced["n_runs"] == 3
    assert [rates["row_pm"] for rates in advanced["per_run"].values()] == [0.5, 0.5, 0.0]
    assert advanced["row_pm"]["mean"] == pytest.approx(1 / 3)
    assert advanced["row_pm"]["std"] == pytest.approx(0.288675134594813)
    assert report["gold_errors"] == 3
    assert report["pred_errors"] == {"timeout": 1}


def test_aggregate_stored_summary_convention_drops_gold_errors():
    report = aggregate(_items(), take_error_gold=False)
    advanced = report["by_difficulty"]["advanced"]
    assert advanced["n_items"] == 3
    assert advanced["row_pm"]["mean"] == pytest.approx(2 / 3)
    assert advanced["col_pm_formatted"]["std"] == pytest.approx(0.5773502691896257)
    assert 3 not in report["by_question"]
    assert report["gold_errors"] == 3


def test_aggregate_reports_overall_runs_and_questions():
    report = aggregate(_items(), take_error_gold=True)
    assert list(report["by_difficulty"]) == ["simple", "advanced"]
    assert report["overall"]["n_items"] == 9
    assert report["overall"]["value_match"]["mean"] == pytest.approx(2 / 9)
    assert report["by_question"][1] == {
        "difficulty": "simple",
        "n_runs": 3,
        "row_pm": 1.0,
        "col_pm": 1.0,
        "col_pm_formatted": 0.0,
        "value_match": pytest.approx(2 / 3),
    }
    json.dumps(report)


def test_aggregate_std_is_none_for_a_single_run():
    report = aggregate([ScoredItem(req_id=1, run=0, difficulty="medium", row_pm=True)], take_error_gold=True)
    assert report["by_difficulty"]["medium"]["row_pm"] == {"mean": 1.0, "std": None}


def test_aggregate_of_nothing():
    report = aggregate([], take_error_gold=True)
    assert report["overall"] is None and report["by_difficulty"] == {} and report["gold_errors"] == 0
