"""What self-correction is shown per error kind."""

import pytest

from catalog import load_catalog
from engines.errors import ErrorKind, ExecutionError
from modules.self_correction.context import correction_context, missing_name


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ('column "ndets" does not exist', "ndets"),
        ("column o.ndets does not exist", "o.ndets"),
        ('relation "objects" does not exist', "objects"),
        ("function q3c_radial(double precision, double precision) does not exist", "q3c_radial"),
        ('missing FROM-clause entry for table "sq"', "sq"),
        ("syntax error at or near FROM", None),
    ],
)
def test_missing_name(message, name):
    assert missing_name(message) == name


def test_missing_column_hints_linked_tables_first_and_widens_the_schema():
    error = ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", "column o.dmdt_frist does not exist")
    schema_text, hints = correction_context(load_catalog(), error, ["object", "magstat"], {"object": ["ndet"]})
    assert hints.startswith("Valid names near 'o.dmdt_frist': magstat.dmdt_first")
    assert "  meanra " in schema_text  # pruned columns come back


def test_missing_table_adds_the_closest_table():
    error = ExecutionError(ErrorKind.MISSING_STRUCTURE, "42P01", 'relation "magstats" does not exist')
    schema_text, hints = correction_context(load_catalog(), error, ["object"], None)
    assert hints.startswith("Valid names near 'magstats': magstat")
    assert "table magstat " in schema_text


def test_timeout_hints_indexed_columns():
    error = ExecutionError(ErrorKind.TIMEOUT, "57014", "canceling statement due to statement timeout")
    _, hints = correction_context(load_catalog(), error, ["object"], None)
    assert hints.startswith("Indexed columns: object: oid, ndet")


def test_general_error_has_no_hints():
    error = ExecutionError(ErrorKind.GENERAL, "42601", "syntax error at or near FROM")
    assert correction_context(load_catalog(), error, ["object"], None)[1] == ""
