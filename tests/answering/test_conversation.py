"""Follow-up questions from Python: a conversation answers each question from the answer before it."""

import dataclasses

import pytest

from answering import Answer, CannotFollowUp, load
from engines import EngineSettings
from lms.fake import EXPLANATION
from modules.settings import ProgramSettings
from tests.answering.scripts import BROKEN_SQL, LITERAL_SQL, scripted_lm


@pytest.fixture
def open_program(tiny_dsn):
    """Open a program over the tiny database whose fake LM writes the given SQL; closed after the test."""
    opened = []

    def open_with(sql: str = LITERAL_SQL, **program: object):
        lm = scripted_lm(sql)
        settings = ProgramSettings(uncompiled=True, **program)
        t2s = load("fake/scripted", program=settings, engine=EngineSettings(dsn=tiny_dsn), lm=lm)
        opened.append(t2s)
        return t2s, lm

    yield open_with
    for t2s in opened:
        t2s.close()


def test_a_follow_up_sees_the_earlier_question_sql_and_explanation(open_program):
    t2s, lm = open_program()
    talk = t2s.conversation()
    first = talk.ask("Which objects were first detected in September 2023?")
    calls_before = len(lm.engine_obj.calls)
    second = talk.ask("now only those with more than 50 detections")
    assert first.follows is None and second.follows == first.question and talk.answers == [first, second]
    knowledge = lm.engine_obj.calls[calls_before].inputs["knowledge"]
    assert "-- Earlier question: Which objects were first detected in September 2023?" in knowledge
    assert f"-- Earlier query:\n{LITERAL_SQL}\n" in knowledge
    assert f"-- What the earlier query returns:\n-- {EXPLANATION['summary']}" in knowledge
    assert second.dates == []


def test_a_follow_up_on_an_answer_that_failed_is_one_clear_line(open_program):
    t2s, lm = open_program(BROKEN_SQL)
    talk = t2s.conversation()
    failed = talk.ask("Which objects?")
    calls = len(lm.engine_obj.calls)
    with pytest.raises(CannotFollowUp) as info:
        talk.ask("now only the bright ones")
    assert str(info.value) == (
        "cannot follow up an answer that failed (missing_structure); ask the question on its own, or rephrase "
        "the earlier one"
    )
    assert info.value.reason == "failed" and talk.answers == [failed] and len(lm.engine_obj.calls) == calls
    talk.restart()
    assert talk.ask("Which objects now?").follows is None


def test_a_follow_up_on_another_catalog_is_one_clear_line(open_program):
    t2s, _ = open_program()
    earlier = Answer(question="q", sql=LITERAL_SQL, frame=None, catalog="multisurvey")
    earlier = dataclasses.replace(earlier, frame=t2s.ask("How many?").frame)
    with pytest.raises(CannotFollowUp) as info:
        t2s.ask("same for 2024", follows=earlier)
    assert str(info.value) == (
        "cannot follow up an answer on the multisurvey catalog with a program for the ztf catalog; ask the "
        "question on its own"
    )


def test_the_direct_baseline_answers_no_follow_up(open_program):
    t2s, _ = open_program(direct=True)
    talk = t2s.conversation()
    talk.ask("How many?")
    with pytest.raises(CannotFollowUp) as info:
        talk.ask("same for 2024")
    assert str(info.value) == "the direct baseline answers each question on its own; ask it without an earlier answer"
