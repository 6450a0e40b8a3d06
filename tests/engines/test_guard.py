"""Tests for engines.guard: statements from tests/fixtures/guard_cases.yaml, the deny list from guard_deny_list.yaml."""

import time
from pathlib import Path

import pytest
import yaml

import engines.guard
from engines.errors import ErrorKind, GuardError
from engines.guard import MAX_SQL_CHARS, check_sql
from engines.sql_tree import MAX_NESTING

FIXTURES = Path(__file__).parents[1] / "fixtures"
CASES = yaml.safe_load((FIXTURES / "guard_cases.yaml").read_text(encoding="utf-8"))
# The deny list is pinned by hand in the fixture, not read from engines.guard: a name dropped from the guard fails here.
DENY_LIST = yaml.safe_load((FIXTURES / "guard_deny_list.yaml").read_text(encoding="utf-8"))
DENIED_NAMES = sorted(
    set(DENY_LIST["functions"])
    | {f"{prefix}x" for prefix in DENY_LIST["function_prefixes"]}
    | {f"x{fragment}x" for fragment in DENY_LIST["function_fragments"]}
)
DENIED_FAMILY_MEMBERS = sorted(
    {
        name
        for family in ("function_prefixes", "function_fragments")
        for names in DENY_LIST[family].values()
        for name in names
    }
)
DENIED_RELATION_NAMES = sorted(
    set(DENY_LIST["relations"])
    | {f"{prefix}x" for prefix in DENY_LIST["relation_prefixes"]}
    | {name for names in DENY_LIST["relation_prefixes"].values() for name in names}
)
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
    assert str(caught.value) == "Only one SELECT or WITH statement is allowed, got INSERT. [refused]"


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


@pytest.mark.parametrize("name", DENIED_FAMILY_MEMBERS)
@pytest.mark.parametrize("template", ["SELECT {}(1)", "SELECT * FROM {}(1)"])
def test_guard_rejects_real_members_of_every_denied_family(name, template):
    with pytest.raises(GuardError) as caught:
        check_sql(template.format(name))
    assert caught.value.message.lower() == f"function {name} is not allowed in queries."


def test_deny_list_fixture_pins_the_whole_guard_deny_list():
    # The other direction: a name added to the guard without a pinned case here fails.
    assert set(DENY_LIST["functions"]) == engines.guard.DENIED_FUNCTIONS
    assert set(DENY_LIST["function_prefixes"]) == set(engines.guard.DENIED_FUNCTION_PREFIXES)
    assert set(DENY_LIST["function_fragments"]) == set(engines.guard.DENIED_FUNCTION_FRAGMENTS)
    assert set(DENY_LIST["relations"]) == engines.guard.DENIED_RELATIONS
    assert set(DENY_LIST["relation_prefixes"]) == set(engines.guard.DENIED_RELATION_PREFIXES)


@pytest.mark.parametrize("name", DENIED_NAMES)
@pytest.mark.parametrize(
    "template", ["SELECT x.{} FROM generate_series(0, 0) x", 'SELECT t.x."{}" FROM t', "SELECT a.b.c.d.{} FROM t"]
)
def test_guard_rejects_functional_notation_of_every_denied_name(name, template):
    with pytest.raises(GuardError) as caught:
        check_sql(template.format(name))
    assert caught.value.message.startswith(f"Function {name} is not allowed in queries (written as ")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT (3::float8).pg_sleep",
        "SELECT (1).text",
        "SELECT (o.ndet).lower FROM object o",
        "SELECT (ARRAY[1])[1].abs",
        "SELECT (SELECT 1).abs",
        "SELECT (lower('x')).upper",
        "SELECT (o).oid FROM object o",
        "SELECT (o).* FROM object o",
    ],
)
def test_guard_rejects_functional_notation_on_any_expression(sql):
    with pytest.raises(GuardError) as caught:
        check_sql(sql)
    assert caught.value.message == (
        "(expression).name is not allowed: PostgreSQL reads it as the function call name(expression); "
        "write functions as name(arguments) and columns as table.column."
    )


@pytest.mark.parametrize("name", DENIED_RELATION_NAMES)
@pytest.mark.parametrize("template", ["SELECT * FROM {}", "SELECT * FROM pg_catalog.{}", 'SELECT 1 FROM "{}" a'])
def test_guard_rejects_views_of_other_sessions(name, template):
    with pytest.raises(GuardError) as caught:
        check_sql(template.format(name))
    assert caught.value.message == f"Relation {name} is not allowed in queries: it shows other sessions."


def test_guard_refuses_text_over_the_length_cap_before_parsing(monkeypatch):
    monkeypatch.setattr(engines.guard, "_tokenize", lambda sql: pytest.fail("tokenized text over the cap"))
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT 1 WHERE 1 IN (" + "1," * MAX_SQL_CHARS + "1)")
    assert caught.value.message == (
        f"The SQL text has {2 * MAX_SQL_CHARS + 23:,} characters, more than the {MAX_SQL_CHARS:,} allowed; "
        "write a shorter query."
    )


def test_guard_accepts_a_long_in_list_under_the_cap():
    sql = "SELECT oid FROM object WHERE oid IN (" + ", ".join(f"'ZTF{n:09d}'" for n in range(5_000)) + ")"
    assert len(sql) < MAX_SQL_CHARS
    assert check_sql(sql) == sql


def test_guard_stops_parsing_at_its_time_limit(monkeypatch):
    """Nested ARRAY[ makes sqlglot backtrack (for seconds at the nesting bound): the deadline stops it."""
    monkeypatch.setattr("engines.guard.MAX_PARSE_S", 0.2)
    deep = "SELECT " + "ARRAY[" * MAX_NESTING + "1" + "]" * MAX_NESTING
    started = time.monotonic()
    with pytest.raises(GuardError) as caught:
        check_sql(deep)
    assert time.monotonic() - started < 0.2 + 3
    assert (
        caught.value.message == "The SQL took more than 0.2 s to parse; write a simpler query (fewer nested brackets)."
    )


@pytest.mark.parametrize("depth", [1_000, 10_000])
@pytest.mark.parametrize("unit", [("(", ")"), ("NOT ", ""), ("- ", ""), ("(SELECT ", ")")])
def test_guard_refuses_deep_nesting_without_recursion_error(depth, unit):
    opening, closing = unit
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT " + opening * depth + "1" + closing * depth)
    assert caught.value.message.startswith(("The SQL is nested too deeply", "The SQL took more than"))


def test_guard_refuses_a_lone_surrogate():
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT 'a\ud800b' AS s")
    assert caught.value.message == "The SQL text holds a character that is not valid Unicode at position 9; remove it."


def test_guard_turns_an_internal_failure_into_a_guard_error(monkeypatch):
    def broken(statement):
        raise IndexError("list index out of range")

    monkeypatch.setattr(engines.guard, "_check_tree", broken)
    with pytest.raises(GuardError) as caught:
        check_sql("SELECT 1")
    assert caught.value.message == "Could not check the SQL (IndexError); write one plain SELECT statement."


def test_guard_rejects_unicode_escape_with_exact_message():
    with pytest.raises(GuardError) as caught:
        check_sql('SELECT U&"pg\\005fterminate\\005fbackend"(1)')
    assert caught.value.message == "U&\"...\" and U&'...' escapes are not allowed; write names and text plainly."


def test_guard_accepts_q3c_extension_calls():
    sql = "SELECT q3c_ang2ipix(meanra, meandec), q3c_join(1.0, 2.0, meanra, meandec, 0.1) FROM object"
    assert check_sql(sql) == sql
