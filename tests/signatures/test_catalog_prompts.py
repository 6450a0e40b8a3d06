"""Every stage's prompt, rendered for each catalog, names no table or column that catalog lacks.

A prompt's catalog-specific sentences come from the catalog's own file (``sql_rules``, ``prompt_notes``, table and
column descriptions); the signatures' docstrings name no catalog's tables. Any identifier of the prompt that names a
table or column of some catalog must therefore name one of the rendered catalog.
"""

import re

import dspy
import pandas as pd
import pytest

from catalog import CATALOG_NAMES, load_catalog
from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules import AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.predictors.adapter import make_adapter
from modules.result_check.findings import check_result
from modules.selection.stage import result_preview

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENGLISH = frozenset(
    "a e g h i q x y dt pm mag name value date field band node visit classes classifier comments corrected designation "
    "detector dubious parallax pipeline reference reliability score sky step stellar".split()
)
"""Names of some catalog's tables or columns that a prompt may use as ordinary words (or band letters)."""
STAGES = (
    "schema_linking.tables",
    "schema_linking.columns",
    "classification.predict",
    "decomposition.predict",
    "generation.planned",
    "self_correction.predict",
    "explanation.predict",
    "generation.direct",
    "direct_baseline.generation",
    "self_correction.revise",
    "selection.choose",
)


def names(catalog) -> frozenset[str]:
    return frozenset(name.lower() for table in catalog.tables for name in (table.name, *table.column_names)) | {
        "information_schema"
    }


ALL_NAMES = frozenset().union(*(names(load_catalog(name)) for name in CATALOG_NAMES))


def foreign_names(text: str, catalog) -> set[str]:
    """Identifiers of `text` naming another catalog's table or column, not one of `catalog`'s."""
    own = names(catalog)
    tokens = {token.lower() for token in IDENTIFIER.findall(text)}
    return {token for token in tokens & ALL_NAMES if token not in own and token not in ENGLISH}


class FailOnce(FakeEngine):
    def __init__(self, catalog: str) -> None:
        self.catalog = catalog
        self.calls = 0

    def execute(self, sql, *, timeout_s=None, max_rows=None):
        self.calls += 1
        if self.calls == 1:
            raise ExecutionError(ErrorKind.MISSING_STRUCTURE, "42703", 'column "firstmjdd" does not exist')
        return object()


def answers(catalog) -> dict[str, dict]:
    """One answer per kind of call, naming only tables and columns of `catalog`."""
    return {
        "tables": {"tables": ["object", "probability"]},
        "columns": {"columns": {"object": ["oid", "firstmjd"], "probability": ["ranking"]}},
        "difficulty": {"difficulty": "medium"},
        "plan": {"plan": ["Keep ranking 1 in probability.", "Filter object on firstmjd."]},
        "planned": {"sql": "SELECT oid FROM object WHERE firstmjdd > 60188"},
        "direct": {"sql": "SELECT oid FROM object"},
        "correct": {"sql": "SELECT oid FROM object WHERE firstmjd > 60188"},
        "explanation": EXPLANATION,
    }


def prompts(program, catalog, question: str) -> list[str]:
    lm = fake_lm(lambda call: render_answer(answers(catalog)[call.stage]))
    with dspy.context(lm=lm, adapter=make_adapter("compact")):
        program(question=question, external_knowledge="-- mjd 60188.0 = 2023-09-01")
    return ["\n".join(message["content"] for message in entry["messages"]) for entry in lm.history]


def predictor_prompt(predictor: dspy.Predict, answer: dict, **inputs: str) -> str:
    lm = fake_lm(lambda call: render_answer(answer))
    with dspy.context(lm=lm, adapter=make_adapter("compact")):
        predictor(**inputs)
    return "\n".join(message["content"] for message in lm.history[0]["messages"])


def rendered(name: str) -> dict[str, str]:
    """Every stage's prompt for catalog `name` (the question names no table)."""
    catalog = load_catalog(name)
    question = "Which supernovae were first detected in September 2023?"
    settings = PipelineSettings(catalog=name)
    full = prompts(AlerceText2SQL(FailOnce(name), settings), catalog, question)
    pinned = dict(zip(STAGES[:7], full, strict=True))
    simple = AlerceText2SQL(settings=PipelineSettings(catalog=name, stages=("schema_linking",)))
    pinned["generation.direct"] = prompts(simple, catalog, question)[-1]
    pinned["direct_baseline.generation"] = prompts(DirectText2SQL(catalog=name), catalog, question)[0]
    program = AlerceText2SQL(settings=settings)
    empty = check_result(question, pd.DataFrame({"oid": []}))[0]
    pinned["self_correction.revise"] = predictor_prompt(
        program.self_correction.revise,
        {"sql": "SELECT oid FROM object WHERE firstmjd > 60188"},
        question=question,
        knowledge="",
        schema_text="table object: oid, firstmjd",
        checked_sql="SELECT oid FROM object WHERE firstmjd > 70188",
        finding_kind=empty.kind.value,
        finding=empty.message,
        hints="",
    )
    pinned["selection.choose"] = predictor_prompt(
        program.selection.choose,
        {"choice": "first", "reason": "It keeps ranking 1."},
        question=question,
        knowledge="",
        first_sql="SELECT oid FROM object WHERE firstmjd > 60188",
        first_result=result_preview(pd.DataFrame({"oid": [1]})),
        second_sql="SELECT oid FROM object",
        second_result=result_preview(pd.DataFrame({"oid": []})),
    )
    return pinned


@pytest.fixture(scope="module", params=CATALOG_NAMES)
def catalog_prompts(request) -> tuple[str, dict[str, str]]:
    return request.param, rendered(request.param)


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_prompt_names_a_table_or_column_its_catalog_lacks(catalog_prompts, stage):
    name, texts = catalog_prompts
    assert foreign_names(texts[stage], load_catalog(name)) == set()


def test_the_check_finds_a_ztf_table_in_a_multisurvey_prompt():
    text = "Class probabilities are in probability, per-band light-curve statistics in magstat (fid 1 = g band)."
    assert foreign_names(text, load_catalog("multisurvey")) == {"magstat", "fid"}
    assert foreign_names(text, load_catalog("ztf")) == set()


@pytest.mark.parametrize("name", CATALOG_NAMES)
def test_every_catalog_has_its_own_notes_for_the_stages_that_need_them(name):
    assert set(load_catalog(name).prompt_notes) == {"SelectTables", "ClassifyDifficulty"}
