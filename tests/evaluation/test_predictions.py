"""Tests of reading prediction files and lining them up with the dataset."""

import json

import dspy
import pytest

from evaluation.errors import PredictionsError
from evaluation.predictions import Prediction, complete_predictions, read_predictions


def _examples(*req_ids):
    return [dspy.Example(req_id=req_id, gold_sql="SELECT 1", difficulty="simple") for req_id in req_ids]


def test_read_predictions_from_csv_with_and_without_run(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('req_id,run,sql\n1,0,SELECT 1\n1,seed-a,"SELECT\n 2"\n2,,\n')
    assert read_predictions(path) == [
        Prediction(1, 0, "SELECT 1"),
        Prediction(1, "seed-a", "SELECT\n 2"),
        Prediction(2, 0, ""),
    ]


@pytest.mark.parametrize("wrap", [False, True], ids=["list", "object"])
def test_read_predictions_from_json(tmp_path, wrap):
    items = [{"req_id": "3", "sql": "SELECT 3"}, {"req_id": 3, "run": 1, "sql": None}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"predictions": items} if wrap else items))
    assert read_predictions(path) == [Prediction(3, 0, "SELECT 3"), Prediction(3, 1, "")]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("p.csv", "req_id,query\n1,SELECT 1\n", "item 1: no 'sql' field; a predictions file needs req_id and sql"),
        ("p.csv", "req_id,sql\nabc,SELECT 1\n", "item 1: req_id 'abc' is not an integer."),
        ("p.csv", "req_id,sql\n1,SELECT 1\n1,SELECT 2\n", "req_id 1, run 0 appears more than once."),
        ("p.csv", "", "Cannot read"),
        ("p.csv", "req_id,sql\n", "holds no predictions."),
        ("p.json", "{not json", "Cannot read"),
        ("p.json", '{"rows": []}', 'must hold a list of objects or {"predictions": [...]}'),
        ("p.json", '[{"req_id": 1, "sql": 5}]', "item 1: sql 5 is not text."),
    ],
    ids=["no-sql", "bad-id", "repeated", "empty-csv", "no-rows", "bad-json", "json-shape", "sql-type"],
)
def test_read_predictions_rejects_bad_files(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(PredictionsError, match=None) as info:
        read_predictions(path)
    assert message in str(info.value) and info.value.path == str(path)


def test_read_predictions_names_a_missing_file(tmp_path):
    with pytest.raises(PredictionsError) as info:
        read_predictions(tmp_path / "nope.csv")
    assert str(info.value) == f"Predictions file not found: '{tmp_path / 'nope.csv'}'."


def test_complete_predictions_fills_missing_items_per_run():
    given = [Prediction(2, 0, "A"), Prediction(1, 1, "B")]
    assert complete_predictions(given, _examples(1, 2)) == [
        Prediction(1, 0, None),
        Prediction(2, 0, "A"),
        Prediction(1, 1, "B"),
        Prediction(2, 1, None),
    ]


def test_complete_predictions_rejects_unknown_req_ids():
    with pytest.raises(PredictionsError) as info:
        complete_predictions([Prediction(9, 0, "A"), Prediction(7, 0, "B")], _examples(1), "p.csv")
    assert str(info.value) == (
        "'p.csv' has predictions for 2 req_id(s) not in the dataset: 7, 9; check --dataset and --split."
    )
