"""The explanation stage: plain words on the final SQL, typed, switchable, and it never changes the SQL."""

import dspy
import pytest

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules import STAGES, AlerceText2SQL, PipelineSettings

SQL = "SELECT oid, ndet FROM object WHERE ndet > 50 ORDER BY ndet DESC LIMIT 10"
GIVEN = {
    "summary": "The 10 objects with the most detections, among those with more than 50.",
    "conditions": ["more than 50 detections", "  "],
    "ordering": "by number of detections, most first; 10 kept",
    "assumptions": ["'many' read as more than 50 detections"],
}


class Accepting(FakeEngine):
    def execute(self, sql, *, timeout_s=None, max_rows=None):
        return object()


class Failing(FakeEngine):
    def execute(self, sql, *, timeout_s=None, max_rows=None):
        raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "ndet" does not exist')


def explained(explanation: object, executor=None, stages=("generation", "explanation")):
    def answer(call):
        if call.stage == "explanation":
            return explanation if isinstance(explanation, str) else render_answer(explanation)
        return render_answer({"sql": SQL})

    lm = fake_lm(answer)
    with dspy.context(lm=lm):
        pred = AlerceText2SQL(executor or Accepting(), PipelineSettings(stages=stages))(question="Which objects?")
    return pred, lm.engine_obj.calls


def test_the_explanation_is_typed_and_blank_items_are_dropped():
    pred, calls = explained(GIVEN)
    assert pred.explanation == {**GIVEN, "conditions": ["more than 50 detections"]}
    assert pred.sql == SQL and calls[-1].inputs["sql"] == SQL and pred.usage["explanation"]["calls"] == 1


def test_the_explanation_sees_only_the_tables_and_columns_the_sql_reads():
    _, calls = explained(GIVEN)
    schema_text = calls[-1].inputs["schema_text"]
    assert schema_text.startswith("table object") and "  ndet integer" in schema_text
    assert "table probability" not in schema_text and "meanra" not in schema_text


def test_an_explanation_that_offers_sql_never_changes_the_sql():
    pred, _ = explained({**EXPLANATION, "summary": "Better: SELECT * FROM detection"})
    assert pred.sql == SQL and pred.result is not None
    assert pred.attempts == [{"sql": SQL, "error_kind": None, "message": None}]


@pytest.mark.parametrize(
    ("answer", "kind"),
    [("no fields at all", "parse"), (render_answer({**EXPLANATION, "summary": " "}), "empty")],
    ids=["parse", "empty"],
)
def test_an_unusable_explanation_is_a_failure_and_none(answer, kind):
    pred, _ = explained(answer)
    assert pred.explanation is None and pred.sql == SQL
    assert [(f["stage"], f["kind"]) for f in pred.failures] == [("explanation", kind)]


def test_sql_that_failed_is_not_explained():
    pred, calls = explained(GIVEN, Failing())
    assert pred.error is not None and pred.explanation is None
    assert all(call.stage != "explanation" for call in calls)


def test_switched_off_there_is_no_call_and_no_explanation():
    pred, calls = explained(GIVEN, stages=tuple(stage for stage in STAGES if stage != "explanation"))
    assert pred.explanation is None and "explanation" not in pred.usage
    assert all(call.stage != "explanation" for call in calls)
