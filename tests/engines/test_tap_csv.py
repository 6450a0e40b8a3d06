"""Results with arrays of strings: pyvo refuses their VOTable, the engine reads them as CSV (no DaCHS needed)."""

import io

import pandas as pd
import pytest
from astropy.io.votable import parse
from pyvo.dal import DALFormatError

from engines.tap.csv import csv_table, holds_string_arrays

VOTABLE = """<?xml version="1.0"?>
<VOTABLE version="1.4" xmlns="http://www.ivoa.net/xml/VOTable/v1.3"><RESOURCE type="results"><TABLE>
<FIELD name="classes" datatype="char" arraysize="{arraysize}"/><DATA><TABLEDATA><TR><TD>x</TD></TR></TABLEDATA></DATA>
</TABLE></RESOURCE></VOTABLE>"""


def refusal(arraysize: str) -> DALFormatError | None:
    """The error pyvo raises when astropy cannot parse a VOTable with this arraysize (None when it parses)."""
    try:
        parse(io.BytesIO(VOTABLE.format(arraysize=arraysize).encode()))
    except Exception as err:  # pyvo wraps whatever astropy raises
        return DALFormatError(err)
    return None


def test_an_array_of_strings_is_what_the_csv_path_is_for():
    assert refusal("*") is None
    assert holds_string_arrays(refusal("*x*"))
    assert not holds_string_arrays(DALFormatError(ValueError("truncated document")))


def test_list_literals_come_back_as_lists_and_empty_cells_as_none():
    data = b"classifier_name,classes\r\nlc,\"['SNIa', 'CV/Nova', 'EB/EW']\"\r\nstamp,\"['SN', 'AGN']\"\r\nnone,\r\n"
    table = csv_table(data)
    assert table["classes"].shape == (3,)
    frame = table.to_pandas(index=False)
    assert frame["classes"].tolist() == [["SNIa", "CV/Nova", "EB/EW"], ["SN", "AGN"], None]
    assert frame["classifier_name"].tolist() == ["lc", "stamp", "none"]


@pytest.mark.parametrize(
    "cells",
    [["[SNIa]", "x"], ["[not python", "['a']"], ["[1", "2]"], ["plain", "text"]],
    ids=["one-plain", "unparsable", "split", "text"],
)
def test_a_text_column_that_is_not_all_list_literals_stays_text(cells):
    data = "name\r\n" + "".join(f'"{cell}"\r\n' for cell in cells)
    assert csv_table(data.encode())["name"].tolist() == cells


def test_numbers_keep_their_types():
    frame = csv_table(b"oid,ndet,meanra\r\nZTF1,3,10.5\r\nZTF2,,11.25\r\n").to_pandas(index=False)
    assert frame["ndet"].tolist()[0] == 3 and pd.isna(frame["ndet"].tolist()[1])
    assert frame["meanra"].tolist() == [10.5, 11.25]
