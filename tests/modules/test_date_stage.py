"""The date stage in the program: the question's MJD ranges join the knowledge every stage sees."""

from datetime import UTC, date, datetime

import dspy

from lms.fake import fake_lm, render_answer
from modules import STAGES, AlerceText2SQL, PipelineSettings
from modules.settings import ProgramSettings

QUESTION = "Which SNe Ia were first detected in September 2023 or since last June?"
RANGES = (
    '-- "September 2023": 60188.0 <= mjd < 60218.0 (2023-09-01 to 2023-10-01, UTC)\n'
    '-- "since last June": mjd >= 61192.0 (from 2026-06-01, UTC; no upper bound)'
)


def run(settings: PipelineSettings, question: str = QUESTION, **knowledge: str):
    def answer(call):
        fields = {"tables": {"tables": ["object"]}, "columns": {"columns": {"object": ["firstmjd"]}}}
        return render_answer(fields.get(call.stage, {"sql": "SELECT oid FROM object"}))

    lm = fake_lm(answer)
    with dspy.context(lm=lm):
        pred = AlerceText2SQL(settings=settings)(question=question, **knowledge)
    return pred, [call.inputs.get("knowledge") for call in lm.engine_obj.calls]


def test_the_ranges_join_the_knowledge_of_every_stage_after_the_given_knowledge():
    settings = PipelineSettings(stages=("dates", "schema_linking", "generation"), as_of=date(2026, 12, 1))
    pred, seen = run(settings, external_knowledge="-- mjd date for September 01 = 60188.0")
    assert seen == [f"-- mjd date for September 01 = 60188.0\n{RANGES}"] * 3  # tables, columns, generation
    assert pred.as_of == "2026-12-01"
    assert pred.dates == [
        {"text": "September 2023", "start_mjd": 60188.0, "end_mjd": 60218.0, "kind": "absolute"},
        {"text": "since last June", "start_mjd": 61192.0, "end_mjd": None, "kind": "relative"},
    ]


def test_switched_off_the_knowledge_is_as_given():
    pred, seen = run(PipelineSettings(stages=("generation",), as_of=date(2026, 12, 1)), external_knowledge="-- k")
    assert seen == ["-- k"] and pred.dates == [] and pred.as_of is None


def test_a_question_without_dates_adds_nothing():
    pred, seen = run(PipelineSettings(stages=("dates", "generation")), "How many objects have more than 50 detections?")
    assert seen == [""] and pred.dates == []


def test_without_a_reference_date_today_in_utc_is_used():
    pred, _ = run(PipelineSettings(stages=("dates", "generation")))
    assert pred.as_of == datetime.now(UTC).date().isoformat()


def test_the_reference_date_is_the_askers_never_the_artifacts():
    saved = PipelineSettings(stages=STAGES, as_of="2025-01-31")  # as read back from a manifest
    assert saved.as_of == date(2025, 1, 31)
    assert ProgramSettings().pipeline(saved).as_of is None
    assert ProgramSettings(as_of=date(2026, 12, 1)).pipeline(saved).as_of == date(2026, 12, 1)
