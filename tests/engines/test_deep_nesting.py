"""Every reader of user or generated SQL survives nesting deeper than sqlglot can follow: a refusal or a fallback.

sqlglot recurses per nesting level, so where RecursionError strikes depends on the nesting and on how deep the
caller's stack already is (a server thread, a DSPy module). Each reader is run over a range of both.
"""

import sys

import pandas as pd
import pytest
import sqlglot.parser
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from answering.columns import source_columns
from catalog import load_catalog
from engines.adql.guard import check_adql
from engines.adql.translation import translate
from engines.errors import ExecutionError, GuardError
from engines.guard import check_sql
from engines.sql_tree import MAX_NESTING, nesting
from modules.explanation import read_schema_text
from modules.selection.sql_difference import describe_difference
from modules.value_check.literals import find_unknown_values, replace_unknown_values
from modules.value_check.vocabulary import Vocabulary

VOCABULARY = Vocabulary({("object", "oid"): frozenset({"ZTF1"})})


def _nested(depth: int, unit: tuple[str, str] = ("(", ")")) -> str:
    opening, closing = unit
    return f"SELECT {opening * depth}oid{closing * depth} AS x FROM object WHERE oid = 'ZTF2'"


def _refused(call, sql: str, errors: type[Exception], fragment: str) -> None:
    """`call` either returns or raises `errors` naming `fragment` (a too-deep refusal) in one line."""
    try:
        call(sql)
    except errors as err:
        message = getattr(err, "message", str(err))
        assert "\n" not in message
        if "nested too deeply" in message:
            assert message.startswith(fragment)


# name -> (call, what a refusal raises, how a too-deep refusal starts); helpers fall back instead of refusing
READERS = {
    "sql guard": (check_sql, GuardError, "The SQL is nested too deeply"),
    "adql guard": (lambda sql: check_adql(sql.replace("FROM object", "FROM ztf.object")), GuardError, "The ADQL"),
    "adql translation": (translate, ExecutionError, "The SQL is nested too deeply"),
    "result columns": (lambda sql: source_columns(sql, ["x"]), (), ""),
    "explanation schema": (lambda sql: read_schema_text(sql, load_catalog()), (), ""),
    "alternative difference": (lambda sql: describe_difference("SELECT oid FROM object", sql), (), ""),
    "value check": (lambda sql: find_unknown_values(sql, VOCABULARY), (), ""),
    "value replacement": (lambda sql: replace_unknown_values(sql, VOCABULARY), (), ""),
}


def _at_stack_depth(frames: int, call):
    """Run `call` below `frames` extra stack frames, as a deeper caller would."""
    if frames == 0:
        return call()
    return _at_stack_depth(frames - 1, call)


@pytest.mark.parametrize("reader", READERS, ids=list(READERS))
def test_deep_nesting_is_refused_or_falls_back_at_any_stack_depth(reader):
    call, errors, fragment = READERS[reader]
    headroom = sys.getrecursionlimit()
    for frames in (0, headroom // 3, 2 * headroom // 3):
        for depth in (*range(5, 80, 6), 400, 3_000):
            _at_stack_depth(frames, lambda depth=depth: _refused(call, _nested(depth), errors, fragment))


@pytest.mark.parametrize("unit", [("(", ")"), ("NOT ", ""), ("(SELECT ", ")")], ids=["brackets", "not", "subquery"])
def test_the_adql_box_refuses_400_levels_in_one_line(unit):
    with pytest.raises(GuardError) as refused:
        check_adql(_nested(400, unit).replace("FROM object", "FROM ztf.object"))
    assert (
        refused.value.message
        == "The ADQL is nested too deeply to read; flatten the expression (fewer nested brackets)."
    )


def test_translation_refuses_what_it_cannot_follow():
    with pytest.raises(ExecutionError) as refused:
        translate(_nested(400))
    assert refused.value.message.startswith("The SQL is nested too deeply")


def test_helpers_fall_back_as_for_sql_that_does_not_parse():
    deep = _nested(400)
    assert source_columns(deep, ["x", "y"]) == [None, None]
    assert read_schema_text(deep, load_catalog()) == ""
    assert describe_difference("SELECT oid FROM object", deep).startswith("cannot be compared")
    assert replace_unknown_values(deep, VOCABULARY) == deep


GUARDS = {
    "sql": (check_sql, "The SQL"),
    "adql": (lambda sql: check_adql(sql.replace("FROM object", "FROM ztf.object")), "The ADQL"),
}
DEEP_UNITS = [("sql", ("ARRAY[", "]"))] + [  # ADQL has no arrays: "[" opens a quoted name there
    (guard, unit)
    for guard in GUARDS
    for unit in [("(", ")"), ("NOT ", ""), ("- ", ""), ("(SELECT ", ")"), ("NOT (", ")"), ("CASE WHEN x THEN ", " END")]
]


@pytest.mark.parametrize(("guard", "unit"), DEEP_UNITS, ids=str)
def test_the_guards_refuse_deep_text_from_its_tokens_before_the_parser_recurses(monkeypatch, guard, unit):
    """Recursing to the limit is not harmless (a finalizer run there fails unseen), so the parser is never called."""

    def no_parse(*args, **kwargs):
        raise AssertionError("the parser was called")

    monkeypatch.setattr(sqlglot.parser.Parser, "parse", no_parse)
    check, name = GUARDS[guard]
    with pytest.raises(GuardError) as refused:
        check(_nested(MAX_NESTING + 1, unit))
    assert refused.value.message.startswith(f"{name} is nested too deeply")


def test_nesting_within_the_bound_still_reaches_the_parser():
    assert check_sql(_nested(MAX_NESTING)).startswith("SELECT")
    assert check_adql(_nested(MAX_NESTING).replace("FROM object", "FROM ztf.object")).startswith("SELECT")


def _depth(sql: str) -> int:
    return nesting(Dialect.get_or_raise("postgres").tokenize(sql))


def test_real_queries_nest_well_within_the_bound(dev_csv_path):
    golds = pd.read_csv(dev_csv_path)["gold_query"]
    assert max(golds.map(_depth)) <= MAX_NESTING // 2
    answers = pd.read_csv(dev_csv_path.parent / "peer_predictions_dev.csv")["sql"].dropna()
    readable = [sql for sql in answers if _tokenizes(sql)]  # the guards refuse the others before any nesting
    within = sum(_depth(sql) <= MAX_NESTING // 2 for sql in readable)
    assert len(readable) > 1_900
    assert within >= 0.99 * len(readable)  # the rest are degenerate answers that repeat one subquery over and over


def _tokenizes(sql: str) -> bool:
    try:
        Dialect.get_or_raise("postgres").tokenize(sql)
    except SqlglotError:
        return False
    return True


@pytest.mark.parametrize(
    "unit", [("(", ")"), ("abs(", ")"), ("NOT (", ")"), ("CASE WHEN x THEN ", " END"), ("(SELECT ", ")")], ids=str
)
def test_text_within_the_bound_parses_deep_in_the_stack(unit):
    """What the guards let through leaves room below it: a finalizer run at its deepest point still has stack."""
    opening, closing = unit
    n = max(k for k in range(1, MAX_NESTING + 1) if _depth(f"SELECT {opening * k}1{closing * k}") <= MAX_NESTING)
    deepest = f"SELECT {opening * n}1{closing * n}"
    assert _at_stack_depth(sys.getrecursionlimit() // 2, lambda: check_sql(deepest)) == deepest
