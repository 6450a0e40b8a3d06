"""Self-correction runs on execution errors only, typed, bounded, with the right hints."""

import dspy

from lms.fake import fake_lm, render_answer
from metric.perfect_match import row_match
from modules import AlerceText2SQL, PipelineSettings

GOOD_SQL = "SELECT oid, ndet FROM object WHERE ndet > 1"
HALLUCINATED_SQL = "SELECT oid, ndets FROM object WHERE ndet > 1"
SLOW_SQL = "SELECT count(*) FROM generate_series(1, 2000000000) AS g"
QUESTION = "Which objects have more than one detection?"


def scripted(first_sql: str, seen: list):
    """Answer every stage plausibly; generation writes `first_sql`, correction writes GOOD_SQL."""

    def answer(call):
        seen.append(call)
        return render_answer(
            {
                "tables": {"tables": ["object"]},
                "columns": {"columns": {"object": ["oid", "ndet"]}},
                "difficulty": {"difficulty": "simple"},
                "plan": {"plan": ["Filter object on ndet."]},
                "direct": {"sql": first_sql},
                "planned": {"sql": first_sql},
                "correct": {"sql": f"```sql\n{GOOD_SQL};\n```"},
            }[call.stage]
        )

    return answer


def run(executor, first_sql: str, **settings):
    seen: list = []
    program = AlerceText2SQL(executor, PipelineSettings(**settings))
    with dspy.context(lm=fake_lm(scripted(first_sql, seen))):
        return program(question=QUESTION), seen


def test_hallucinated_column_gets_one_missing_structure_correction(executor):
    pred, seen = run(executor, HALLUCINATED_SQL)
    corrections = [call for call in seen if call.stage == "correct"]
    assert [a["error_kind"] for a in pred.attempts] == ["missing_structure", None]
    assert len(corrections) == 1
    assert corrections[0].inputs["error_kind"] == "missing_structure"
    assert corrections[0].inputs["hints"].startswith("Valid names near 'ndets': object.ndet")
    assert pred.sql == GOOD_SQL and pred.error is None
    gold = executor.execute(GOOD_SQL).frame
    assert row_match(gold, pred.result.frame, pred.sql).pm


def test_timeout_gets_one_timeout_correction_with_indexed_columns(executor):
    pred, seen = run(executor, SLOW_SQL, timeout_s=0.5)
    corrections = [call for call in seen if call.stage == "correct"]
    assert [a["error_kind"] for a in pred.attempts] == ["timeout", None]
    assert len(corrections) == 1
    assert corrections[0].inputs["error_kind"] == "timeout"
    assert corrections[0].inputs["hints"].startswith("Indexed columns: object: oid, ndet")
    gold = executor.execute(GOOD_SQL).frame
    assert row_match(gold, pred.result.frame, pred.sql).pm


def test_correction_budget_bounds_the_attempts(executor):
    seen: list = []

    def always_wrong(call):
        seen.append(call)
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {}}, "difficulty": {"difficulty": "simple"}}
        return render_answer(fields.get(call.stage, {"sql": HALLUCINATED_SQL}))

    program = AlerceText2SQL(executor, PipelineSettings(max_corrections=2))
    with dspy.context(lm=fake_lm(always_wrong)):
        pred = program(question=QUESTION)
    assert [a["error_kind"] for a in pred.attempts] == ["missing_structure"] * 3
    assert [call.stage for call in seen].count("correct") == 2
    assert pred.error.kind == "missing_structure" and pred.result is None


def test_switching_self_correction_off_keeps_a_single_attempt(executor):
    pred, seen = run(executor, HALLUCINATED_SQL, stages=("schema_linking", "classification", "decomposition"))
    assert len(pred.attempts) == 1
    assert "correct" not in [call.stage for call in seen]
    assert pred.error.kind == "missing_structure"


def test_no_correction_after_a_successful_execution(executor):
    pred, seen = run(executor, GOOD_SQL)
    assert [a["error_kind"] for a in pred.attempts] == [None]
    assert "correct" not in [call.stage for call in seen]
