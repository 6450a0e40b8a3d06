"""Garbage LM output never crashes a run: each stage records a typed failure and falls back."""

import dspy
import pandas as pd
import pytest

from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from metric.perfect_match import row_match
from modules import AlerceText2SQL, DirectText2SQL

GARBAGE = {
    "empty": "",
    "prose": "I would look at the object table and then think about it.",
    "malformed_list": "[[ ## tables ## ]]\n[object, probabil\n\n[[ ## completed ## ]]",
    "unknown_difficulty": "[[ ## difficulty ## ]]\neasy\n\n[[ ## completed ## ]]",
}
GOLD = pd.DataFrame({"oid": ["ZTF20aaaaaaa"]})


class RecordingExecutor(FakeEngine):
    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        self.statements.append(sql)
        raise AssertionError("nothing should run")


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_everywhere_is_recorded_and_scores_zero(garbage):
    executor = RecordingExecutor()
    with dspy.context(lm=fake_lm(lambda call: garbage)):
        pred = AlerceText2SQL(executor)(question="Which objects?", external_knowledge="0", domain_knowledge="0")
    assert pred.sql == "" and executor.statements == [] and pred.result is None
    assert {failure["stage"] for failure in pred.failures} == {
        "schema_linking",
        "classification",
        "decomposition",
        "generation",
    }
    assert {failure["kind"] for failure in pred.failures} <= {"parse", "empty"}
    assert pred.difficulty is None and pred.plan == []
    assert pred.tables  # the full schema, or what could be salvaged from the malformed list
    assert not row_match(GOLD, None, pred.sql).pm


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_in_the_direct_baseline_is_recorded(garbage):
    with dspy.context(lm=fake_lm(lambda call: garbage)):
        pred = DirectText2SQL(RecordingExecutor())(question="Which objects?")
    assert pred.sql == "" and [failure["stage"] for failure in pred.failures] == ["generation"]


def test_unknown_difficulty_escalates_to_a_plan():
    def answer(call):
        if call.stage == "difficulty":
            return GARBAGE["unknown_difficulty"]
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {}}, "plan": {"plan": ["Read object."]}}
        fields["explanation"] = EXPLANATION
        return render_answer(fields.get(call.stage, {"sql": "SELECT oid FROM object"}))

    lm = fake_lm(answer)
    with dspy.context(lm=lm):
        pred = AlerceText2SQL()(question="Which objects?")
    assert [(f["stage"], f["kind"]) for f in pred.failures] == [("classification", "parse")]
    assert pred.difficulty is None and pred.plan == ["Read object."]
    assert pred.sql == "SELECT oid FROM object"
    assert lm.engine_obj.stages() == [
        "tables",
        "columns",
        "difficulty",
        "difficulty",
        "plan",
        "planned",
        "explanation",
    ]


def test_prose_answer_for_sql_is_an_empty_failure():
    def answer(call):
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {}}, "difficulty": {"difficulty": "simple"}}
        return render_answer(fields.get(call.stage, {"sql": "Sorry, I cannot write that query."}))

    with dspy.context(lm=fake_lm(answer)):
        pred = AlerceText2SQL()(question="Which objects?")
    assert pred.failures == [
        {"stage": "generation", "kind": "empty", "message": "The answer holds no SELECT or WITH statement."}
    ]
