"""Shared pieces of the compile tests: synthetic questions (never benchmark data) and demo-sensitive fake LMs."""

from __future__ import annotations

from pathlib import Path

import dspy
import pandas as pd
from dspy.lm15 import Response

from data.loader import load_dataset
from db.catalog import load_catalog
from tests.fake_lms import OracleAnswers, parse_call, render_answer, text_response

SYNTHETIC_CSV = Path(__file__).resolve().parent.parent / "fixtures" / "synthetic_questions.csv"
"""Our own questions with gold SQL that returns rows on the tiny database."""
WRONG_SQL = "SELECT oid FROM object ORDER BY oid LIMIT 1"


def catalog_columns(table: str) -> list[str]:
    """Column names of a catalog table ([] when unknown)."""
    found = load_catalog().table(table)
    return found.column_names if found else []


def synthetic_examples() -> list[dspy.Example]:
    """The synthetic questions as dataset examples."""
    return load_dataset(SYNTHETIC_CSV)


class DemoGatedOracle:
    """An engine answering every stage from the labels, except generation without demos, which answers WRONG_SQL.

    So a program scores only when compiling gave its generation predictors demos.
    """

    def __init__(self) -> None:
        self.oracle = OracleAnswers(pd.read_csv(SYNTHETIC_CSV), catalog_columns)

    def complete(self, request) -> Response:
        """Answer one `dspy.lm15.Request`."""
        system = request.system if isinstance(request.system, str) else ""
        messages = [(m.role, m.text or "") for m in request.messages]
        call = parse_call(system, messages)
        if call.stage in ("direct", "planned") and len(messages) == 1:
            text = render_answer({"sql": WRONG_SQL})
        else:
            text = self.oracle(call)
        return text_response(text)

    def __deepcopy__(self, memo: dict) -> DemoGatedOracle:
        return self


def gated_lm() -> dspy.LM:
    """An uncached LM over `DemoGatedOracle`."""
    return dspy.LM("fake/gated", engine=DemoGatedOracle(), cache=False)
