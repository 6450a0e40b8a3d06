"""Downloads that other programs open: CSV safe in a spreadsheet, VOTable well-formed whatever the cells hold."""

import csv
import io
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from astropy.table import Table

from answering.api import Answer
from answering.cells import unique_labels
from answering.render import render_csv
from serve.exports import download

FORMULAS = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\t=1", "\r=1", '=HYPERLINK("http://x")', "-", "+"]


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("formula", FORMULAS)
def test_csv_neutralises_formulas_in_values_and_labels(formula):
    frame = pd.DataFrame({formula: [formula, "ZTF1", None], "n": [1, 2, 3]})
    header, *rows = read_csv(render_csv(frame))
    assert header == ["'" + formula, "n"]
    assert [row[0] for row in rows] == ["'" + formula, "ZTF1", ""]


def test_csv_carriage_return_inside_a_value_cannot_start_a_row():
    frame = pd.DataFrame({"note": ["ok\r=1+1", "x"], "n": [1, 2]})
    assert read_csv(render_csv(frame)) == [["note", "n"], ["ok\r=1+1", "1"], ["x", "2"]]


def test_csv_numbers_stay_numbers():
    frame = pd.DataFrame(
        {
            "delta": [-1.5, 2.0, -3e-5],
            "n": [-1, 0, 7],
            "text_number": ["-1.5", "+2", "-3e-5"],
            "mixed": pd.Series([-4, "x", None], dtype=object),
        }
    )
    assert read_csv(render_csv(frame))[1:] == [
        ["-1.5", "-1", "-1.5", "-4"],
        ["2.0", "0", "+2", "x"],
        ["-3e-05", "7", "-3e-5", ""],
    ]


CONTROL = "".join(chr(code) for code in range(32) if chr(code) not in "\t\n\r")


def test_votable_with_control_characters_is_well_formed_and_reads_back():
    frame = pd.DataFrame({"oid": [f"ZTF{CONTROL}1", "ZTF2"], f"label{CONTROL}": ["a\x00", None], "n": [1, 2]})
    answer = Answer(question="q", sql="SELECT oid, n FROM object", frame=frame)
    document = download(answer, "votable")
    ET.fromstring(document)  # raises on a character XML 1.0 cannot hold
    table = Table.read(io.BytesIO(document), format="votable", use_names_over_ids=True)
    assert len(table) == 2 and list(table["n"]) == [1, 2]
    assert table["oid"][0] == "ZTF" + "\ufffd" * len(CONTROL) + "1" and table["oid"][1] == "ZTF2"
    assert table.colnames[1] == "label" + "\ufffd" * len(CONTROL)


def test_votable_labels_stay_distinct_when_cleaning_makes_them_equal():
    frame = pd.DataFrame([[1, 2, 3]], columns=["a\x00", "a\x01", "a\ufffd"])
    table = Table.read(io.BytesIO(download(Answer(question="q", sql="SELECT 1", frame=frame), "votable")))
    assert len(set(table.colnames)) == 3 and list(table[0]) == [1, 2, 3]


def test_repeated_labels_are_distinct_and_their_total_length_grows_linearly():
    labels = unique_labels(pd.DataFrame([[0] * 1600], columns=["oid"] * 1600))
    assert len(set(labels)) == 1600 and labels[:3] == ["oid", "oid_", "oid_2"]
    assert sum(map(len, labels)) < 10 * 1600  # suffixing "_" until unique made 1,600 labels of 1.3 M characters


def test_repeated_labels_skip_names_already_taken():
    assert unique_labels(pd.DataFrame([[0] * 5], columns=["a", "a_", "a_2", "a", "a"])) == [
        "a",
        "a_",
        "a_2",
        "a_3",
        "a_4",
    ]
