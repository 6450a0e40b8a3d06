"""Tests for db.guard: accepted and rejected statements come from tests/fixtures/guard_cases.yaml."""

import doctest
from pathlib import Path

import pytest
import yaml

import db.guard
from db.errors import ErrorKind, GuardError
from db.guard import DENIED_FUNCTION_PREFIXES, DENIED_FUNCTIONS, check_sql

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "guard_cases.yaml").read_text(encoding="utf-8"))
DENIED_NAMES = sorted(DENIED_FUNCTIONS | {f"{prefix}x" for prefix in DENIED_FUNCTION_PREFIXES})
ACCEPTED = [pytest.param(case, id=case["id"]) for case in CASES["accepted"]]
REJECTED = [pytest.param(case, id=case["id"]) for case in CASES["rejected"]]


def test_guard_case_file_is_large_enough():
    assert len(ACCEPTED) >= 15
    assert len(REJECTED) >= 30


@pytest.mark.parametrize("case", ACCEPTED)
def test_guard_accepts(case):
    assert check_sql(case["sql"]) == case.get("returns", case["sql"].strip())


@pytest.mark.parametrize("case", REJECTED)
def test_guard_rejects(case):
    with pytest.raises(GuardError) as caught:
        check_sql(case["sql"])
    assert case["message"] in caught.value.message
    assert caught.value.kind is ErrorKind.GENERAL
    assert caught.value.sqlstate is None


def test_guard_rejects_insert_with_exact_message():
    with pytest.raises(GuardError) as caught:
        check_sql("insert into object (oid) values ('x')")
    assert caught.value.message == "Only one SELECT or WITH statement is allowed, got INSERT."
    assert str(caught.value) == "Only one SELECT or WITH statement is allowed, got INSERT. [general]"


def test_guard_rejects_two_statements_with_exact_message():
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT 1; SELECT 2;")
    assert caught.value.message == "Expected exactly one SQL statement, got 2."


def test_guard_rejects_denied_function_with_exact_message():
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT oid FROM object WHERE pg_sleep(1) IS NOT NULL")
    assert caught.value.message == "Function pg_sleep is not allowed in queries."


def test_guard_reports_parser_message_for_prose():
    with pytest.raises(GuardError) as caught:
        check_sql("The answer is 42")
    assert caught.value.message == (
        "Could not parse the SQL (line 1, column 13): Invalid expression / Unexpected token. "
        "Write one valid PostgreSQL SELECT statement."
    )


@pytest.mark.parametrize("name", DENIED_NAMES)
@pytest.mark.parametrize(
    "template", ["SELECT {}(1)", 'SELECT "{}"(1)', "SELECT pg_catalog.{}(1)", "SELECT * FROM {}(1)"]
)
def test_guard_rejects_every_denied_name_however_written(name, template):
    with pytest.raises(GuardError) as caught:
        check_sql(template.format(name))
    assert caught.value.message == f"Function {name} is not allowed in queries."


def test_guard_rejects_unicode_escape_with_exact_message():
    with pytest.raises(GuardError) as caught:
        check_sql('SELECT U&"pg\\005fterminate\\005fbackend"(1)')
    assert caught.value.message == "U&\"...\" and U&'...' escapes are not allowed; write names and text plainly."


def test_guard_accepts_q3c_extension_calls():
    sql = "SELECT q3c_ang2ipix(meanra, meandec), q3c_join(1.0, 2.0, meanra, meandec, 0.1) FROM object"
    assert check_sql(sql) == sql


def test_guard_docstring_examples_pass():
    results = doctest.testmod(db.guard)
    assert results.attempted > 0
    assert results.failed == 0
