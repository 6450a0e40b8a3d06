"""Result checks against the question's text."""

import pandas as pd
import pytest

from modules.result_check.findings import check_result, requested_columns, stated_row_limit
from modules.run.findings import FindingKind

LIMITS = [
    ("the n brightest", "Give me the 10 brightest objects", 10),
    ("at most", "List at most 5 SNe Ia", 5),
    ("top", "The top 1000 candidates by probability", 1000),
    ("number word", "Show the five most recent alerts", 5),
    ("condition is not a limit", "Objects with more than 20 detections", None),
    ("first n days is not a limit", "Detections in the first 10 days", None),
    ("per group", "The 3 brightest objects per band", None),
]  # fmt: skip


@pytest.mark.parametrize(("question", "expected"), [c[1:] for c in LIMITS], ids=[c[0] for c in LIMITS])
def test_stated_row_limit(question, expected):
    assert stated_row_limit(question) == expected


def test_requested_columns_reads_quotes_and_column_lists():
    assert requested_columns("Return the columns: oid, firstmjd and 'ndet'") == ["oid", "firstmjd", "ndet"]
    assert requested_columns("Rename it as 'band' and keep the 'ndet' column") == ["band", "ndet"]
    assert requested_columns("Return the following columns: ZTF identifier, number of detections") == []
    assert requested_columns("Objects of class 'SNIa' in the 'probability' table") == []


def _kinds(question: str, frame: pd.DataFrame, sql: str = "") -> list[str]:
    return [finding.kind.value for finding in check_result(question, frame, sql)]


def test_empty_result():
    assert _kinds("Which objects are QSOs?", pd.DataFrame({"oid": []})) == ["empty_result"]


def test_row_count_above_the_stated_number():
    assert _kinds("The 2 brightest objects", pd.DataFrame({"oid": ["a", "b", "c"]})) == ["row_count"]
    assert _kinds("The 2 brightest objects", pd.DataFrame({"oid": ["a", "b"]})) == []


def test_missing_columns_only_when_named():
    frame = pd.DataFrame({"oid": ["a"], "ndet": [1]})
    assert _kinds("Return the following columns: oid, meanra.", frame) == ["missing_columns"]
    assert _kinds("Which objects have many detections?", frame) == []


def test_repeated_objects_when_the_question_asks_for_objects():
    frame = pd.DataFrame({"oid": ["a", "a", "b"]})
    assert _kinds("Which objects are SNe?", frame) == ["repeated_objects"]
    assert _kinds("Give the detections of SNe objects", frame) == []


@pytest.mark.parametrize(
    "question",
    [
        "List 20 elements of the magstat table for objects seen in the r band.",
        "Return up to 300 rows of the 'feature' table for objects classified as QSO",
        "Show the objects most likely to be RRL together with all their class probabilities.",
        "For the objects 'ZTF20abcdefg' and 'ZTF21hijklmn', list all their epochs",
        "Give everything stored for the object 'ZTF21abcdxyz'",
    ],
    ids=["elements of a table", "rows of a table", "probabilities per class", "epochs", "a named object"],
)
def test_repeated_objects_not_when_rows_about_objects_are_asked_for(question):
    assert _kinds(question, pd.DataFrame({"oid": ["a", "a", "b"]})) == []


def test_count_as_rows():
    assert _kinds("How many SNe are there?", pd.DataFrame({"count": [1, 2]})) == ["count_as_rows"]
    assert _kinds("How many detections does each object have?", pd.DataFrame({"count": [1, 2]})) == []
    assert _kinds("Count the SNe Ia", pd.DataFrame({"count": [1, 2]})) == ["count_as_rows"]
    assert _kinds("Return the oid and the number of detections", pd.DataFrame({"count": [1, 2]})) == []


def test_finding_messages_quote_the_numbers():
    (finding,) = check_result("List at most 1 object", pd.DataFrame({"oid": ["a", "b"]}))
    assert finding.kind is FindingKind.ROW_COUNT
    assert finding.message == "The question asks for at most 1 rows, the result has 2."
