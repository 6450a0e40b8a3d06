"""Shared pieces of the compile tests: synthetic questions (never benchmark data) and demo-sensitive fake LMs."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pandas as pd
from dspy.lm15 import Response

from catalog import load_catalog
from data.loader import load_dataset
from lms.fake import Call, OracleAnswers, fake_lm, parse_call, render_answer, text_response

SYNTHETIC_CSV = Path(__file__).resolve().parent.parent / "fixtures" / "synthetic_questions.csv"
"""Our own questions with gold SQL that returns rows on the tiny database."""
WRONG_SQL = "SELECT oid FROM object ORDER BY oid LIMIT 1"
MAGIC_INSTRUCTION = "Answer from the labelled examples you remember."
"""An instruction that makes `DemoGatedOracle` answer generation right without demos (what GEPA can learn)."""


def catalog_columns(table: str) -> list[str]:
    """Column names of a catalog table ([] when unknown)."""
    found = load_catalog().table(table)
    return found.column_names if found else []


def synthetic_examples() -> list[dspy.Example]:
    """The synthetic questions as dataset examples."""
    return load_dataset(SYNTHETIC_CSV)


def generic_answer(call: Call) -> str:
    """Answer a prompt that is not a pipeline stage (an optimiser's own signature, e.g. MIPROv2's proposer).

    Every output field named in the system prompt gets a short text; a prompt without a field list (a raw
    completion) gets a short sentence.
    """
    if not call.output_fields:
        return "A short answer."
    return render_answer({name: f"Short {name.replace('_', ' ')}." for name in call.output_fields})


class DemoGatedOracle:
    """An engine answering every stage from the labels, except generation without demos, which answers WRONG_SQL.

    So a program scores only when compiling gave its generation predictors demos, or an instruction holding
    `MAGIC_INSTRUCTION`. Prompts without a ``question`` input (optimiser signatures) get `generic_answer`.
    """

    def __init__(self) -> None:
        self.oracle = OracleAnswers(pd.read_csv(SYNTHETIC_CSV), catalog_columns)

    def complete(self, request) -> Response:
        """Answer one `dspy.lm15.Request`."""
        system = request.system if isinstance(request.system, str) else ""
        messages = [(m.role, m.text or "") for m in request.messages]
        call = parse_call(system, messages)
        if "question" not in call.input_fields:
            return text_response(generic_answer(call))
        if call.stage in ("direct", "planned") and len(messages) == 1 and MAGIC_INSTRUCTION not in system:
            text = render_answer({"sql": WRONG_SQL})
        else:
            text = self.oracle(call)
        return text_response(text)

    def __deepcopy__(self, memo: dict) -> DemoGatedOracle:
        return self


def gated_lm() -> dspy.LM:
    """An uncached LM over `DemoGatedOracle`."""
    return dspy.LM("fake/gated", engine=DemoGatedOracle(), cache=False)


def reflection_lm() -> dspy.LM:
    """A fake GEPA reflection LM: every proposal is `MAGIC_INSTRUCTION`.

    DSPy's GEPA asks through ``dspy.Predict(ProposeInstruction)`` with a JSONAdapter, so the answer is the JSON
    object ``{"new_instruction": ...}``.
    """
    return fake_lm(lambda call: json.dumps({"new_instruction": MAGIC_INSTRUCTION}))
