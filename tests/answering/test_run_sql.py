"""answering.run_sql: SQL without a model, through the guard, with the catalog's units; refusals say `refused`."""

import pytest

import answering
from answering.errors import AnsweringError
from engines import EngineSettings


def test_runs_sql_and_keeps_units(tiny_dsn):
    answer = answering.run_sql(
        "SELECT oid, meanra, meandec FROM object ORDER BY oid LIMIT 3", engine=EngineSettings(dsn=tiny_dsn)
    )
    assert answer.is_answered and len(answer.frame) == 3 and answer.error is None
    assert str(answer.table["meanra"].unit) == "deg"


def test_guard_refusal_is_an_answer_labelled_refused(tiny_dsn):
    answer = answering.run_sql("DELETE FROM object", engine=EngineSettings(dsn=tiny_dsn))
    assert answer.frame is None and answer.error_kind == "refused" and answer.error.endswith("[refused]")


def test_bad_input_is_one_line(tiny_dsn):
    with pytest.raises(AnsweringError, match="empty"):
        answering.run_sql("  ", engine=EngineSettings(dsn=tiny_dsn))
    with pytest.raises(AnsweringError, match="unknown catalog"):
        answering.run_sql("SELECT 1", catalog="sdss")
