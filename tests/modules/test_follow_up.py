"""A follow-up question: the earlier question, its SQL and its explanation join the knowledge the stages see."""

from datetime import date

import dspy

from lms.fake import fake_lm, render_answer
from modules import AlerceText2SQL, FollowUp, PipelineSettings

EARLIER = FollowUp(
    question="Which SNe Ia were first detected in September 2023?",
    sql="SELECT oid FROM object WHERE firstmjd >= 60188 AND firstmjd < 60218",
    explanation="Objects first detected in September 2023.",
)


def knowledge_seen(question: str, follow_up: FollowUp | None, **knowledge: str) -> list[str]:
    lm = fake_lm(lambda call: render_answer({"sql": "SELECT oid FROM object"}))
    settings = PipelineSettings(stages=("dates", "generation"), as_of=date(2026, 12, 1))
    with dspy.context(lm=lm):
        AlerceText2SQL(settings=settings)(question=question, follow_up=follow_up, **knowledge)
    return [call.inputs["knowledge"] for call in lm.engine_obj.calls]


def test_the_earlier_turn_joins_the_knowledge_after_the_dates():
    [seen] = knowledge_seen("same for 2024", EARLIER, external_knowledge="-- given")
    assert seen == (
        "-- given\n"
        '-- "2024": 60310.0 <= mjd < 60676.0 (2024-01-01 to 2025-01-01, UTC)\n'
        "-- This question follows up an earlier one: start from the earlier query, change what this question asks "
        "and keep the rest.\n"
        "-- Earlier question: Which SNe Ia were first detected in September 2023?\n"
        "-- Earlier query:\n"
        "SELECT oid FROM object WHERE firstmjd >= 60188 AND firstmjd < 60218\n"
        "-- What the earlier query returns:\n"
        "-- Objects first detected in September 2023."
    )


def test_an_earlier_turn_of_sql_written_by_hand_has_no_question_or_explanation_lines():
    [seen] = knowledge_seen("now only those with more than 50 detections", FollowUp("", "SELECT oid FROM object"))
    assert "Earlier question" not in seen and "What the earlier query returns" not in seen
    assert seen.endswith("-- Earlier query:\nSELECT oid FROM object")


def test_a_question_of_its_own_sees_no_earlier_turn():
    assert knowledge_seen("How many objects are there?", None) == [""]
