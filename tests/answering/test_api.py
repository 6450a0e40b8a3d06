"""The Python API answers with a DataFrame, reports why it could not, and cleans its inputs."""

import pytest

from answering import Answer, BadQuestion, clean_text, load
from answering.question import MAX_QUESTION_CHARS
from engines import EngineSettings
from modules import UnknownStageError
from modules.settings import ProgramSettings
from tests.answering.scripts import BROKEN_SQL, LITERAL_SQL, demo_model_lm, scripted_lm


def test_ask_returns_the_rows_of_the_sql(tiny_dsn):
    lm = scripted_lm()
    with load(
        "fake/scripted", program=ProgramSettings(uncompiled=True), engine=EngineSettings(dsn=tiny_dsn), lm=lm
    ) as t2s:
        answer = t2s.ask("How many?\x00")
    assert isinstance(answer, Answer) and answer.is_answered
    assert answer.question == "How many?" and answer.sql == LITERAL_SQL
    assert answer.frame.to_dict("list") == {"n": [1, 22], "name": ["ZTF", None]}
    assert answer.error is None and answer.difficulty == "simple" and answer.plan == []
    assert answer.attempts == [{"sql": LITERAL_SQL, "error_kind": None, "message": None}]
    # "How many?" answered with two rows: the result check's count_as_rows retry made one call.
    assert set(answer.usage) == {"schema_linking", "classification", "generation", "result_check", "explanation"}


def test_a_failing_query_gives_an_error_after_the_corrections(tiny_dsn):
    with load(
        "fake/scripted",
        program=ProgramSettings(uncompiled=True),
        engine=EngineSettings(dsn=tiny_dsn),
        lm=scripted_lm(BROKEN_SQL),
    ) as t2s:
        answer = t2s.ask("Which objects?")
    assert not answer.is_answered and answer.frame is None
    assert answer.error == 'could not answer (missing_structure): relation "objekt" does not exist'
    assert answer.error_kind == "missing_structure" and len(answer.attempts) == 3


def test_without_switches_stages_off(tiny_dsn):
    lm = scripted_lm(difficulty="medium")
    with load(
        "fake/scripted",
        program=ProgramSettings(uncompiled=True, without=("classification",)),
        engine=EngineSettings(dsn=tiny_dsn),
        lm=lm,
    ) as t2s:
        answer = t2s.ask("Which objects?")
    assert "classification" not in lm.engine_obj.stages()
    assert "classification" not in answer.usage and answer.plan == ["Read object.", "Count rows."]


def test_candidates_overrides_the_models_default(tiny_dsn):
    lm = scripted_lm()
    with load(
        "fake/scripted",
        program=ProgramSettings(uncompiled=True, candidates=3),
        engine=EngineSettings(dsn=tiny_dsn),
        lm=lm,
    ) as t2s:
        assert t2s.program.settings.candidates == 3
        answer = t2s.ask("Which objects?")
    assert answer.is_answered
    assert lm.engine_obj.stages().count("direct") >= 3  # one generation call per candidate
    assert [c["path"] for c in answer.candidates] == ["default", "without_plan", "step_by_step"]
    assert answer.candidates[0] == {"path": "default", "sql": LITERAL_SQL, "error_kind": None, "rows": 2}
    assert answer.selection is not None and answer.selection["selected"] in range(3)


def test_without_refuses_a_stage_that_cannot_be_switched_off():
    with pytest.raises(UnknownStageError, match="Unknown stage 'generation'; choose from dates, schema_linking"):
        load(
            "fake/scripted",
            program=ProgramSettings(without=("generation",)),
            engine=EngineSettings(dsn="postgresql://nobody@127.0.0.1:1/none"),
            lm=scripted_lm(),
        )


def test_clean_text_removes_control_characters_and_keeps_newlines():
    assert clean_text(" a\x1b[0m b\x7f\nc\t ") == "a[0m b\nc"


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ("SELECT 1 AS a -- note\r, 2 AS b", "SELECT 1 AS a -- note\n, 2 AS b"),  # PostgreSQL ends the comment at CR
        ("a\r\nb\x85c\u2028d\u2029e", "a\nb\nc\nd\ne"),
        ("bad \ud800 and \udcff", "bad \ufffd and \ufffd"),
        ("pair \ud83d\ude00", "pair \U0001f600"),
    ],
    ids=["bare-cr", "line-separators", "lone-surrogates", "surrogate-pair"],
)
def test_clean_text_breaks_lines_as_they_read_and_is_encodable(text, cleaned):
    assert clean_text(text, field="sql") == cleaned
    cleaned.encode("utf-8")


def test_clean_text_refuses_an_empty_question():
    with pytest.raises(BadQuestion) as caught:
        clean_text(" \x00 ")
    assert str(caught.value) == (
        'the question is empty; ask something like "How many objects have more than 50 detections?"'
    )


def test_clean_text_refuses_a_huge_question():
    with pytest.raises(BadQuestion) as caught:
        clean_text("x" * 1_000_000)
    assert str(caught.value) == (
        f"the question is 1,000,000 characters long; the limit is {MAX_QUESTION_CHARS:,}. "
        "Shorten it to the part that matters."
    )


def test_an_answer_of_the_demo_model_says_who_wrote_it(tiny_dsn):
    where = {"program": ProgramSettings(uncompiled=True), "engine": EngineSettings(dsn=tiny_dsn)}
    with load("fake/scripted", lm=demo_model_lm(), **where) as t2s:
        demo = t2s.ask("How many?")
    with load("fake/scripted", lm=scripted_lm(), **where) as t2s:
        other = t2s.ask("How many?")
    assert demo.notice.startswith("A small demo model wrote this SQL (local/gemma3-270m: Gemma 3 270M base")
    assert "--model openai/gpt-4.1-mini" in demo.notice and "MODEL=" in demo.notice and "\n" not in demo.notice
    assert other.notice is None
