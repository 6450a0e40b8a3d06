"""Each stage's rendered prompt, as a provider's model gets it, is pinned in tests/fixtures/prompts/<predictor>.txt.

Regenerate after a deliberate prompt change with `UPDATE_GOLDEN=1 pytest tests/signatures` (and recompile).
The provider's adapter lays each prompt out for a prompt cache (``modules.predictors.prefix_cache_adapter``); each
pinned prompt holds the same parts as the one `CompactChatAdapter` renders in its original order, only moved.
"""

import functools
import os
import re
from collections import Counter
from pathlib import Path

import dspy
import pandas as pd
import pytest

from engines.errors import ErrorKind, ExecutionError
from engines.fake import FakeEngine
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules import AlerceText2SQL, DirectText2SQL, PipelineSettings
from modules.predictors.adapter import make_adapter
from modules.predictors.compact_chat_adapter import CompactChatAdapter
from modules.result_check.findings import check_result
from modules.selection.stage import result_preview

PROVIDER_ADAPTER = "compact"
"""The adapter of an uncompiled program on a provider's model (``modules.predictors.adapter.default_adapter``)."""

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


ADAPTERS = {"provider": lambda: make_adapter(PROVIDER_ADAPTER), "unordered": CompactChatAdapter}
"""The provider's adapter, and the compact format in the order of the signatures (the prompts before the cache
layout)."""


def prompts(program, adapter: str = "provider") -> list[str]:
    lm = fake_lm(answer)
    with dspy.context(lm=lm, adapter=ADAPTERS[adapter]()):
        program(question=QUESTION, external_knowledge=EXTERNAL, domain_knowledge="0")
    return [_render(entry["messages"]) for entry in lm.history]


def _render(messages) -> str:
    return "\n\n".join(f"--- {m['role']} ---\n{m['content']}" for m in messages) + "\n"


@functools.cache
def rendered(adapter: str = "provider") -> dict[str, str]:
    full = prompts(AlerceText2SQL(FailOnceExecutor()), adapter)
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
    pinned["generation.direct"] = prompts(simple, adapter)[-1]
    pinned["direct_baseline.generation"] = prompts(DirectText2SQL(), adapter)[0]
    program = AlerceText2SQL()
    empty = check_result(QUESTION, pd.DataFrame({"oid": []}))[0]
    pinned["self_correction.revise"] = predictor_prompt(
        adapter,
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
        adapter,
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


def predictor_prompt(adapter: str, predictor: dspy.Predict, answer_fields: dict, **inputs: str) -> str:
    lm = fake_lm(lambda call: render_answer(answer_fields))
    with dspy.context(lm=lm, adapter=ADAPTERS[adapter]()):
        predictor(**inputs)
    return _render(lm.history[0]["messages"])


PINNED = (
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
)


@pytest.mark.parametrize("name", PINNED)
def test_rendered_prompt_matches_golden(name):
    text = rendered()[name]
    path = GOLDEN_DIR / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"No golden prompt {path}; run with UPDATE_GOLDEN=1 to create it."
    assert text == path.read_text(encoding="utf-8")


_ROLE = re.compile(r"^--- (system|user|assistant) ---$", re.MULTILINE)
_SECTION = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond with|\Z)", re.DOTALL)


def parts(prompt: str) -> tuple[dict[str, str], Counter]:
    """A rendered prompt's input sections (marker: value) and the multiset of its other non-empty lines."""
    sections: dict[str, str] = {}
    lines: Counter = Counter()
    for message in _ROLE.split(prompt)[2::2]:
        for name, value in _SECTION.findall(message.strip()):
            assert name not in sections, f"section {name} twice"
            sections[name] = value
        rest = _SECTION.sub("", message.strip())
        lines.update(line for line in rest.splitlines() if line.strip())
    return sections, lines


@pytest.mark.parametrize("name", PINNED)
def test_the_golden_prompt_holds_the_parts_of_the_unordered_prompt_only_moved(name):
    golden = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    unordered = rendered("unordered")[name]
    assert parts(golden) == parts(unordered)
    assert sorted(golden.replace("\n", "")) == sorted(unordered.replace("\n", ""))  # not a character more or less
    assert golden.split("--- user ---")[0].startswith(unordered.split("\n\n")[0])  # the field list comes first


def test_the_cache_layout_moves_the_repeating_parts_first():
    """Table linking starts its question's message with the table catalog; generation keeps the scoped rules
    this question needs for the end of the prompt and the system message is the same for every question."""
    tables = rendered()["schema_linking.tables"].split("--- user ---\n")[1]
    assert tables.startswith("[[ ## table_catalog ## ]]\n")
    planned_system, planned_user = rendered()["generation.planned"].split("--- user ---\n")
    assert "probability.ranking = 1" not in planned_system and "probability.ranking = 1" in planned_user
    assert planned_user.index("probability.ranking = 1") < planned_user.index("[[ ## question ## ]]")
    baseline = rendered()["direct_baseline.generation"].split("--- user ---\n")[1]
    assert baseline.startswith("[[ ## schema_text ## ]]\n")


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
