"""Each stage's rendered prompt, as a provider's model gets it, is pinned in tests/fixtures/prompts/<predictor>.txt.

Regenerate after a deliberate prompt change with `UPDATE_GOLDEN=1 pytest tests/signatures` (and recompile).
"""

import os
from pathlib import Path

import dspy
import pandas as pd
import pytest

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules import AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.adapter import make_adapter
from modules.result_findings import check_result
from modules.selection import result_preview

PROVIDER_ADAPTER = "compact"
"""The adapter of an uncompiled program on a provider's model (``modules.adapter.default_adapter``)."""

GOLDEN_DIR = Path(__file__).parents[1] / "fixtures" / "prompts"
QUESTION = "Which SNIa were first detected in September 2023?"
EXTERNAL = "-- mjd date for September 01 = 60188.0"


class FailOnceExecutor(FakeEngine):
    def __init__(self) -> None:
        self.calls = 0

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        self.calls += 1
        if self.calls == 1:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "firstmjdd" does not exist')
        return object()


def answer(call):
    return render_answer(
        {
            "tables": {"tables": ["object", "probability"]},
            "columns": {"columns": {"object": ["firstmjd"], "probability": ["class_name", "ranking"]}},
            "difficulty": {"difficulty": "medium"},
            "plan": {"plan": ["Pick SNIa with ranking 1.", "Filter object on firstmjd."]},
            "planned": {"sql": "SELECT oid FROM object WHERE firstmjdd > 60188"},
            "direct": {"sql": "SELECT oid FROM object"},
            "correct": {"sql": "SELECT oid FROM object WHERE firstmjd > 60188"},
            "explanation": EXPLANATION,
        }[call.stage]
    )


def prompts(program) -> list[str]:
    lm = fake_lm(answer)
    with dspy.context(lm=lm, adapter=make_adapter(PROVIDER_ADAPTER)):
        program(question=QUESTION, external_knowledge=EXTERNAL, domain_knowledge="0")
    return [_render(entry["messages"]) for entry in lm.history]


def _render(messages) -> str:
    return "\n\n".join(f"--- {m['role']} ---\n{m['content']}" for m in messages) + "\n"


def rendered() -> dict[str, str]:
    full = prompts(AlerceText2SQL(FailOnceExecutor()))
    names = [
        "schema_linking.tables",
        "schema_linking.columns",
        "classification.predict",
        "decomposition.predict",
        "generation.planned",
        "self_correction.predict",
        "explanation.predict",
    ]
    pinned = dict(zip(names, full, strict=True))
    simple = AlerceText2SQL(settings=PipelineSettings(stages=("schema_linking",)))
    pinned["generation.direct"] = prompts(simple)[-1]
    pinned["direct_baseline.generation"] = prompts(DirectText2SQL())[0]
    program = AlerceText2SQL()
    empty = check_result(QUESTION, pd.DataFrame({"oid": []}))[0]
    pinned["self_correction.revise"] = predictor_prompt(
        program.self_correction.revise,
        {"sql": "SELECT oid FROM object WHERE firstmjd > 60188"},
        question=QUESTION,
        knowledge=EXTERNAL,
        schema_text="table object: oid text, firstmjd double precision",
        checked_sql="SELECT oid FROM object WHERE firstmjd > 70188",
        finding_kind=empty.kind.value,
        finding=empty.message,
        hints="",
    )
    pinned["selection.choose"] = predictor_prompt(
        program.selection.choose,
        {"choice": "first", "reason": "It filters on SNIa."},
        question=QUESTION,
        knowledge=EXTERNAL,
        first_sql="SELECT oid FROM probability WHERE class_name = 'SNIa'",
        first_result=result_preview(pd.DataFrame({"oid": ["ZTF1"]})),
        second_sql="SELECT oid FROM object",
        second_result=result_preview(pd.DataFrame({"oid": []})),
    )
    return pinned


def predictor_prompt(predictor: dspy.Predict, answer_fields: dict, **inputs: str) -> str:
    lm = fake_lm(lambda call: render_answer(answer_fields))
    with dspy.context(lm=lm, adapter=make_adapter(PROVIDER_ADAPTER)):
        predictor(**inputs)
    return _render(lm.history[0]["messages"])


@pytest.mark.parametrize(
    "name",
    [
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
        "direct_baseline.generation",
    ],
)
def test_rendered_prompt_matches_golden(name):
    text = rendered()[name]
    path = GOLDEN_DIR / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"No golden prompt {path}; run with UPDATE_GOLDEN=1 to create it."
    assert text == path.read_text(encoding="utf-8")


MULTISURVEY_NAMES = (
    "schema_linking.tables",
    "schema_linking.columns",
    "classification.predict",
    "decomposition.predict",
    "generation.planned",
    "self_correction.predict",
)


class MultisurveyFailOnce(FailOnceExecutor):
    catalog = "multisurvey"


def multisurvey_answer(call):
    return render_answer(
        {
            "tables": {"tables": ["object", "probability", "taxonomy"]},
            "columns": {
                "columns": {"object": ["firstmjd"], "probability": ["class_id", "ranking"], "taxonomy": ["class_name"]}
            },
            "difficulty": {"difficulty": "medium"},
            "plan": {"plan": ["Pick SN with ranking 1 of classifier 3.", "Filter object on firstmjd."]},
            "planned": {"sql": "SELECT oid, sid FROM object WHERE firstmjdd > 61041"},
            "correct": {"sql": "SELECT oid, sid FROM object WHERE firstmjd > 61041"},
        }[call.stage]
    )


@pytest.mark.parametrize("name", MULTISURVEY_NAMES)
def test_multisurvey_prompt_matches_golden(name):
    lm = fake_lm(multisurvey_answer)
    program = AlerceText2SQL(MultisurveyFailOnce(), PipelineSettings(catalog="multisurvey"))
    with dspy.context(lm=lm):
        program(
            question="Which LSST supernovae were first detected in 2026?", external_knowledge="-- 61041 = 2026-01-01"
        )
    text = dict(zip(MULTISURVEY_NAMES, [_render(entry["messages"]) for entry in lm.history], strict=True))[name]
    path = GOLDEN_DIR / "multisurvey" / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"No golden prompt {path}; run with UPDATE_GOLDEN=1 to create it."
    assert text == path.read_text(encoding="utf-8")
