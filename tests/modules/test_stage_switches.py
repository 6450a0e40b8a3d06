"""Each switch removes exactly its stage's LM calls; the direct baseline makes one call."""

import dspy
import pytest

from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules import OPTIONAL_STAGES, STAGES, AlerceText2SQL, DirectText2SQL, PipelineSettings, UnknownStageError

WRONG_SQL = "SELECT oid, ndets FROM object"


class FakeExecutor(FakeEngine):
    """Fails the first statement with a missing column, accepts the rest."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        from engines.errors import ErrorKind, ExecutionError

        self.statements.append(sql)
        if sql == WRONG_SQL:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "ndets" does not exist')
        return object()


def answer(call):
    return render_answer(
        {
            "tables": {"tables": ["object"]},
            "columns": {"columns": {"object": ["oid"]}},
            "difficulty": {"difficulty": "advanced"},
            "plan": {"plan": ["Read object."]},
            "planned": {"sql": WRONG_SQL},
            "direct": {"sql": WRONG_SQL},
            "correct": {"sql": "SELECT oid FROM object"},
            "explanation": EXPLANATION,
        }[call.stage]
    )


# LM calls per stage of the full program on this script: tables + columns, difficulty, plan, SQL, one correction,
# the explanation of the SQL that ran (the date stage makes none).
FULL_CALLS = {
    "schema_linking": 2,
    "classification": 1,
    "decomposition": 1,
    "generation": 1,
    "self_correction": 1,
    "explanation": 1,
}


def count_calls(program) -> dict[str, int]:
    lm = fake_lm(answer)
    with dspy.context(lm=lm):
        pred = program(question="Which objects?")
    assert sum(stage["calls"] for stage in pred.usage.values()) == len(lm.engine_obj.calls)
    return {stage: usage["calls"] for stage, usage in pred.usage.items()}


def test_full_program_calls_every_stage():
    assert count_calls(AlerceText2SQL(FakeExecutor())) == FULL_CALLS


# Without self-correction the SQL stays broken, and SQL that failed is not explained.
ALSO_OFF = {"self_correction": {"explanation"}}


@pytest.mark.parametrize("off", OPTIONAL_STAGES)
def test_switching_a_stage_off_removes_exactly_its_calls(off):
    stages = tuple(stage for stage in STAGES if stage != off)
    calls = count_calls(AlerceText2SQL(FakeExecutor(), PipelineSettings(stages=stages)))
    gone = {off, *ALSO_OFF.get(off, ())}
    assert calls == {stage: n for stage, n in FULL_CALLS.items() if stage not in gone}


def test_simple_questions_skip_decomposition():
    def simple(call):
        return answer(call) if call.stage != "difficulty" else render_answer({"difficulty": "simple"})

    lm = fake_lm(simple)
    with dspy.context(lm=lm):
        AlerceText2SQL(FakeExecutor())(question="Which objects?")
    assert lm.engine_obj.stages() == ["tables", "columns", "difficulty", "direct", "correct", "explanation"]


def test_direct_baseline_makes_one_call_with_the_full_schema():
    lm = fake_lm(answer)
    executor = FakeExecutor()
    with dspy.context(lm=lm):
        pred = DirectText2SQL(executor)(question="Which objects?")
    assert lm.engine_obj.stages() == ["direct"]
    assert "table forced_photometry" in lm.engine_obj.calls[0].inputs["schema_text"]
    assert executor.statements == [WRONG_SQL]
    assert pred.error.kind == "missing_structure"


def test_every_stage_is_built_whatever_the_switches():
    names = [name for name, _ in AlerceText2SQL(settings=PipelineSettings(stages=())).named_predictors()]
    assert names == [
        "schema_linking.tables",
        "schema_linking.columns",
        "classification.predict",
        "decomposition.predict",
        "generation.direct",
        "generation.planned",
        "self_correction.predict",
        "self_correction.revise",
        "selection.choose",
        "explanation.predict",
    ]


def test_unknown_stage_is_refused_with_the_choices():
    with pytest.raises(UnknownStageError) as info:
        PipelineSettings(stages=("linking",))
    assert str(info.value) == (
        "Unknown stage 'linking'; choose from dates, schema_linking, classification, decomposition, generation, "
        "value_check, self_correction, selection, result_check, explanation."
    )


@pytest.mark.parametrize(("detail", "shows_descriptions"), [("full", True), ("names", False)])
def test_schema_detail_sets_the_schema_text_without_linking(detail, shows_descriptions):
    prompts = []

    def recording(call):
        prompts.append(call.inputs.get("schema_text", ""))
        return answer(call)

    settings = PipelineSettings(stages=("generation",), schema_detail=detail)
    with dspy.context(lm=fake_lm(recording)):
        AlerceText2SQL(FakeExecutor(), settings)(question="Which objects?")
    assert len(prompts) == 1
    assert "ndethist integer" in prompts[0]
    assert ("ndethist integer:" in prompts[0]) is shows_descriptions


def test_unknown_schema_detail_is_refused():
    with pytest.raises(ValueError, match="schema_detail must be one of full, brief, names, got 'tiny'"):
        PipelineSettings(schema_detail="tiny")
