"""Rendering rows: aligned table with footer, CSV, JSON-ready values."""

import datetime as dt
import json

import numpy as np
import pandas as pd

from answering.api import Answer
from answering.render import AnswerJson, answer_json, render_attempts, render_csv, render_plan, render_table


def frame() -> pd.DataFrame:
    return pd.DataFrame({"oid": ["ZTF1", "ZTF22", None], "ndet": pd.Series([3, 12, None], dtype=object)})


def test_table_aligns_numbers_right_and_shows_null():
    assert render_table(frame()) == (
        " oid   | ndet\n-------+------\n ZTF1  |    3\n ZTF22 |   12\n NULL  | NULL\n(3 rows)\n"
    )


def test_table_footer_says_rows_were_left_out():
    assert render_table(frame(), limit=1).endswith("(1 of 3 rows shown; raise --limit to see more)\n")
    assert render_table(frame(), truncated=True).endswith("(3+ rows; only the first 3 were fetched)\n")


def test_table_of_no_rows_keeps_the_header():
    assert render_table(frame().head(0)) == " oid | ndet\n-----+------\n(0 rows)\n"


def test_csv_writes_null_as_an_empty_field():
    assert render_csv(frame(), limit=2) == "oid,ndet\nZTF1,3\nZTF22,12\n"


def test_json_values_are_plain():
    data = pd.DataFrame({"a": [np.float64("nan")], "b": [dt.date(2021, 1, 2)], "c": [np.int64(7)], "d": [[1, 2]]})
    answer = Answer(question="q", sql="SELECT 1", frame=data)
    payload = answer_json(answer)
    assert json.loads(json.dumps(payload))["rows"] == [[None, "2021-01-02", 7, [1, 2]]]
    assert payload["columns"] == ["a", "b", "c", "d"] and payload["truncated"] is False


def test_json_has_the_keys_it_always_had_and_passes_its_own_model():
    answer = Answer(question="q", sql="SELECT 1", frame=pd.DataFrame({"n": [1, 2, 3]}), usage={"generation": {}})
    payload = answer_json(answer, limit=2)
    assert set(payload) == {
        "question", "follows", "sql", "adql", "catalog", "as_of", "dates", "explanation", "alternatives",
        "difficulty", "plan", "attempts", "columns", "fields", "rows", "truncated", "row_count", "usage",
        "candidates", "selection", "findings", "error", "error_kind", "notice",
    }  # fmt: skip
    assert AnswerJson.model_validate(payload).model_dump() == payload
    assert payload["rows"] == [[1], [2]] and payload["row_count"] == 3 and payload["truncated"] is True


def test_plan_and_attempts_text():
    answer = Answer(
        question="q",
        sql="SELECT oid FROM object",
        frame=None,
        difficulty="medium",
        plan=["Read object."],
        attempts=[
            {"sql": "SELECT oid\nFROM objekt", "error_kind": "missing_structure", "message": "no objekt"},
            {"sql": "SELECT oid FROM object", "error_kind": None, "message": None},
        ],
    )
    assert render_plan(answer) == "difficulty: medium\nplan:\n  1. Read object.\n"
    assert render_attempts(answer) == (
        "attempts:\n"
        "  1. missing_structure: no objekt\n"
        "     SELECT oid\n"
        "     FROM objekt\n"
        "  2. ok\n"
        "     SELECT oid FROM object\n"
    )
